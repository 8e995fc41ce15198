/**
 * Ceilings along k: base → tuned Δpass@k for every k ≤ B. Constructed so that tuning raises pass@1
 * and lowers the ceiling at B (sharpening: right answers concentrated on fewer questions): the
 * curves cross, and the crossing is stated; intervals are Newcombe where values are 0/1 (k = B)
 * and a seeded bootstrap elsewhere, none below 20 questions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passAtKDeltas } from '../../../src/audit/results/passAtKDelta';
import { passAtKDeltaLines } from '../../../src/audit/report/passAtKDeltaText';
import type { ProbeResult, QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

function withSample(id: string, correct: boolean[], realized: boolean): QuestionRecord {
  const probe: ProbeResult = { budget: correct.length, attempts: correct.map((c) => ({ output: '', answer: c ? '4' : '3', correct: c, truncated: false, rule: 'strict', logprob: 0, tokens: 1 })), correct, cost: { generations: correct.length, tokens: correct.length, blockApplications: 0 } } as ProbeResult;
  return testRecord(id, 1, { realized: deployed(realized), probes: { sample: probe }, reachable: { sample: correct.some(Boolean) } });
}

function pair(n: number) {
  // Base: 80% of questions have 1 correct sample of 4. Tuned: 40% have 4 of 4, the rest none.
  const base = Array.from({ length: n }, (_, i) => withSample(`q${i}`, [i % 5 !== 4, false, false, false], i % 5 === 0));
  const tuned = Array.from({ length: n }, (_, i) => withSample(`q${i}`, Array(4).fill(i % 5 < 2), i % 5 < 2));
  return { base, tuned };
}

test('tuning that raises pass@1 and lowers pass@B: the Δpass@k curves cross, and where is stated', () => {
  const { base, tuned } = pair(40);
  const curves = passAtKDeltas(base, tuned);
  assert.deepEqual(curves.map((c) => c.what), ['realized', 'sample', 'ceiling']);
  const sample = curves[1];
  assert.equal(sample.points.length, 4);
  // pass@1: base 0.2, tuned 0.4; pass@4: base 0.8, tuned 0.4.
  assert.ok(Math.abs(sample.points[0].delta - 0.2) < 1e-12 && Math.abs(sample.points[3].delta + 0.4) < 1e-12);
  assert.equal(sample.points[0].method, 'bootstrap');
  assert.equal(sample.points[3].method, 'newcombe');
  assert.ok(sample.points[0].lo! > 0 && sample.points[3].hi! < 0);
  // pass@2 of one correct in 4 is 1/2: base 0.4, tuned 0.4 → Δ 0; pass@3 base 0.6 → the sign changes at k = 3.
  assert.deepEqual(sample.signChanges, [3]);
  assert.equal(sample.crossesBeyondNoise, true);
  // Realized: the same at every k (0.2 → 0.4), interval Newcombe.
  assert.ok(curves[0].points.every((p) => Math.abs(p.delta - 0.2) < 1e-12 && p.method === 'newcombe'));
  const text = passAtKDeltaLines(curves).join('\n');
  assert.match(text, /sample: the curves cross between k = 2 and 3 \(intervals on both sides of 0\)/);
  assert.match(text, /n = 40 questions/);
});

test('below 20 questions a fractional pass@k gets no bootstrap interval, and says so', () => {
  const { base, tuned } = pair(10);
  const sample = passAtKDeltas(base, tuned)[1];
  assert.equal(sample.points[0].method, 'none');
  assert.equal(sample.points[0].lo, null);
  assert.equal(sample.points[3].method, 'newcombe');
  assert.match(passAtKDeltaLines(passAtKDeltas(base, tuned)).join('\n'), /none below 20 questions/);
});
