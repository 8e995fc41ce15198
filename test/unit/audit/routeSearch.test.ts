import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SEARCH, RouteSearch } from '../../../src/audit/probes/routeSearch';
import type { SearchSettings } from '../../../src/contract';
import { drawQuestionRoutes, identityRoute, isIdentity, isValidRoute, neighbourRoutes, routeKey, type LengthBounds } from '../../../src/audit/probes/routes';
import { seededRandom } from '../../../src/audit/stats';
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

// Each setting of the search, one at a time, against the defaults (the search is deterministic per seed).
function runWith(settings: Partial<SearchSettings>, L: number, budget: number, reward: (r: Route) => number, qid = 'q', bounds?: LengthBounds): Route[] {
  const s = new RouteSearch(L, (i) => seededRandom(3, qid, 'search', i), { ...DEFAULT_SEARCH, ...settings }, bounds);
  const seen: Route[] = [];
  for (let i = 0; i < budget; i++) {
    const r = s.propose();
    if (!r) break;
    seen.push([...r]);
    s.report(reward(r));
  }
  return seen;
}

const firstLayer = (L: number) => new Set(neighbourRoutes(identityRoute(L), L).map(routeKey));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('the default settings are the ones written down: c 1.8, λ 0, random child 0.1, widening α 0.5', () => {
  assert.deepEqual(DEFAULT_SEARCH, { c: 1.8, lambda: 0, exploration: 0.1, widening: 0.5 });
  // A manifest without widening (a run made before it could be set) searches exactly as α = 0.5.
  const reward = (r: Route) => (r.includes(0) ? 0 : 1);
  const { widening: _w, ...old } = DEFAULT_SEARCH;
  const legacy = new RouteSearch(10, (i) => seededRandom(3, 'q', 'search', i), old);
  const routes: Route[] = [];
  for (let i = 0; i < 40; i++) {
    const r = legacy.propose()!;
    routes.push([...r]);
    legacy.report(reward(r));
  }
  assert.deepEqual(routes, runWith({}, 10, 40, reward));
});

test('widening: a larger α keeps more of the budget on single edits of the identity; off tries them all first', () => {
  const L = 10;
  const layer = firstLayer(L);
  const onFirstLayer = (w: number | 'off') => {
    let n = 0;
    for (let q = 0; q < 8; q++) n += runWith({ widening: w, exploration: 0 }, L, 30, () => 0, `q${q}`).filter((r) => layer.has(routeKey(r))).length;
    return n;
  };
  const counts = [0, 0.5, 1].map(onFirstLayer);
  assert.ok(counts[0] < counts[1] && counts[1] < counts[2], `first-layer routes by α 0, 0.5, 1: ${counts.join(', ')}`);
  // Off (plain UCT): every single edit of the identity is evaluated before anything below it.
  const off = runWith({ widening: 'off', exploration: 0 }, L, layer.size + 5, () => 0);
  assert.deepEqual(new Set(off.slice(0, layer.size).map(routeKey)), layer);
  assert.ok(off.slice(layer.size).every((r) => !layer.has(routeKey(r))));
});

test('λ: a length penalty steers the search to shorter routes', () => {
  const lengths = (lambda: number) => {
    const all: number[] = [];
    for (let q = 0; q < 8; q++) all.push(...runWith({ lambda }, 10, 40, () => 0, `q${q}`).map((r) => r.length));
    return mean(all);
  };
  const free = lengths(0);
  const penalised = lengths(5);
  assert.ok(penalised < free - 0.2, `mean route length ${penalised} with λ = 5, ${free} with λ = 0`);
});

test('c: without the exploration bonus the search stays in the subtree that paid; a large c spreads out', () => {
  // Reward: routes that skip block 0 (one first-layer edit leads there).
  const reward = (r: Route) => (r.includes(0) ? 0 : 1);
  const found = (c: number) => {
    let n = 0;
    for (let q = 0; q < 10; q++) n += runWith({ c, exploration: 0 }, 10, 60, reward, `q${q}`).filter((r) => reward(r) === 1).length;
    return n;
  };
  const greedy = found(0);
  const spread = found(20);
  assert.ok(greedy > spread, `rewarded routes: ${greedy} with c = 0, ${spread} with c = 20`);
  assert.notDeepEqual(runWith({ c: 0 }, 10, 40, reward), runWith({ c: 20 }, 10, 40, reward));
});

test('random child: with probability 1 every move is random, and the search no longer follows the reward', () => {
  const reward = (r: Route) => (r.includes(0) ? 0 : 1);
  const found = (exploration: number) => {
    let n = 0;
    for (let q = 0; q < 10; q++) n += runWith({ exploration }, 10, 60, reward, `q${q}`).filter((r) => reward(r) === 1).length;
    return n;
  };
  const guided = found(0);
  const random = found(1);
  assert.ok(guided > random, `rewarded routes: ${guided} with probability 0, ${random} with probability 1`);
});

test('length bounds: every route the search and the random routes evaluate is within them', () => {
  const L = 10;
  const bounds = { min: 9, max: 11 };
  const searched = runWith({}, L, 200, () => 0, 'q', bounds);
  const drawn = drawQuestionRoutes(L, 200, (a) => seededRandom(3, 'q', 'routes', a), 4, bounds);
  assert.ok(searched.length > 10 && drawn.length > 10);
  for (const r of [...searched, ...drawn]) {
    assert.ok(r.length >= 9 && r.length <= 11, `route of length ${r.length}`);
    assert.ok(isValidRoute(r, L, bounds));
  }
  // The defaults, [round(2L/3), round(5L/4)] = [7, 13], reach lengths these bounds leave out.
  assert.ok(runWith({}, L, 200, () => 0).some((r) => r.length < 9 || r.length > 11));
});

test('the rewards\' spread is computed stably: rewards 0.3 + {0..3}·1e-9 have spread √1.25·1e-9, not 0', () => {
  const search = new RouteSearch(6, (i) => seededRandom(1, 'spread', i), { ...DEFAULT_SEARCH, rewardScale: 'spread' });
  for (const r of [0, 1, 2, 3]) {
    assert.ok(search.propose(), 'a route to evaluate');
    search.report(0.3 + r * 1e-9);
  }
  const want = Math.sqrt(1.25) * 1e-9; // population standard deviation of {0, 1, 2, 3}·1e-9
  assert.ok(Math.abs(search.rewardSpread() - want) < 1e-6 * want, `${search.rewardSpread()} vs ${want}`);
});
