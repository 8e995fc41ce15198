/**
 * --until-reached (untilFirstCorrect.ts and the pipeline around it): each probe keeps attempts
 * 0..first correct, so reachability is the full audit's by construction; the record does not
 * depend on timing or on what else is in flight; pass@k and blind picks are not computed from the
 * partial pools; the manifest records the mode and resume/compare refuse a mismatch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { untilFirstCorrect } from '../../../src/audit/runner/untilFirstCorrect';
import { summarize } from '../../../src/audit/results/summary';
import { formatSummary } from '../../../src/audit/report/summaryText';
import { manifestMismatches, comparisonMismatches } from '../../../src/audit/store/manifest';
import { checkRecordSet } from '../../../src/audit/store/recordSetCheck';
import type { Attempt, QuestionRecord, RunManifest, RunSettings } from '../../../src/contract';
import type { Generation, GenerationRequest, GenerateOptions } from '../../../src/engine/types';
import { FakeGenerator } from './fakeGenerator';
import { fakeFor, manifestFor, settingsFor, smallDataset } from './fixtures';

async function audit(overrides: Partial<RunSettings>, inFlight = 6, model?: FakeGenerator) {
  const dataset = smallDataset();
  const m = model ?? fakeFor(dataset);
  const records: QuestionRecord[] = [];
  await auditQuestions(m, dataset.questions, settingsFor(8, overrides), { onRecord: (r) => records.push(r) }, { inFlight });
  records.sort((a, b) => a.line - b.line);
  return { records, model: m };
}

test('--until-reached keeps each probe attempts 0..first correct of the full audit, and the same reachable sets', async () => {
  const full = await audit({});
  const cut = await audit({ untilReached: true });
  assert.equal(cut.records.length, full.records.length);
  let hits = 0;
  for (const [i, f] of full.records.entries()) {
    const c = cut.records[i];
    assert.deepEqual(c.reachable, f.reachable, f.id);
    assert.deepEqual(c.realized, f.realized, f.id);
    for (const p of Object.keys(f.probes)) {
      const first = f.probes[p].correct.indexOf(true);
      const kept = first < 0 ? f.probes[p].attempts.length : first + 1;
      if (first >= 0) hits++;
      // The full run's attempts are what the cut run would make one at a time (the search included: its walk is the same up to the hit).
      assert.deepEqual(c.probes[p].attempts, f.probes[p].attempts.slice(0, kept), `${f.id} ${p}`);
      assert.equal(c.probes[p].untilReached, true);
      assert.equal(c.probes[p].budget, f.probes[p].budget);
    }
    // No blind picks from a partial pool; the global-route pool is not a probe and runs whole.
    assert.deepEqual(c.blind, {});
    assert.deepEqual(c.globalRoutes, f.globalRoutes);
    assert.deepEqual(c.repair, f.repair, `${f.id}: the failure set and the scan follow reachability, which is unchanged`);
  }
  assert.ok(hits > 20, `the fixture reaches often enough to test the cut (${hits})`);
  const generated = (rs: QuestionRecord[]) => rs.reduce((s, r) => s + Object.values(r.probes).reduce((t, p) => t + p.cost.generations, 0), 0);
  assert.ok(generated(cut.records) < generated(full.records));
});

test('--until-reached records do not depend on the questions in flight or on timing', async () => {
  const a = await audit({ untilReached: true }, 1);
  const b = await audit({ untilReached: true }, 24);
  const dataset = smallDataset();
  const slow = new JitteryFake(fakeFor(dataset));
  const c = await audit({ untilReached: true }, 5, slow);
  assert.equal(JSON.stringify(b.records), JSON.stringify(a.records));
  assert.equal(JSON.stringify(c.records), JSON.stringify(a.records));
  assert.ok(slow.cancelled > 0, 'some attempts after a hit were cancelled while running');
});

/** Answers each call after a pseudo-random delay, so attempts finish out of order; counts cancelled calls. */
class JitteryFake extends FakeGenerator {
  cancelled = 0;
  private n = 0;
  constructor(inner: FakeGenerator) {
    super(inner.numBlocks, (inner as unknown as { golds: Map<string, string> }).golds);
  }
  override async generate(requests: readonly GenerationRequest[], signal?: AbortSignal, options?: GenerateOptions): Promise<Generation[]> {
    const delay = (this.n++ * 7919) % 5;
    await new Promise((r) => setTimeout(r, delay));
    if (signal?.aborted) {
      this.cancelled++;
      throw Object.assign(new Error('generation cancelled'), { name: 'AbortError' });
    }
    return super.generate(requests, signal, options);
  }
}

