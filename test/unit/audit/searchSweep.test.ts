/**
 * The exploration sweep (--search-sweep): the search re-run at other c values, reach only, without
 * generating a route twice for a question. The sweep search at the probe's own c replays the probe's
 * search from its records alone (same stream, every route reused); in an audit every sweep point
 * stays within the budget, no (question, route) is generated twice, the records are the same run to
 * run, and the run without the flag records no sweep.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Generation, GenerationRequest } from '../../../src/engine/types';
import { DEFAULT_SEARCH, RouteSearch } from '../../../src/audit/probes/routeSearch';
import { SearchSweep, sweepConstants } from '../../../src/audit/probes/searchSweep';
import { routeKey, routeLengthBounds } from '../../../src/audit/probes/routes';
import { seededRandom } from '../../../src/audit/stats';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import type { Route } from '../../../src/engine/types';
import { searchSweepRows } from '../../../src/audit/results/searchSweepTable';
import { tableSet } from '../../../src/audit/report/tableSet';
import { FakeGenerator } from './fakeGenerator';
import { settingsFor, smallDataset, tempDir } from './fixtures';

const L = 8;
const stream = (i: number) => seededRandom(5, 'q', 'search', i);
const reward = (r: Route) => (r.length < L ? 0.3 : 0.1) + (r.includes(3) ? 0 : 0.2);
const correct = (r: Route) => routeKey(r) === '0,1,2,4,5,6,6,7';

test('the sweep constants are c/9, c/3 and 3c, rounded as recorded', () => {
  assert.deepEqual(sweepConstants(DEFAULT_SEARCH.c), [0.2, 0.6, 5.4]);
  assert.deepEqual(sweepConstants(Math.SQRT2), [0.1571, 0.4714, 4.243]);
});

test('a sweep search at the probe\'s own c replays it from the evaluated routes alone; the others reuse what they can', () => {
  const main = new RouteSearch(L, stream, DEFAULT_SEARCH);
  const earlier: { route: Route; correct: boolean; reward: number }[] = [];
  for (let i = 0; i < 24; i++) {
    const route = main.propose()!;
    const ok = correct(route);
    earlier.push({ route: [...route], correct: ok, reward: ok ? 1 : reward(route) });
    main.report(ok ? 1 : reward(route));
    if (ok) break;
  }
  const sweep = new SearchSweep(L, stream, DEFAULT_SEARCH, [DEFAULT_SEARCH.c, 0.2, 5.4], 24, routeLengthBounds(L), earlier);
  const generated = new Set<string>();
  for (let wanted = sweep.wanted(); wanted.length > 0; wanted = sweep.wanted()) {
    for (const w of wanted) {
      const key = routeKey(w.route);
      assert.ok(!generated.has(key) && !earlier.some((e) => routeKey(e.route) === key), `route ${key} asked for twice`);
      generated.add(key);
      sweep.report(w.route, { correct: correct(w.route), reward: correct(w.route) ? 1 : reward(w.route) }, w.chargedTo, { generations: 1, blockApplications: w.route.length });
    }
  }
  const [same, low, high] = sweep.points;
  assert.deepEqual(same, { c: DEFAULT_SEARCH.c, reached: earlier.some((e) => e.correct), evaluated: earlier.length, reused: earlier.length, cost: { generations: 0, blockApplications: 0 } });
  for (const p of [low, high]) {
    assert.ok(p.evaluated <= 24 && p.reused > 0, JSON.stringify(p));
    assert.equal(p.evaluated - p.reused >= p.cost.generations, true);
  }
  assert.equal(low.cost.generations + high.cost.generations, generated.size);
});

/** The fake engine, remembering which (prompt, route) it generated. */
class CountingModel extends FakeGenerator {
  readonly routed: string[] = [];
  override async generate(requests: readonly GenerationRequest[], signal?: AbortSignal): Promise<Generation[]> {
    for (const r of requests) if (r.route) this.routed.push(`${this.decode(r.promptIds)}|${routeKey(r.route)}`);
    return super.generate(requests, signal);
  }
}

async function audit(sweep: boolean) {
  const dataset = smallDataset(8);
  const model = new CountingModel(L, new Map(dataset.questions.map((q) => [q.text, q.gold])));
  const settings = settingsFor(L, {
    probes: [{ name: 'search', budget: 10 }],
    selectors: [],
    repair: { enabled: false, referenceProbes: ['search'] },
    globalRoutes: { count: 0, routes: [] },
    search: { ...settingsFor(L).search, ...(sweep ? { sweep: sweepConstants(settingsFor(L).search.c) } : {}) },
  });
  const result = await runAudit({ engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 3, modelInfo: { path: '/m', contentHash: 'h' }, settings, model, folder: tempDir(), resume: false });
  return { records: result.records, calls: model.routed };
}

