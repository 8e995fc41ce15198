import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globalRouteSkipReason, MIN_GLOBAL_ROUTE_QUESTIONS } from '../../../src/audit/probes/globalRoutePlan';
import { readPreSettings, runSettings } from '../../../src/service/auditInputs';

test('the global-route pool applies from MIN_GLOBAL_ROUTE_QUESTIONS questions on', () => {
  assert.equal(globalRouteSkipReason(MIN_GLOBAL_ROUTE_QUESTIONS), undefined);
  assert.equal(globalRouteSkipReason(300), undefined);
  assert.match(globalRouteSkipReason(1) ?? '', /needs at least 20 questions \(this run has 1\)/);
  assert.match(globalRouteSkipReason(MIN_GLOBAL_ROUTE_QUESTIONS - 1) ?? '', /this run has 19/);
});

test('runSettings: a one-question run draws no pool and records why; a large run keeps its pool', () => {
  const pre = readPreSettings({ probes: ['routes:4'], select: ['majority', 'global-route'] });
  assert.equal(pre.globalRoutes, 4);
  const one = runSettings(pre, 8, { limit: null, ids: ['q1'] }, 1);
  assert.deepEqual({ count: one.globalRoutes.count, routes: one.globalRoutes.routes }, { count: 0, routes: [] });
  assert.match(one.globalRoutes.skipped ?? '', /global-route selection skipped/);
  const many = runSettings(pre, 8, { limit: null, ids: null }, 40);
  assert.equal(many.globalRoutes.count, 4);
  assert.equal(many.globalRoutes.routes.length, 4);
  assert.equal(many.globalRoutes.skipped, undefined);
  // Without the global-route selector nothing is skipped: there was nothing to run.
  const none = runSettings(readPreSettings({ probes: ['routes:4'], select: ['majority'] }), 8, { limit: null, ids: null }, 1);
  assert.deepEqual(none.globalRoutes, { count: 0, routes: [] });
});

test('runSettings: a ceiling-only run (--until-reached) draws no pool, records why, and records the mode', () => {
  const pre = readPreSettings({ probes: ['routes:4'], select: ['majority', 'global-route'], untilReached: true });
  const s = runSettings(pre, 8, { limit: null, ids: null }, 40);
  assert.deepEqual({ count: s.globalRoutes.count, routes: s.globalRoutes.routes }, { count: 0, routes: [] });
  assert.match(s.globalRoutes.skipped ?? '', /--until-reached audits the reachable ceiling only/);
  assert.equal(s.untilReached, true);
  assert.equal(runSettings(readPreSettings({ probes: ['routes:4'] }), 8, { limit: null, ids: null }, 40).untilReached, undefined);
});
