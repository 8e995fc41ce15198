/**
 * The perturbation probe's draws and its table: the draw follows the stated distribution and is
 * keyed per attempt; reach is counted on the gain set within the first k attempts; the Jaccard
 * overlap is |A ∩ B| / |A ∪ B| with a percentile bootstrap over questions from 20 questions on.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { PERTURBATION_SCALE, drawPerturbation } from '../../../src/audit/probes';
import { questionPerturbation } from '../../../src/audit/runner';
import { jaccardInterval, overlapOf, perturbationTable } from '../../../src/audit/results/perturbationTable';
import { perturbationView } from '../../../src/audit/report/perturbationView';
import type { RunForTables } from '../../../src/audit/results';
import type { Attempt, ProbeResult, QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';
import { seededRandom } from '../../../src/audit/stats';

function probe(correct: boolean[], tokens = 10, perGenerationBlocks = 80): ProbeResult {
  const attempts: Attempt[] = correct.map((c) => ({ output: c ? '4' : '3', answer: c ? '4' : '3', correct: c, truncated: false, rule: 'strict', logprob: -1, tokens }));
  return { budget: correct.length, attempts, correct, cost: { generations: correct.length, tokens: tokens * correct.length, blockApplications: perGenerationBlocks * correct.length } };
}

function record(id: number, realized: boolean, probes: Record<string, boolean[]>): QuestionRecord {
  const p = Object.fromEntries(Object.entries(probes).map(([name, c]) => [name, probe(c)]));
  return testRecord(String(id), id, { realized: deployed(realized), probes: p, reachable: Object.fromEntries(Object.entries(probes).map(([n, c]) => [n, c.some(Boolean)])) });
}

const runOf = (records: QuestionRecord[]): RunForTables => ({ folder: '/runs/a', model: 'm', dataset: 'd', seed: 1, records, finished: true });

describe('perturbation probe draws', () => {
  it('draws block, position rule and scale from the stated distribution, one stream per attempt', () => {
    const L = 8;
    const draws = Array.from({ length: 3000 }, (_, a) => questionPerturbation(L, 7, 'q1', a));
    const blocks = new Set(draws.map((d) => d.afterBlock));
    assert.deepEqual([...blocks].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7]);
    for (const rule of ['all', 'prompt', 'continuation'] as const) {
      const share = draws.filter((d) => d.positions === rule).length / draws.length;
      assert.ok(Math.abs(share - 1 / 3) < 0.04, `${rule}: ${share}`);
    }
    assert.ok(draws.every((d) => d.scale >= PERTURBATION_SCALE.min && d.scale <= PERTURBATION_SCALE.max));
    // Log-uniform: the geometric middle of the range splits the draws in half.
    const middle = Math.sqrt(PERTURBATION_SCALE.min * PERTURBATION_SCALE.max);
    const below = draws.filter((d) => d.scale < middle).length / draws.length;
    assert.ok(Math.abs(below - 0.5) < 0.04, `below the geometric middle: ${below}`);
    // Keyed per (run seed, question, attempt): the same again, another question differs.
    assert.deepEqual(questionPerturbation(L, 7, 'q1', 5), draws[5]);
    assert.notDeepEqual(questionPerturbation(L, 7, 'q2', 5), draws[5]);
    assert.equal(new Set(draws.map((d) => d.seed)).size, draws.length);
  });

  it('keeps the block in range for a draw at the top of the unit interval', () => {
    const d = drawPerturbation(4, () => 1 - Number.EPSILON, 3);
    assert.equal(d.afterBlock, 3);
    assert.equal(d.positions, 'continuation');
    assert.equal(d.scale, PERTURBATION_SCALE.max);
    assert.equal(drawPerturbation(4, seededRandom(1, 'x'), 9).seed, 9);
  });
});

describe('perturbation table', () => {
  it('counts reach on the gain set within the first k attempts and the overlap of the reached sets', () => {
    const records = [
      record(1, true, { perturb: [true, true], sample: [true, false, false, false] }), // realized: not in the gain set
      record(2, false, { perturb: [true, false], sample: [false, false, false, false] }),
      record(3, false, { perturb: [false, true], sample: [true, false, false, false] }),
      record(4, false, { perturb: [false, false], sample: [false, false, true, false] }), // sample's hit is past k = 2
      record(5, false, { perturb: [false, false], sample: [false, false, false, false] }),
    ];
    const t = perturbationTable([runOf(records)]);
    assert.equal(t.rows.length, 1);
    const row = t.rows[0];
    assert.equal(row.gainSet, 4);
    assert.equal(row.audited, 5);
    assert.equal(row.attempts, 2);
    const perturb = row.probes.find((p) => p.probe === 'perturb')!;
    const sample = row.probes.find((p) => p.probe === 'sample')!;
    assert.equal(perturb.reached.successes, 2);
    assert.equal(sample.reached.successes, 1);
    assert.equal(perturb.reached.n, 4);
    // Blind picks over a pool cut to k were never made: sample's are not shown.
    assert.equal(sample.blind, null);
    assert.deepEqual(perturb.perGeneration, { tokens: 10, blockApplications: 80 });
    const o = row.overlaps[0];
    assert.deepEqual([o.a, o.b, o.both, o.onlyA, o.onlyB], ['perturb', 'sample', 1, 1, 0]);
    assert.equal(o.jaccard, 1 / 2);
    assert.equal(o.interval, null);
    assert.match(o.why ?? '', /too few to say: 2 questions reached by either < 20/);
  });

  it('lists runs without the probe, or without a probe to set it against, apart', () => {
    const t = perturbationTable([runOf([record(1, false, { sample: [true] })]), { ...runOf([record(1, false, { perturb: [true] })]), folder: '/runs/b' }]);
    assert.equal(t.rows.length, 0);
    assert.match(t.missing[0].reason, /did not run the perturbation probe/);
    assert.match(t.missing[1].reason, /without sample or routes/);
  });

  it('gives the Jaccard index a Wilson interval of both / union that covers it', () => {
    // 40 questions: 10 reached by both, 6 by a only, 4 by b only, 20 by neither; J = 10/20.
    const a = Array.from({ length: 40 }, (_, i) => i < 16);
    const b = Array.from({ length: 40 }, (_, i) => i < 10 || (i >= 16 && i < 20));
    const o = overlapOf('a', 'b', a, b);
    assert.equal(o.jaccard, 0.5);
    assert.deepEqual(o.interval, jaccardInterval(10, 20));
    assert.ok(o.interval && o.interval.lo < 0.5 && o.interval.hi > 0.5 && o.interval.lo > 0.2 && o.interval.hi < 0.8, JSON.stringify(o.interval));
    // Identical sets of 16: J = 1, and the interval is not the degenerate [1, 1] a bootstrap gives.
    const same = overlapOf('a', 'b', a, a);
    assert.equal(same.interval, null, 'a union of 16 < 20: too few to say');
    assert.equal(overlapOf('a', 'b', a.map(() => false), a.map(() => false)).jaccard, null);
  });

  it('looks at the union, not the gain set: a union of 1 in a gain set of 300 gives counts, not J 1 [1.00, 1.00]', () => {
    const a = Array.from({ length: 300 }, (_, i) => i === 0);
    const o = overlapOf('perturb', 'sample', a, a);
    assert.equal(o.interval, null);
    assert.match(o.why ?? '', /too few to say: 1 question reached by either/);
    const view = perturbationView({ rule: '', missing: [], rows: [{ folder: 'f', model: 'm', dataset: 'd', finished: true, audited: 300, gainSet: 300, attempts: 4, probes: [], overlaps: [o] }] });
    const cell = view.rows[0][view.headers.indexOf('overlap perturb · sample')];
    assert.doesNotMatch(cell, /\[1\.00, 1\.00\]|J 1/);
    assert.match(cell, /^\(both 1, only perturb 0, only sample 0\); too few to say/);
    // Both 0, only perturb 1, only sample 8: J 0 of a union of 9 is not [0.00, 0.00] either.
    const none = overlapOf('perturb', 'sample', a, Array.from({ length: 300 }, (_, i) => i > 0 && i < 9));
    assert.equal(none.interval, null);
  });
});
