/** When `compare` audits both models at once, and how it shares the threads. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { heldWeightBytes, planSideBySide, type SideBySideInput } from '../../../src/cli/sideBySide';
import { loadedWeightBytes, modelFloatBytes, readModelConfig } from '../../../src/engine/index';

const GB = 1024 ** 3;
const given: SideBySideInput = { oneAtATime: false, remote: false, cores: 2, freeMemoryBytes: 20 * GB, modelBytes: [2 * GB, 2 * GB] };

test('two cores and room for both models: one thread each; more threads are split, the base taking the odd one', () => {
  assert.deepEqual(planSideBySide(given), { sideBySide: true, threads: [1, 1] });
  assert.deepEqual(planSideBySide({ ...given, cores: 16 }), { sideBySide: true, threads: [8, 8] });
  assert.deepEqual(planSideBySide({ ...given, cores: 16, threads: 5 }), { sideBySide: true, threads: [3, 2] });
});

test('one after the other when asked, on servers, with one thread, or when both models do not fit (said why)', () => {
  assert.deepEqual(planSideBySide({ ...given, oneAtATime: true }), { sideBySide: false });
  assert.deepEqual(planSideBySide({ ...given, remote: true }), { sideBySide: false });
  assert.deepEqual(planSideBySide({ ...given, cores: 1 }), { sideBySide: false });
  assert.deepEqual(planSideBySide({ ...given, cores: 8, threads: 1 }), { sideBySide: false });
  // 2 × (1.3 × 6 GB + 0.4 GB) = 16.4 GB > 0.7 × 20 GB.
  const big = planSideBySide({ ...given, modelBytes: [6 * GB, 6 * GB] });
  assert.equal(big.sideBySide, false);
  assert.match((big as { why: string }).why, /^both models at once need about 16\.4 GB \(weights as loaded: base 6\.0 GB, tuned 6\.0 GB\) and 20\.0 GB is free$/);
  // 2 × (1.3 × 5 GB + 0.4 GB) = 13.8 GB ≤ 14 GB.
  assert.equal(planSideBySide({ ...given, modelBytes: [5 * GB, 5 * GB] }).sideBySide, true);
});

test('each model counts the weights its engine holds under --weights (the estimate\'s figure), not every parameter in float32', () => {
  const demo = path.resolve(__dirname, '../../../../media/demo/tuned');
  const config = readModelConfig(demo);
  const f32 = heldWeightBytes(demo, undefined);
  const int8 = heldWeightBytes(demo, 'int8');
  assert.equal(f32, loadedWeightBytes(config, 'f32'));
  assert.equal(heldWeightBytes(demo, 'f32'), f32);
  assert.equal(int8, loadedWeightBytes(config, 'int8'));
  // The old figure counted the embedding table (read from disk, never held) and ignored int8.
  const everyParameterF32 = modelFloatBytes(demo);
  assert.equal(everyParameterF32 - f32, 4 * config.vocabSize * config.hiddenSize);
  assert.ok(int8 < 0.35 * f32, `int8 ${int8} vs f32 ${f32}`);
  assert.throws(() => heldWeightBytes(demo, 'int4'), /--weights: expected one of/);
});