test('untilFirstCorrect: a later attempt that hits first does not end the attempts before it', async () => {
  // Attempt 3 answers at once and is correct; attempt 1 is slow and also correct: 1 is the first hit.
  const correct = new Set([1, 3]);
  const delays = [5, 20, 1, 0, 1, 1];
  const started: number[] = [];
  const gen = (a: number): Generation => ({ tokens: [a], text: String(a), logprobs: [0], finishReason: 'stop', cost: { generatedTokens: 1, blockApplications: 1 } });
  const out = await untilFirstCorrect(
    6,
    (a) => ({ promptIds: [a], maxNewTokens: 1, decoding: { temperature: 0, topP: 1, seed: 0 } }),
    async ([r], signal) => {
      const a = r.promptIds[0];
      started.push(a);
      await new Promise((res) => setTimeout(res, delays[a]));
      if (signal.aborted) throw new Error('cancelled');
      return [gen(a)];
    },
    (g, a) => ({ output: g.text, answer: g.text, correct: correct.has(a), truncated: false, rule: 'x', logprob: 0, tokens: 1 }) as Attempt,
    4,
  );
  assert.deepEqual(out.attempts.map((a) => a.correct), [false, true]);
  assert.ok(!started.includes(5) || started.indexOf(5) > 0);
});

test('untilFirstCorrect: no hit spends the whole budget; a real failure is not taken for a cancellation', async () => {
  const req = (a: number): GenerationRequest => ({ promptIds: [a], maxNewTokens: 1, decoding: { temperature: 0, topP: 1, seed: 0 } });
  const one = (a: number): Generation => ({ tokens: [a], text: '', logprobs: [], finishReason: 'stop', cost: { generatedTokens: 1, blockApplications: 1 } });
  const wrong = (_g: Generation): Attempt => ({ output: '', answer: null, correct: false, truncated: false, rule: 'none', logprob: null, tokens: 1 });
  const all = await untilFirstCorrect(5, req, async ([r]) => [one(r.promptIds[0])], wrong);
  assert.equal(all.attempts.length, 5);
  await assert.rejects(
    untilFirstCorrect(5, req, async () => {
      throw new Error('engine broke');
    }, wrong),
    /engine broke/,
  );
});

test('a ceiling-only summary has exact reachable rates and no pass@k or blind numbers; the text says why', async () => {
  const full = summarize((await audit({})).records);
  const cut = summarize((await audit({ untilReached: true })).records);
  assert.deepEqual(cut.reachable, full.reachable);
  assert.deepEqual(cut.reachableAny, full.reachableAny);
  assert.deepEqual(cut.untilReached, ['sample', 'routes', 'search']);
  assert.equal(full.untilReached, undefined);
  for (const p of ['sample', 'routes', 'search']) assert.deepEqual(cut.passAtK[p], {});
  assert.equal(cut.blind.sample, undefined);
  assert.deepEqual(Object.keys(cut.blind.routes ?? {}), ['global-route'], 'the shared pool is not a probe: its held-out accuracy stays');
  assert.deepEqual(cut.readings?.strict.reachable ?? {}, {});
  for (const p of ['routes', 'search']) assert.equal(cut.exhausted[p].questions, full.exhausted[p].questions, `${p}: a stop at a hit is not running out of routes`);
  const text = formatSummary(cut);
  assert.match(text, /pass@k and answer-blind picks of sample, routes, search: not computed — --until-reached/);
  assert.doesNotMatch(text, /pass@k sample/);
});

const manifestOf = (settings: RunSettings): RunManifest => manifestFor(settings);

test('resume, compare and merge refuse a ceiling-only run against a full one, naming the flag', () => {
  const full = manifestOf(settingsFor());
  const cut = manifestOf(settingsFor(8, { untilReached: true }));
  assert.deepEqual(manifestMismatches(cut, cut), []);
  const problems = manifestMismatches(full, cut);
  assert.equal(problems.length, 1);
  assert.match(problems[0], /--until-reached/);
  assert.match(comparisonMismatches(cut, full).join('\n'), /--until-reached.*the base run has true, the tuned run has false/);
});

test('the record set check reads a ceiling-only run and refuses records that do not match its manifest', async () => {
  const { records } = await audit({ untilReached: true });
  const cut = manifestOf(settingsFor(8, { untilReached: true }));
  const full = manifestOf(settingsFor());
  checkRecordSet('/run', cut, records, true);
  assert.throws(() => checkRecordSet('/run', full, records, true), /stopped at its first correct attempt, but the run was not made with --until-reached/);
  const padded = structuredClone(records);
  const hit = padded.find((r) => r.probes.sample.correct.at(-1) === true && r.probes.sample.attempts.length < 6)!;
  hit.probes.sample.attempts.push({ ...hit.probes.sample.attempts[0] });
  hit.probes.sample.correct.push(hit.probes.sample.correct[0]);
  assert.throws(() => checkRecordSet('/run', cut, padded, true), /attempts go on after a correct one/);
});
