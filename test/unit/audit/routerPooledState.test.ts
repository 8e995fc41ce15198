/**
 * learned-route's pooled-state features: the seeded projection (deterministic, five significant
 * digits, distances kept on average), what a record says the router reads, the fit on the state
 * where only the state shows a question's type, the features taken from the deployment's own
 * generation (refused, naming the question, when it came back without its state), and the flags.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crossFit, DEFAULT_ROUTER_MODEL, projectPooledState, ROUTER_STATE_DIMS, type FoldRow } from '../../../src/audit/router';
import { routerInput } from '../../../src/audit/results';
import { learnedRouteEstimateText, routerFeaturesOf } from '../../../src/audit/runner';
import { seededRandom } from '../../../src/audit/stats';
import { pairedDelta } from '../../../src/audit/stats/pairedDelta';
import type { Generation } from '../../../src/engine';
import type { RouterFeatures, RunSettings } from '../../../src/contract';
import { readPreSettings, runSettings } from '../../../src/service/auditInputs';
import { routerReadsText } from '../../../src/contract/learnedRouteText';
import { landscape } from './routerLandscape';

function gaussian(rand: () => number, n: number): number[] {
  return Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
}

test('the projection is seeded, has 16 numbers of five significant digits, and keeps squared distances on average', () => {
  const rand = seededRandom('projection-test', 1);
  const x = gaussian(rand, 96);
  const p = projectPooledState(x);
  assert.equal(p.length, ROUTER_STATE_DIMS);
  assert.deepEqual(projectPooledState(x), p);
  assert.notDeepEqual(projectPooledState(x, ROUTER_STATE_DIMS, 7), p);
  for (const v of p) assert.equal(v, Number(v.toPrecision(5)));
  // E‖Px‖² = ‖x‖² for a Gaussian matrix scaled by 1/√d: the mean ratio over 300 pairs is near 1.
  let sum = 0;
  const pairs = 300;
  for (let i = 0; i < pairs; i++) {
    const a = gaussian(rand, 96);
    const b = gaussian(rand, 96);
    const pa = projectPooledState(a);
    const pb = projectPooledState(b);
    const d2 = a.reduce((s, v, j) => s + (v - b[j]) ** 2, 0);
    const p2 = pa.reduce((s, v, j) => s + (v - pb[j]) ** 2, 0);
    sum += p2 / d2;
  }
  assert.ok(Math.abs(sum / pairs - 1) < 0.1, `mean ratio ${sum / pairs}`);
});

test('the router fits on what the record says it reads', () => {
  const f: RouterFeatures = { folds: 5, fold: 0, features: [1, 2], state: [0.5, -0.25] };
  assert.deepEqual(routerInput(f), [1, 2]);
  assert.deepEqual(routerInput({ ...f, reads: 'pooled-state' }), [0.5, -0.25]);
  assert.deepEqual(routerInput({ ...f, reads: 'both' }), [1, 2, 0.5, -0.25]);
});

test('where only the pooled state shows the type, the router on the state beats the global route and the one on the hash does not', () => {
  const o = { n: 150, folds: 5, poolSize: 8, types: 4, dims: 16, predictive: true, seed: 3 };
  const typed = landscape(o);
  const noise = seededRandom('hash-noise', 3);
  const records = typed.map((r) => ({ r, f: { folds: 5, fold: r.fold, features: Array.from({ length: 16 }, () => Math.floor(noise() * 4)), state: [...r.features], reads: 'pooled-state' as const } }));
  const gain = typed.map((r, i) => ({ r, i })).filter(({ r }) => !r.realized);
  const fitOn = (input: (f: RouterFeatures) => number[]) => {
    const rows: FoldRow[] = records.map(({ r, f }) => ({ id: r.id, fold: r.fold, features: input(f), correct: r.correct }));
    const c = crossFit(rows, 5, 8, DEFAULT_ROUTER_MODEL, ['t']);
    return pairedDelta(gain.map(({ r, i }) => r.correct[c.global[i]]), gain.map(({ r, i }) => r.correct[c.learned[i]]), 0.05);
  };
  const state = fitOn(routerInput);
  assert.ok(state.mcnemarP < 0.01 && state.decision?.verdict === 'better', `state: ${state.delta} p ${state.mcnemarP}`);
  const hash = fitOn((f) => f.features);
  assert.notEqual(hash.decision?.verdict, 'better');
});

test('the features come from the deployment generation\'s pooled state; without it the question is named', () => {
  const pre = readPreSettings({ probes: ['routes:4'], select: ['majority', 'global-route', 'learned-route'], routerFeatures: 'both' });
  const settings: RunSettings = runSettings(pre, 8, { limit: null, ids: null }, 40);
  assert.deepEqual(settings.learnedRoute?.features.state, { block: 4, dims: 16, projectionSeed: 53 });
  assert.equal(settings.learnedRoute?.features.kind, 'both');
  const pooled = Array.from({ length: 96 }, (_, i) => Math.sin(i));
  const deployed: Generation = { tokens: [1], text: 'x', logprobs: [0], finishReason: 'stop', cost: { generatedTokens: 1, blockApplications: 8 }, pooledState: pooled };
  const f = routerFeaturesOf(settings, 'q1', [5, 6, 7], deployed);
  assert.deepEqual(f?.state, projectPooledState(pooled));
  assert.equal(f?.reads, 'both');
  assert.equal(f?.features.length, 64);
  assert.throws(() => routerFeaturesOf(settings, 'q1', [5, 6, 7], { ...deployed, pooledState: undefined }), /question q1: .*pooled state after block 4/);
  // Hash features (the default) need no state, and record none.
  const plain = runSettings(readPreSettings({ probes: ['routes:4'], select: ['learned-route'] }), 8, { limit: null, ids: null }, 40);
  const h = routerFeaturesOf(plain, 'q1', [5, 6, 7]);
  assert.equal(h?.state, undefined);
  assert.equal(h?.reads, undefined);
});

test('the flags are refused with what to change', () => {
  assert.throws(() => readPreSettings({ probes: ['routes:4'], select: ['learned-route'], routerFeatures: 'states' }), /--router-features states: expected hash, state or both/);
  assert.throws(() => readPreSettings({ probes: ['routes:4'], select: ['majority'], routerFeatures: 'state' }), /--router-features: only learned-route reads features/);
  assert.throws(() => readPreSettings({ probes: ['routes:4'], select: ['learned-route'], routerBlock: 2 }), /--router-block: only the pooled state is read at a block/);
  const pre = readPreSettings({ probes: ['routes:4'], select: ['learned-route'], routerFeatures: 'state', routerBlock: 9 });
  assert.throws(() => runSettings(pre, 8, { limit: null, ids: null }, 40), /--router-block: expected a block from 0 to 7/);
});

test('the plan says what learned-route reads and that it adds no generation', () => {
  const hash = learnedRouteEstimateText({ folds: 5, poolSize: 8, features: { kind: 'prompt-token-hash', dims: 64 } });
  assert.match(hash, /no generations of its own: each question takes one of the 8 pool routes/);
  assert.match(hash, /other 4 of 5 folds; it reads the prompt's token ids in 64 hash buckets;/);
  const both = learnedRouteEstimateText({ folds: 5, poolSize: 8, features: { kind: 'both', dims: 64, state: { block: 4, dims: 16, projectionSeed: 53 } } });
  assert.match(both, /64 hash buckets and the prompt's mean residual after block 4, read during the deployment's own prefill \(no extra pass\) and recorded as 16 numbers per question/);
});

test('the summary and its text say what the router read: the hash buckets (as before, no field), or the pooled state beside them', () => {
  assert.equal(routerReadsText(undefined), "the prompt's token ids (hashed)");
  assert.equal(routerReadsText('both'), "the prompt's token ids (hashed) and the deployment prefill's pooled state (projected to a few numbers)");
  assert.equal(routerReadsText('pooled-state'), "the deployment prefill's pooled state (projected to a few numbers)");
});
