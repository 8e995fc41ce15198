/**
 * The foreclosure window: the sequential test's exact error rates at its threshold, its decisions
 * against a direct reading of its boundaries, the distribution-free median interval against the
 * textbook order statistics, and the bisection on a fake sampler whose success probability drops
 * at a planted token (found, as a one-token window) or stays constant (undecided, never a window).
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as v from 'valibot';
import { decide, medianInterval, operatingCharacteristic, seededRandom, sequentialRateTest } from '../../../src/audit/stats';
import { foreclosureBracket, mostForeclosurePrefixes, narrowWindow, type SampleRequest } from '../../../src/audit/runner/foreclosureWindow';
import { foreclosureSummary } from '../../../src/audit/results/foreclosureSummary';
import { foreclosureLines } from '../../../src/audit/report/foreclosureText';
import { depthView } from '../../../src/audit/report/depthView';
import { foreclosureMoves } from '../../../src/audit/results/foreclosureMoves';
import { foreclosureMovesText } from '../../../src/audit/report/foreclosureText';
import { rateOf, type DepthSummary } from '../../../src/contract';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { questionRecordSchema } from '../../../src/audit/store/runFileSchemas';
import type { DepthResult, ForeclosureResult, QuestionRecord } from '../../../src/contract';
import { fakeFor, settingsFor, smallDataset } from './fixtures';
import { testRecord } from '../../support/questionRecord';

const NO_COST = { generations: 0, tokens: 0, blockApplications: 0 };
/** A depth result of an output of `outputTokens` tokens, for the fields the window reads. */
const depthOf = (outputTokens: number): DepthResult => ({ budget: 4, outputTokens, points: [], deepestReached: null, noReturn: null, lostIn: 'start', cost: NO_COST });
const withWindow = (f: ForeclosureResult, outputTokens = 40) => testRecord('q', 1, { depth: depthOf(outputTokens), foreclosure: f });

/** Outcomes of continuations from..to−1 of each prefix asked for, each a seeded draw at the prefix's rate. */
function fakeSampler(rateAt: (tokens: number) => number, key: string) {
  return async (wanted: SampleRequest[]): Promise<boolean[][]> =>
    wanted.map(({ tokens, from, to }) => Array.from({ length: to - from }, (_, i) => seededRandom(key, tokens, from + i)() < rateAt(tokens)));
}

describe('the sequential rate test', () => {
  it('keeps each wrong decision at or under its error at the threshold, exactly, and less so away from it', () => {
    for (const [threshold, error, most] of [[0.1, 0.05, 48], [0.2, 0.05, 32], [0.3, 0.1, 17], [0.1, 0.01, 64]] as const) {
      const t = sequentialRateTest(threshold, error, most, 4);
      const at = operatingCharacteristic(t, threshold);
      assert.ok(at.above <= error + 1e-12 && at.below <= error + 1e-12, `${threshold}/${error}/${most}: ${JSON.stringify(at)}`);
      assert.ok(Math.abs(at.above - t.atThreshold.above) < 1e-12 && Math.abs(at.below - t.atThreshold.below) < 1e-12);
      // Monotone: "above" only rarer below θ, "below" only rarer above it.
      for (const p of [0, threshold / 2]) assert.ok(operatingCharacteristic(t, p).above <= at.above + 1e-12);
      for (const p of [(threshold + 1) / 2, 1]) assert.ok(operatingCharacteristic(t, p).below <= at.below + 1e-12);
      assert.equal(t.looks[t.looks.length - 1], most);
    }
  });

  it('decides a sure thing quickly and a rate at the threshold mostly not at all', () => {
    const t = sequentialRateTest(0.1, 0.05, 48, 4);
    assert.deepEqual(decide(t, Array(48).fill(true)), { decision: 'above', samples: 4, successes: 4 });
    const none = decide(t, Array(48).fill(false));
    assert.equal(none.decision, 'below');
    assert.ok(none.samples < 48);
    assert.ok(operatingCharacteristic(t, 0.1).undecided > 0.85);
  });

  it('refuses a threshold, error or count out of range', () => {
    assert.throws(() => sequentialRateTest(0, 0.05, 10, 4), /threshold/);
    assert.throws(() => sequentialRateTest(0.1, 0.3, 10, 4), /error/);
    assert.throws(() => sequentialRateTest(0.1, 0.05, 0, 4), /most/);
  });
});

describe('the median and its distribution-free interval', () => {
  it('is the textbook order-statistic interval', () => {
    const x = Array.from({ length: 20 }, (_, i) => 20 - i);
    // n = 20: P(Bin(20, ½) ≤ 5) = 0.0207 ≤ 0.025 < P(≤ 6): the 6th and 15th smallest.
    assert.deepEqual(medianInterval(x), { median: 10.5, n: 20, ci: { lo: 6, hi: 15 } });
    // n = 5: even the extremes cover only 93.75%: no interval.
    assert.deepEqual(medianInterval([3, 1, 2, 5, 4]), { median: 3, n: 5, ci: null });
    assert.deepEqual(medianInterval([1, 2, 3, 4, 5, 6]).ci, { lo: 1, hi: 6 });
  });
});