test('in an audit: every sweep point within the budget, no route generated twice for a question, deterministic, absent without the flag', async () => {
  const plain = await audit(false);
  assert.ok(plain.records.every((r) => r.searchSweep === undefined));
  const swept = await audit(true);
  assert.equal(new Set(swept.calls).size, swept.calls.length, 'a (question, route) generated twice');
  for (const [i, r] of swept.records.entries()) {
    // The probe's own search is untouched by the sweep.
    assert.deepEqual(r.probes.search, plain.records[i].probes.search);
    assert.deepEqual(r.searchSweep!.map((p) => p.c), [0.2, 0.6, 5.4]);
    for (const p of r.searchSweep!) assert.ok(p.evaluated <= 10 && p.reused <= p.evaluated && p.cost.generations <= p.evaluated - p.reused);
  }
  assert.ok(swept.records.some((r) => r.searchSweep!.some((p) => p.reused > 0)), 'some routes are reused');
  assert.deepEqual((await audit(true)).records, swept.records);
});

/** One c of a question's sweep, with fixed costs. */
const point = (c: number, reached: boolean) => ({ c, reached, evaluated: 4, reused: 1, cost: { generations: 3, blockApplications: 24 } });

/** 40 copies of one audited record in which routes and the search at its own c reach q0–q9, each carrying the sweep `sweepOf` gives. */
async function sweptRecords(sweepOf: (i: number) => ReturnType<typeof point>[]) {
  const base = (await audit(false)).records[0];
  return Array.from({ length: 40 }, (_, i) => ({
    ...base,
    id: `q${i}`,
    probes: { routes: base.probes.search, search: base.probes.search },
    reachable: { routes: i < 10, search: i < 10 },
    searchSweep: sweepOf(i),
  }));
}

test('the sweep table: the search at each c beside random routes on the same questions, and whether the sign holds', async () => {
  // 40 questions: routes reach 10; the search at 1.8 reaches 10 (the same), at 0.2 reaches 30 (20 more), at 5.4 reaches 2.
  const records = await sweptRecords((i) => [point(0.2, i < 30), point(0.6, i < 10), point(5.4, i < 2)]);
  const source = { folder: '/r', model: 'm', dataset: 'd', finished: true, seed: 0, records, searchC: 1.8 };
  const [row] = searchSweepRows([source]);
  assert.deepEqual(row.points.map((p) => [p.c, p.own, p.search.successes, p.onlyRoutes, p.onlySearch]), [[0.2, false, 30, 0, 20], [0.6, false, 10, 0, 0], [1.8, true, 10, 0, 0], [5.4, false, 2, 8, 0]]);
  assert.ok(row.points[0].difference.hi < 0 && row.points[0].mcnemarP < 1e-5, 'at c = 0.2 the search is ahead');
  assert.ok(row.points[3].difference.lo > 0, 'at c = 5.4 routes are ahead');
  assert.equal(row.signStable, false);
  assert.deepEqual([row.generations, row.reused, row.evaluated], [360, 120, 480]);
  // The view appears only when a run carries a sweep.
  assert.ok(tableSet([source], []).views.some((v) => v.id === 'search-sweep'));
  assert.ok(!tableSet([{ ...source, records: records.map(({ searchSweep: _, ...r }) => r) }], []).views.some((v) => v.id === 'search-sweep'));
});

test('the sweep\'s sentence follows what it ran: "c cannot change reach" only for the 0/1 reward with λ = 0', async () => {
  // 40 questions; at c = 5.4 the search reaches 2 fewer: c did change reach.
  const records = await sweptRecords((i) => [point(0.6, i < 10), point(5.4, i < 8)]);
  const notes = (extra: object) => tableSet([{ folder: '/r', model: 'm', dataset: 'd', finished: true, seed: 0, records, searchC: 1.8, ...extra }], []).views.find((v) => v.id === 'search-sweep')!.notes.join(' ');
  // --search-preset published: λ = 5 under the 0/1 reward.
  const published = notes({ searchReward: 'correct', searchLambda: 5 });
  assert.doesNotMatch(published, /cannot change reach/);
  assert.match(published, /λ = 5/);
  assert.match(published, /c can change reach/);
  const gold = notes({ searchReward: 'gold-logprob', searchLambda: 0 });
  assert.doesNotMatch(gold, /cannot change reach/);
  assert.match(notes({ searchReward: 'correct', searchLambda: 0 }), /cannot change reach/);
  // A manifest without λ recorded does not get the claim either.
  assert.doesNotMatch(notes({}), /cannot change reach/);
});
