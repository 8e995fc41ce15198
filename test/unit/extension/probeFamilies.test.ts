/**
 * Issue 44: the perturbation probe ran from the CLI and the settings, but the Run Reachability
 * Audit picker listed only sample, routes and search. Every probe the contract names is offered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROBE_NAMES } from '../../../src/contract';
import { probeItems } from '../../../src/extension/commands/probeFamilies';

test('the picker offers every probe the contract names, perturb included', () => {
  assert.deepEqual(probeItems([]).map((i) => i.label), [...PROBE_NAMES]);
  assert.ok(probeItems([]).find((i) => i.label === 'perturb')?.detail.includes('residual stream'));
});

test('the current probes are picked, with their budgets; the others offer 16', () => {
  const items = probeItems(['sample:8', 'perturb:4']);
  assert.deepEqual(items.map((i) => [i.label, i.picked, i.description]), [
    ['sample', true, 'budget 8'],
    ['routes', false, 'budget 16'],
    ['search', false, 'budget 16'],
    ['perturb', true, 'budget 4'],
  ]);
});
