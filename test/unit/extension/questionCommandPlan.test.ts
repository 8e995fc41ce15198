/**
 * Probe Layer Routes runs only the route probes, without the repair scan; Silence MLP Blocks says
 * before it runs which probes run first and why (issue 40 point 9: both re-ran the full set silently).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { questionCommandPlan, questionCommandTitle } from '../../../src/extension/commands/questionCommandPlan';

const settings = { probes: ['sample:16', 'routes:16', 'search:8'], repair: true, maxNewTokens: 64 };

test('Probe Layer Routes: routes and search only, no repair scan', () => {
  const plan = questionCommandPlan('routes', settings);
  assert.deepEqual(plan, { probes: ['routes:16', 'search:8'], repair: false, maxNewTokens: 64 });
  assert.deepEqual(questionCommandPlan('routes', { probes: ['sample:4'] }).probes, ['routes:16']);
  assert.equal(questionCommandTitle('routes', 3, plan), 'Reach Audit: probing layer routes (routes:16, search:8; no repair scan) for the question on line 3');
});

test('Silence MLP Blocks: the scan on, and the title names the probes that decide the failure set', () => {
  const plan = questionCommandPlan('repair', { ...settings, repair: false });
  assert.equal(plan.repair, true);
  assert.deepEqual(plan.probes, settings.probes);
  assert.match(questionCommandTitle('repair', 7, plan), /silencing MLP blocks for the question on line 7, after the probes that decide whether it is a failure \(sample:16, routes:16, search:8\)/);
  assert.deepEqual(questionCommandPlan('all', settings), settings);
});
