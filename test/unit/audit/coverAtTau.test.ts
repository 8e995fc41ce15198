/**
 * Cover@τ (arXiv 2510.08325): the share of questions with at least a share τ of their attempts
 * correct, for choice formats only, from whole pools only.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { coverAtTau, coveredAt, guessCoverProbability } from '../../../src/audit/results/coverAtTau';
import { summarize } from '../../../src/audit/results';
import { formatSummary } from '../../../src/audit/report';
import type { ProbeResult, QuestionRecord } from '../../../src/contract';
import { testRecord } from '../../support/questionRecord';

function pool(correct: boolean[], untilReached = false): ProbeResult {
  return {
    budget: correct.length,
    attempts: correct.map((c) => ({ output: c ? 'A' : 'B', answer: c ? 'A' : 'B', correct: c, truncated: false, rule: 'label', logprob: -1, tokens: 1 })),
    correct,
    cost: { generations: correct.length, tokens: correct.length, blockApplications: correct.length },
    ...(untilReached ? { untilReached: true as const } : {}),
  };
}

const choice = (id: number, correct: boolean[], options = 4): QuestionRecord =>
  testRecord(String(id), id, { gold: 'A', options, probes: { sample: pool(correct) }, reachable: { sample: correct.some(Boolean) } });

describe('cover@τ', () => {
  it('covers a question when at least a share τ of its attempts are correct', () => {
    assert.equal(coveredAt([true, false, false, false], 0.25), true);
    assert.equal(coveredAt([true, false, false, false], 0.5), false);
    assert.equal(coveredAt([true, true, true, true], 1), true);
    assert.equal(coveredAt([], 0.25), false);
  });

  it('gives each threshold the share of questions covered, with its interval, on choice formats only', () => {
    const records = [
      choice(1, [true, false, false, false]), // 1/4
      choice(2, [true, true, false, false]), // 2/4
      choice(3, [true, true, true, true]), // 4/4
      choice(4, [false, false, false, false]), // 0
    ];
    const c = coverAtTau(records, ['sample'])!;
    assert.deepEqual(c.sample.map((x) => [x.tau, x.covered.successes, x.covered.n]), [[0.25, 3, 4], [0.5, 2, 4], [0.75, 1, 4], [1, 1, 4]]);
    assert.ok(c.sample[0].covered.ci.lo < 0.75 && c.sample[0].covered.ci.hi > 0.75);
    // Not a choice format: no cover@τ.
    assert.equal(coverAtTau(records.map((r) => ({ ...r, options: undefined })), ['sample']), undefined);
    // A pool cut at its first hit has no share to read.
    const cut = [choice(1, [true]), { ...choice(2, [false, true]), probes: { sample: pool([false, true], true) } }];
    assert.equal(coverAtTau(cut, ['sample'])!.sample[0].covered.n, 1);
  });

  it('is in the summary and its text beside pass@k', () => {
    const s = summarize([choice(1, [true, false, false, false]), choice(2, [true, true, true, true])]);
    assert.equal(s.coverAtTau?.sample[3].covered.successes, 1);
    assert.match(formatSummary(s), /cover@τ sample\s+τ 0\.25 100\.0% .* τ 1 50\.0% .*n = 2/);
  });
});

describe('cover@τ chance reference', () => {
  it('gives a uniform guesser\'s Cover@τ beside each value: 4 options, B = 8, τ 0.25 is P(Bin(8, 1/4) ≥ 2) = 63.3%', () => {
    const records = [choice(1, [true, true, false, false, false, false, false, false]), choice(2, Array(8).fill(false))];
    const cover = coverAtTau(records, ['sample'])!.sample;
    const want = 1 - 0.75 ** 8 - 8 * 0.25 * 0.75 ** 7;
    assert.ok(Math.abs(cover[0].chance! - want) < 1e-12, `${cover[0].chance} vs ${want}`);
    assert.ok(Math.abs(want - 0.6329) < 1e-4);
    // At τB ≤ 1 the reference is reach's chance level 1 − (1 − 1/k)^B.
    assert.ok(Math.abs(guessCoverProbability(4, 4, 0.25) - (1 - 0.75 ** 4)) < 1e-12);
    assert.match(formatSummary(summarize(records)), /τ 0\.25 50\.0% \[[^\]]+\] \(guesser 63\.3%\)/);
  });

  it('is not computed for the adaptive search, whose attempts go on after a hit and are not draws of one rate', () => {
    const r = testRecord('1', 1, { gold: 'A', options: 4, probes: { sample: pool([true, false]), search: pool([true, true]) }, reachable: { sample: true, search: true } });
    const cover = coverAtTau([r], ['sample', 'search'])!;
    assert.ok(cover.sample);
    assert.equal(cover.search, undefined);
  });
});
