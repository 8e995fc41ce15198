/** The panel's Δpass@k cells: a Δ that rounds to 0 has no sign from rounding (never "−0.0"). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deltaAtKCell } from '../../../webview/src/comparison/passAtKDeltaText';

test('a Δ of −1e-16 reads +0.0, a Δ of −0.004 points too; −0.06 points reads −0.1', () => {
  assert.equal(deltaAtKCell({ k: 2, base: 0.5, tuned: 0.5, delta: -1.1e-16, lo: -0.1, hi: 0.1, method: 'bootstrap' }), '+0.0 [−10.0, +10.0]');
  assert.equal(deltaAtKCell({ k: 2, base: 0.5, tuned: 0.5, delta: -0.00004, lo: null, hi: null, method: 'none' }), '+0.0 (no interval)');
  assert.equal(deltaAtKCell({ k: 2, base: 0.5, tuned: 0.5, delta: -0.0006, lo: null, hi: null, method: 'none' }), '−0.1 (no interval)');
});
