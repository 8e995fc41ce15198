import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapColumnMeans, bootstrapRatio } from '../../../src/audit/stats/bootstrapStatistics';
import { pairedBootstrap } from '../../../src/audit/stats';
import { seededRandom } from '../../../src/audit/stats';

test('column-mean bootstrap: constant columns have a zero-width interval; a 0/1 column agrees with the paired bootstrap', () => {
  const rows = Array.from({ length: 50 }, (_, i) => [0.5, i % 3 === 0 ? 1 : 0]);
  const [flat, binary] = bootstrapColumnMeans(rows, { seed: 7, resamples: 4000 });
  assert.deepEqual(flat, { estimate: 0.5, lo: 0.5, hi: 0.5 });
  // The same index stream: mean(x) via pairedBootstrap(0, x) uses the same resamples.
  const ref = pairedBootstrap(new Array(50).fill(0), rows.map((r) => r[1]), { seed: 7, resamples: 4000 });
  assert.ok(Math.abs(binary.estimate - 17 / 50) < 1e-12);
  assert.ok(Math.abs(binary.lo - ref.lo) < 1e-12 && Math.abs(binary.hi - ref.hi) < 1e-12, `${JSON.stringify(binary)} vs ${JSON.stringify(ref)}`);
});

test('column-mean bootstrap interval is close to the normal-theory interval for a large sample', () => {
  const random = seededRandom(3, 'test');
  const rows = Array.from({ length: 2000 }, () => [random()]);
  const [b] = bootstrapColumnMeans(rows, { seed: 1, resamples: 4000 });
  const mean = rows.reduce((s, r) => s + r[0], 0) / rows.length;
  const sd = Math.sqrt(rows.reduce((s, r) => s + (r[0] - mean) ** 2, 0) / (rows.length - 1));
  const half = (1.959963984540054 * sd) / Math.sqrt(rows.length);
  assert.ok(Math.abs(b.lo - (mean - half)) < 0.15 * half && Math.abs(b.hi - (mean + half)) < 0.15 * half, `${b.lo}..${b.hi} vs ${mean - half}..${mean + half}`);
});

test('ratio bootstrap: exact when every pair has the same ratio; delta-method width for a large sample; undefined without gain', () => {
  const same = bootstrapRatio([1, 2, 3, 0.5], [2, 4, 6, 1], { seed: 1, resamples: 2000 });
  assert.equal(same.estimate, 0.5);
  assert.ok(Math.abs(same.lo! - 0.5) < 1e-12 && Math.abs(same.hi! - 0.5) < 1e-12);

  // Questions with a gain (den 1); the selector keeps it on 30% of them: ratio = binomial proportion.
  const n = 3000;
  const num = Array.from({ length: n }, (_, i) => (i % 10 < 3 ? 1 : 0));
  const den = new Array(n).fill(1);
  const r = bootstrapRatio(num, den, { seed: 2, resamples: 4000 });
  const half = 1.959963984540054 * Math.sqrt((0.3 * 0.7) / n);
  assert.ok(Math.abs(r.estimate! - 0.3) < 1e-12);
  assert.ok(Math.abs(r.lo! - (0.3 - half)) < 0.15 * half && Math.abs(r.hi! - (0.3 + half)) < 0.15 * half, `${r.lo}..${r.hi}`);
  assert.equal(r.undefinedResamples, 0);

  const none = bootstrapRatio([0, 0], [0, 0], { seed: 1, resamples: 10 });
  assert.equal(none.estimate, null);
  assert.equal(none.lo, null);
  assert.throws(() => bootstrapRatio([1], [1, 2], { seed: 1 }), /differ in length/);
  assert.throws(() => bootstrapRatio([Number.NaN], [1], { seed: 1 }), /not a finite number/);
});
