/**
 * Walkthrough defect 9 (one of its layout items): the same probe in two colours in neighbouring
 * charts. A probe's colour comes from its name alone, whatever else a chart draws.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { probeColor, probeColorIndex } from '../../../webview/src/charts/probeColors';

const SERIES = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];

test('the known probes have fixed, different colours', () => {
  assert.deepEqual(['sample', 'routes', 'search', 'perturb'].map((p) => probeColor(p, SERIES)), ['c0', 'c1', 'c2', 'c3']);
});

test('another probe gets the same colour every time, after the known ones', () => {
  const index = probeColorIndex('zeta');
  assert.ok(index >= 4 && index < 6, String(index));
  assert.equal(probeColor('zeta', SERIES), probeColor('zeta', [...SERIES]));
});
