/**
 * Walkthrough defect 9 (one of its layout items): the same probe in two colours in neighbouring
 * charts. A probe's colour now comes from its name, whatever else a chart draws.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { probeColor, probeColorIndex } from '../../../webview/src/charts/probeColors';

const SERIES = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];

test('routes has one colour in pass@k (sample, routes, search) and in routes vs search (routes, search)', () => {
  assert.equal(probeColor('routes', SERIES, ['sample', 'routes', 'search']), probeColor('routes', SERIES, ['routes', 'search']));
  assert.equal(probeColor('search', SERIES, ['sample', 'routes', 'search']), probeColor('search', SERIES, ['routes', 'search']));
  assert.notEqual(probeColor('sample', SERIES), probeColor('routes', SERIES));
});

test('other probes follow the known ones, by name', () => {
  assert.equal(probeColorIndex('zeta', ['zeta', 'alpha']), 4);
  assert.equal(probeColorIndex('alpha', ['zeta', 'alpha']), 3);
});