describe('the foreclosure window', () => {
  const test = sequentialRateTest(0.1, 0.05, 48, 4);

  it('finds a planted foreclosure point as a one-token window', async () => {
    // From prefixes up to 37 tokens the answer is reached half the time; from 38 on, never.
    let found = 0;
    for (let seed = 0; seed < 20; seed++) {
      const r = await narrowWindow(test, { from: 0, to: 64 }, fakeSampler((t) => (t <= 37 ? 0.5 : 0), `planted ${seed}`));
      assert.equal(r.outcome, 'window');
      if (r.window!.from === 37 && r.window!.to === 38) found++;
      // Decided bounds only, and the window always holds the planted token.
      assert.ok(r.window!.from <= 37 && r.window!.to >= 38, JSON.stringify(r.window));
    }
    assert.ok(found >= 18, `${found} of 20 narrowed to the planted token`);
  });

  it('says undecided on a constant rate at the threshold, never a window from noise', async () => {
    let windows = 0;
    for (let seed = 0; seed < 40; seed++) {
      const r = await narrowWindow(test, { from: 3, to: 40 }, fakeSampler(() => 0.1, `constant ${seed}`));
      if (r.outcome === 'window') windows++;
      else assert.equal(r.window, null);
    }
    // Each window needs two wrong decisions, each at most 5% likely: a few in 40 at worst.
    assert.ok(windows <= 2, `${windows} windows from a constant rate`);
  });

  it('stops narrowing at an undecided prefix, its decided bounds kept', async () => {
    // Reached always up to 10, at the threshold from 11 to 20, never after.
    const rate = (t: number) => (t <= 10 ? 1 : t <= 20 ? 0.1 : 0);
    const r = await narrowWindow(test, { from: 0, to: 32 }, fakeSampler(rate, 'stop'));
    assert.equal(r.outcome, 'window');
    assert.ok(r.window!.from <= 10 || r.window!.to >= 21);
    const last = r.prefixes[r.prefixes.length - 1];
    if (r.window!.to - r.window!.from > 1) assert.equal(last.decision, 'undecided');
  });

  it('takes its bracket from the depth probe: deepest reaching cut to the next, or to the end when room is left', () => {
    const depth = (deepestReached: number | null, noReturn: number | null, lostIn: DepthResult['lostIn'] = 2): DepthResult => ({
      budget: 4,
      outputTokens: 40,
      points: [0, 10, 20, 30].map((tokens) => ({ at: '0', tokens, correct: [], answers: [], reached: false })),
      deepestReached,
      noReturn: noReturn === null ? null : { point: noReturn, before: '', after: '' },
      lostIn,
      cost: { generations: 0, tokens: 0, blockApplications: 0 },
    });
    assert.deepEqual(foreclosureBracket(depth(1, 2), 64), { from: 10, to: 20 });
    assert.deepEqual(foreclosureBracket(depth(3, null, 4), 64), { from: 30, to: 40 });
    assert.equal(foreclosureBracket(depth(3, null, 4), 40), null);
    assert.equal(foreclosureBracket(depth(null, 0, 'start'), 64), null);
    assert.equal(mostForeclosurePrefixes(64), 8);
  });

  it('summarizes windows with counts only under 20', () => {
    const record = (f: ForeclosureResult) => withWindow(f);
    const base = { test: { samples: 48, threshold: 0.1, error: 0.05, look: 4 }, cost: { generations: 10, tokens: 100, blockApplications: 1000 } };
    const win = (w: number): ForeclosureResult => ({ ...base, outcome: 'window', bracket: { from: 0, to: 16 }, window: { from: 3, to: 3 + w, chars: [9, 9 + w] }, prefixes: [{ tokens: 0, samples: 4, successes: 4, decision: 'reaches' }] });
    const none: ForeclosureResult = { ...base, outcome: 'no-bracket', bracket: null, window: null, prefixes: [] };
    const few = foreclosureSummary([win(1), win(3), none].map(record))!;
    assert.equal(few.n, 3);
    assert.equal(few.bracketed, 2);
    assert.equal(few.decided.successes, 2);
    assert.match(foreclosureLines(few).join('\n'), /decided 2 of 2 \(counts only, under 20\); 2 windows, 1 of them one token wide/);
    const many = foreclosureSummary(Array.from({ length: 25 }, (_, i) => record(win(1 + (i % 5)))))!;
    assert.deepEqual(many.width, { median: 3, n: 25, ci: { lo: 2, hi: 4 } });
    assert.match(foreclosureLines(many).join('\n'), /window median 3 tokens \[2, 4\] \(n = 25\) vs its depth bracket median 16 tokens/);
  });

  it('adds its columns to the depth table, a median only from 20 windows', () => {
    const record = (f: ForeclosureResult) => withWindow(f);
    const base = { test: { samples: 48, threshold: 0.1, error: 0.05, look: 4 }, cost: { generations: 10, tokens: 100, blockApplications: 1000 } };
    const win = (w: number): ForeclosureResult => ({ ...base, outcome: 'window', bracket: { from: 0, to: 16 }, window: { from: 3, to: 3 + w, chars: [9, 9 + w] }, prefixes: [] });
    const r0 = rateOf(0, 25);
    const depth: DepthSummary = { n: 25, budget: 4, curve: [], lostIn: { start: r0, quarter: [r0, r0, r0, r0] }, early: r0, late: r0, cost: base.cost };
    const row = (n: number) => ({ folder: 'f', model: 'm', dataset: 'd', finished: true, depth, foreclosure: foreclosureSummary(Array.from({ length: n }, (_, i) => record(win(1 + (i % 5)))))! });
    const view = depthView([row(25), row(5)], []);
    const col = (h: string) => view.headers.indexOf(h);
    assert.deepEqual(view.rows.map((r) => [r[col('foreclosure window decided')], r[col('window width, tokens')], r[col('its depth bracket, tokens')]]), [
      ['100.0% [86.7, 100.0] (n = 25)', '3 [2, 4] (n = 25)', '16 [16, 16] (n = 25)'],
      ['5 of 5 (counts only)', '5 windows (counts only)', '5 windows (counts only)'],
    ]);
    assert.equal(view.csvHeaders.length, view.csvRows[0].length);
  });

  it('pairs base and tuned windows: later / earlier by place in the output, a sign test only from 20', () => {
    const test = { samples: 48, threshold: 0.1, error: 0.05, look: 4 };
    const rec = (outputTokens: number, window: [number, number] | null, bracketed = true) =>
      withWindow({ test, outcome: window ? 'window' : bracketed ? 'undecided' : 'no-bracket', bracket: bracketed ? { from: 0, to: 8 } : null, window: window ? { from: window[0], to: window[1], chars: [0, 0] } : null, prefixes: [], cost: NO_COST }, outputTokens);
    // Base at the middle of a 20-token output; tuned at 15/40 (earlier), 30/40 (later), 10/20 (same).
    const pairs = [
      [rec(20, [9, 11]), rec(40, [14, 16])],
      [rec(20, [9, 11]), rec(40, [29, 31])],
      [rec(20, [9, 11]), rec(20, [9, 11])],
      [rec(20, [9, 11]), rec(20, null)],
      [rec(20, null), rec(20, null, false)],
    ] as const;
    const few = foreclosureMoves(pairs)!;
    assert.deepEqual(few, { bracketed: 4, n: 3, later: 1, earlier: 1, same: 1, onlyBase: 1, onlyTuned: 0, p: null });
    assert.match(foreclosureMovesText(few), /counts only, under 20/);
    const many = foreclosureMoves(Array.from({ length: 20 }, () => pairs[1]))!;
    assert.equal(many.later, 20);
    assert.ok(many.p !== null && many.p < 1e-5);
    assert.match(foreclosureMovesText(many), /the window moved later, exact sign test \(McNemar on later vs earlier\) p = /);
    // Without the window in one of the runs there is nothing to pair.
    assert.equal(foreclosureMoves([[rec(20, [9, 11]), testRecord('q', 1)]]), undefined);
  });

  it('runs in the pipeline on the depth-probed questions only, keyed per question', async () => {
    const dataset = smallDataset(24);
    const settings = settingsFor(8, { depthProbe: { budget: 2 }, foreclosureWindow: { samples: 8, threshold: 0.2, error: 0.05, look: 4 } });
    const run = async (inFlight: number) => {
      const records: QuestionRecord[] = [];
      await auditQuestions(fakeFor(dataset), dataset.questions, settings, { onRecord: (r) => records.push(r) }, { inFlight });
      return records.sort((a, b) => a.id.localeCompare(b.id));
    };
    const records = await run(6);
    assert.ok(records.some((r) => r.depth));
    for (const r of records) {
      assert.equal(r.foreclosure !== undefined, r.depth !== undefined, r.id);
      v.parse(questionRecordSchema, r);
      const f = r.foreclosure;
      if (!f) continue;
      assert.equal(f.cost.generations, f.prefixes.reduce((a, p) => a + p.samples, 0));
      assert.ok(f.prefixes.every((p) => p.samples <= 8));
    }
    assert.ok(records.some((r) => (r.foreclosure?.prefixes.length ?? 0) > 0), 'the fake gives a bracket to narrow');
    assert.deepEqual(await run(1), records, 'the same records whatever ran beside each question');
  });
});
