import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crossFit, DEFAULT_ROUTER_MODEL, fitRouter, foldOf, KNN_ROUTER_MODEL, promptFeatures, type RouterRow } from '../../../src/audit/router';
import { pairedDelta } from '../../../src/audit/stats/pairedDelta';
import { landscape, type LandscapeRow } from './routerLandscape';

const base = { n: 150, folds: 5, poolSize: 8, types: 4, dims: 16 };

/** learned − cross-fitted global route on the gain set, paired (exact McNemar, Newcombe interval). */
function onGainSet(rows: readonly LandscapeRow[], choices: number[], against: number[]) {
  const gain = rows.map((r, i) => ({ r, i })).filter(({ r }) => !r.realized);
  return pairedDelta(
    gain.map(({ r, i }) => r.correct[against[i]]),
    gain.map(({ r, i }) => r.correct[choices[i]]),
    0.05,
  );
}

test('where a question\'s type decides its saving route, the learned router recovers clearly more of the gain set than the global route', () => {
  for (const model of [DEFAULT_ROUTER_MODEL, KNN_ROUTER_MODEL]) {
    const rows = landscape({ ...base, predictive: true, seed: 1 });
    const c = crossFit(rows, base.folds, base.poolSize, model, ['t']);
    const d = onGainSet(rows, c.learned, c.global);
    assert.ok(d.mcnemarP < 0.01, `${model.kind}: p ${d.mcnemarP}`);
    assert.ok(d.delta > 0.3, `${model.kind}: learned − global ${d.delta}`);
    assert.equal(d.decision?.verdict, 'better');
  }
});

test('where nothing about a question predicts its saving route, the learned router does not beat the global route beyond chance', () => {
  let better = 0;
  const runs = 30;
  for (let s = 0; s < runs; s++) {
    const rows = landscape({ ...base, predictive: false, seed: 100 + s });
    const c = crossFit(rows, base.folds, base.poolSize, DEFAULT_ROUTER_MODEL, ['t', s]);
    const d = onGainSet(rows, c.learned, c.global);
    if (d.decision?.verdict === 'better') better++;
  }
  // At most the test's 5% size plus Monte Carlo slack (binomial 30 × 0.05: P(≥ 5) ≈ 2%).
  assert.ok(better <= 4, `learned 'better' in ${better} of ${runs} null landscapes`);
});

test('the shuffled-label control keeps its size: fit on shuffled outcomes, it beats the global route in about 5% of landscapes at most', () => {
  let better = 0;
  const runs = 40;
  for (let s = 0; s < runs; s++) {
    // Even where the real labels are predictive: shuffling must destroy what the router could learn.
    const rows = landscape({ ...base, predictive: s % 2 === 0, seed: 500 + s });
    const c = crossFit(rows, base.folds, base.poolSize, DEFAULT_ROUTER_MODEL, ['t', s]);
    const d = onGainSet(rows, c.shuffled, c.global);
    if (d.mcnemarP < 0.05 && d.delta > 0) better++;
  }
  // Binomial(40, 0.05): P(≥ 6) ≈ 1.4%.
  assert.ok(better <= 5, `shuffled control 'better' in ${better} of ${runs}`);
});

test('a fold never sees its own questions: each fit gets exactly the other folds\' rows', () => {
  const rows = landscape({ ...base, n: 60, predictive: true, seed: 7 }).map((r, i) => ({ ...r, features: [i, ...r.features] }));
  const seen = new Map<number, number[][]>();
  crossFit(rows, base.folds, base.poolSize, DEFAULT_ROUTER_MODEL, [], (train: readonly RouterRow[], size: number, fold: number) => {
    (seen.get(fold) ?? seen.set(fold, []).get(fold)!).push(train.map((t) => t.features[0]));
    return fitRouter(DEFAULT_ROUTER_MODEL, train, size);
  });
  for (let f = 0; f < base.folds; f++) {
    const own = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.fold === f).map(({ i }) => i);
    const others = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.fold !== f).map(({ i }) => i);
    const fits = seen.get(f) ?? [];
    if (own.length === 0) continue;
    // The router and the shuffled control: two fits, both on the other folds only.
    assert.equal(fits.length, 2);
    for (const ids of fits) {
      assert.deepEqual([...ids].sort((a, b) => a - b), others);
      for (const i of own) assert.ok(!ids.includes(i), `fold ${f} saw its own question ${i}`);
    }
  }
});

test('a question\'s own outcomes never change the route chosen for it', () => {
  const rows = landscape({ ...base, n: 80, predictive: true, seed: 9 });
  const before = crossFit(rows, base.folds, base.poolSize, DEFAULT_ROUTER_MODEL, ['t']);
  for (const q of [0, 17, 42]) {
    const flipped = rows.map((r, i) => (i === q ? { ...r, correct: r.correct.map((c) => !c) } : r));
    const after = crossFit(flipped, base.folds, base.poolSize, DEFAULT_ROUTER_MODEL, ['t']);
    assert.equal(after.learned[q], before.learned[q]);
    assert.equal(after.global[q], before.global[q]);
    assert.equal(after.shuffled[q], before.shuffled[q]);
  }
});

test('folds come from the seeded question id alone; prompt features are whole token counts', () => {
  assert.equal(foldOf(3, 'q1', 5), foldOf(3, 'q1', 5));
  const folds = Array.from({ length: 500 }, (_, i) => foldOf(3, `q${i}`, 5));
  for (let f = 0; f < 5; f++) assert.ok(folds.filter((x) => x === f).length > 70);
  const x = promptFeatures([1, 2, 2, 300], 8);
  assert.equal(x.length, 8);
  assert.equal(x.reduce((a, b) => a + b, 0), 4);
  assert.ok(x.every(Number.isInteger));
});
