/**
 * Ceilings along k: base → tuned Δpass@k for every k ≤ B. Constructed so that tuning raises pass@1
 * and lowers the ceiling at B (sharpening: right answers concentrated on fewer questions): the
 * curves cross, and the crossing is stated; intervals are Newcombe where values are 0/1 (k = B)
 * and a seeded bootstrap elsewhere, none below 20 questions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRecords } from '../../../src/audit/results/compare';
import { passAtKDeltas } from '../../../src/audit/results/passAtKDelta';
import * as path from 'node:path';
import { deltaAtKText, passAtKDeltaLines } from '../../../src/audit/report/passAtKDeltaText';
import { comparisonReportHtml } from '../../../src/audit/report/htmlReport';
import { compareRuns } from '../../../src/audit/store/comparisonStore';
import { tableSet } from '../../../src/audit/report/tableSet';
import type { ProbeResult, QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

// out/test/unit/audit → test/fixtures/runs: folders written by `reach-audit audit` (tools/makeFixtureRuns.ts).
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/runs');
const BASE = path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base');
const TUNED = path.join(FIXTURES, '2026-12-01T10-15-00Z-demo-tuned');

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

test('the training tables carry a Δpass@k view per comparison: a row per k, every curve, and where the curves cross', () => {
  const { base, tuned } = pair(40);
  const run = (model: string, records: QuestionRecord[]) => ({ folder: `/runs/${model}`, model, dataset: 'arith', seed: 1, records, finished: true });
  const set = tableSet([], [{ folder: '/runs/cmp', dataset: 'arith', base: run('base', base), tuned: run('tuned <b>', tuned) }], { kinds: ['training'] });
  const view = set.views.find((v) => v.id === 'pass-at-k-delta');
  assert.ok(view, 'a Δpass@k view beside the training table');
  assert.deepEqual(view.headers, ['base → tuned', 'dataset', 'n', 'k', 'Δ realized (pts) [95% CI]', 'Δ sample (pts) [95% CI]', 'Δ ceiling (pts) [95% CI]']);
  assert.equal(view.rows.length, 4);
  const curves = passAtKDeltas(base, tuned);
  // k = 4: sample 0.8 → 0.4, Newcombe's interval, the same numbers as compare's.
  const k4 = curves[1].points[3];
  assert.deepEqual(view.rows[3].slice(0, 4), ['base → tuned <b>', 'arith', '40', '4']);
  assert.equal(view.rows[3][5], `-40.0 [${(100 * k4.lo!).toFixed(1)}, ${(100 * k4.hi!).toFixed(1)}]`);
  assert.ok(view.notes.some((n) => n === 'base → tuned <b>, sample: the curves cross between k = 2 and 3 (intervals on both sides of 0)'));
  // CSV: one row per (curve, k), every bound in its own column.
  assert.equal(view.csvRows.length, 3 * 4);
  const csvK4 = view.csvRows.find((r) => r[5] === 'sample' && r[7] === 4)!;
  assert.deepEqual(csvK4.slice(8), [0.8, 0.4, k4.delta, k4.lo, k4.hi, 'newcombe', false]);
  assert.equal(view.csvRows.find((r) => r[5] === 'sample' && r[7] === 3)![14], true);
  assert.deepEqual(set.tables.passAtKDeltas?.[0].curves, curves);
});

test('without a comparison there is no Δpass@k view', () => {
  assert.equal(tableSet([], [], { kinds: ['training'] }).views.length, 0);
});

test('the HTML comparison report shows the stored Δpass@k per k with its interval, the crossings, and escapes a probe name', () => {
  const stored = compareRuns(BASE, TUNED, () => undefined);
  const curves = stored.comparison.passAtKDeltas!;
  curves[1] = { ...curves[1], what: '<img src=x onerror=alert(1)>' };
  const page = comparisonReportHtml(stored, [], []);
  assert.match(page, new RegExp(`Ceilings along k: tuned − base pass@k \\(pts\\) \\[95% CI\\], n = ${curves[0].n}`));
  assert.ok(page.includes(`<td>${deltaAtKText(curves[0].points[0])}</td>`));
  assert.ok(page.includes('Δ &lt;img src=x onerror=alert(1)&gt;') && !page.includes('<img src=x'));
  // A comparison.json from before Δpass@k was stored: no section, nothing else missing.
  const older = { ...stored, comparison: { ...stored.comparison, passAtKDeltas: undefined } };
  assert.doesNotMatch(comparisonReportHtml(older, [], []), /Ceilings along k/);
});

test('curves equal at every k up to rounding (Δ = ∓1e-16) do not cross, and no Δ reads −0.0', () => {
  // The same 23 pools of 8 samples, shuffled across questions: pass@k is the same at every k, but
  // the sums run in a different order and differ by ∓1.1e-16 at some k.
  const pools = ['01000110', '10001000', '00011010', '01000010', '00110000', '00010000', '00010001', '11001000', '00000110', '11110100', '11000100', '00100000', '10010100', '01100100', '01001100', '10010111', '01100000', '00100100', '00000000', '00000010', '01000000', '00001000', '10000100'];
  const shuffled = ['00000010', '01000000', '00011010', '01100000', '01001100', '00010000', '11001000', '01100100', '11000100', '00010001', '01000010', '00100000', '00000110', '10001000', '00000000', '00100100', '10000100', '00001000', '10010100', '11110100', '01000110', '00110000', '10010111'];
  const records = (xs: string[]) => xs.map((p, i) => withSample(`q${i}`, [...p].map((c) => c === '1'), false));
  const curves = passAtKDeltas(records(pools), records(shuffled));
  const sample = curves.find((c) => c.what === 'sample')!;
  assert.ok(sample.points.some((p) => p.delta !== 0), 'the constructed case carries rounding noise');
  assert.deepEqual(sample.signChanges, []);
  const text = passAtKDeltaLines(curves).join('\n');
  assert.doesNotMatch(text, /[−-]0\.0\b/);
  assert.doesNotMatch(text, /cross/);
});

test('one ceiling: the ceiling along k counts realized answers, so at k = B it is the comparison\'s reachable ceiling', () => {
  // 40 questions. Base: 10 realized that no sample reaches, 10 reached by sampling only. Tuned: the 10 realized no longer, the 10 reached stay.
  const base = Array.from({ length: 40 }, (_, i) => withSample(`q${i}`, [i >= 10 && i < 20, false], i < 10));
  const tuned = Array.from({ length: 40 }, (_, i) => withSample(`q${i}`, [i >= 10 && i < 20, false], false));
  const ceiling = passAtKDeltas(base, tuned).find((c) => c.what === 'ceiling')!;
  const atB = ceiling.points[ceiling.points.length - 1];
  const compared = compareRecords(base, tuned).reachableCeiling;
  assert.ok(Math.abs(compared.delta - -0.25) < 1e-12, 'the comparison: 20 → 10 of 40');
  assert.ok(Math.abs(atB.delta - compared.delta) < 1e-12, `along k at B: ${atB.delta}, the comparison: ${compared.delta}`);
  assert.ok(Math.abs(atB.base - 0.5) < 1e-12 && Math.abs(atB.tuned - 0.25) < 1e-12);
});
