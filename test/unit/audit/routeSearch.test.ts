import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SEARCH, RouteSearch } from '../../../src/audit/probes/routeSearch';
import { drawQuestionRoutes, isIdentity, isValidRoute, routeKey } from '../../../src/audit/probes/routes';
import { seededRandom } from '../../../src/audit/results/stats';
import type { Route } from '../../../src/engine/types';

function runSearch(L: number, budget: number, reward: (r: Route) => number, qid = 'q'): Route[] {
  const s = new RouteSearch(L, (i) => seededRandom(3, qid, 'search', i), DEFAULT_SEARCH);
  const seen: Route[] = [];
  for (let i = 0; i < budget; i++) {
    const r = s.propose();
    if (!r) break;
    seen.push([...r]);
    s.report(reward(r));
  }
  return seen;
}

test('every simulation evaluates one new valid route, and the search stops at the budget', () => {
  const routes = runSearch(10, 60, () => 0);
  assert.equal(routes.length, 60);
  assert.equal(new Set(routes.map(routeKey)).size, 60);
  for (const r of routes) {
    assert.ok(isValidRoute(r, 10));
    assert.ok(!isIdentity(r, 10));
  }
});

test('the search is deterministic per (seed, question) and differs between questions', () => {
  const reward = (r: Route) => (r.includes(0) ? 0 : 1);
  assert.deepEqual(runSearch(10, 30, reward), runSearch(10, 30, reward));
  assert.notDeepEqual(runSearch(10, 30, reward, 'a'), runSearch(10, 30, reward, 'b'));
});

test('the search goes below the first layer of edits and exploits rewarded subtrees', () => {
  // Reward: routes that skip block 0. UCB should return to that subtree more often than random routes land in it.
  const reward = (r: Route) => (r.includes(0) ? 0 : 1);
  let searched = 0;
  let random = 0;
  let multiEdit = 0;
  for (let q = 0; q < 10; q++) {
    const routes = runSearch(10, 80, reward, `q${q}`);
    searched += routes.filter((r) => reward(r) === 1).length;
    multiEdit += routes.filter((r) => Math.abs(r.length - 10) > 1 || r.filter((b, i) => r.indexOf(b) !== i).length > 1).length;
    random += drawQuestionRoutes(10, 80, (a) => seededRandom(3, `q${q}`, 'routes', a), 4).filter((r) => reward(r) === 1).length;
  }
  assert.ok(multiEdit > 0, 'some routes carry more than one edit');
  assert.ok(searched > random * 1.3, `search found ${searched} rewarded routes, random ${random}`);
});

test('a small route space is searched exhaustively, then propose() returns undefined', () => {
  const routes = runSearch(3, 1000, () => 0);
  assert.ok(routes.length > 0 && routes.length < 1000);
  assert.equal(new Set(routes.map(routeKey)).size, routes.length);
});

test('propose() and report() must alternate', () => {
  const s = new RouteSearch(6, (i) => seededRandom(1, 'q', 'search', i));
  assert.throws(() => s.report(1));
  s.propose();
  assert.throws(() => s.propose());
});
