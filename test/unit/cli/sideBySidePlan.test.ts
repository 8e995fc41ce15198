/** When `compare` audits both models at once, and how it shares the threads. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planSideBySide, type SideBySideInput } from '../../../src/cli/sideBySide';

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
  assert.match((big as { why: string }).why, /^both models at once need about 16\.4 GB and 20\.0 GB is free$/);
  // 2 × (1.3 × 5 GB + 0.4 GB) = 13.8 GB ≤ 14 GB.
  assert.equal(planSideBySide({ ...given, modelBytes: [5 * GB, 5 * GB] }).sideBySide, true);
});
