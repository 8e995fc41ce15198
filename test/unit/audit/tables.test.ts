/**
 * The cross-run tables and the trajectory, recomputed here from the runs' records by an
 * independent implementation (textbook Wilson and exact McNemar, the repair split and block choice
 * written out again, the state of a question from its fields), on runs of the fake engine with
 * different correctness rates standing for different models.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAudit } from '../../../src/audit/run/runFolderAudit';
import type { QuestionRecord } from '../../../src/contract';
import { repairTable, routesVsSearchTable, trainingTable, type RunForTables } from '../../../src/audit/results/tables';
import { trajectory } from '../../../src/audit/results/trajectory';
import { routesVsSearchView, tableCsv, tablesHtml, tablesMarkdown } from '../../../src/audit/report/tablesReport';
import { DEFAULT_RATES, FakeGenerator, type FakeRates } from './fakeGenerator';
import { settingsFor, smallDataset, tempDir } from './fixtures';

const dataset = smallDataset(40);

async function auditWith(rates: FakeRates, settings = settingsFor()): Promise<RunForTables> {
  const folder = tempDir();
  const model = new FakeGenerator(8, new Map(dataset.questions.map((q) => [q.text, q.gold])), rates);
  const result = await runAudit({ engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 8, modelInfo: { path: '/m', contentHash: 'h' }, settings, model, folder, resume: false });
  return { folder, model: `fake-${rates.deploy}`, dataset: 'test.jsonl', seed: settings.seeds.run, records: result.records };
}

// Independent textbook implementations.
function wilson(k: number, n: number): { lo: number; hi: number } {
  const z = 1.959963984540054;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}
function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}
function mcnemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0;
  for (let i = 0; i <= Math.min(b, c); i++) tail += binomial(n, i) / 2 ** n;
  return Math.min(1, 2 * tail);
}
const state = (r: QuestionRecord) => (r.realized.correct ? 'realized' : Object.values(r.reachable).some(Boolean) ? 'reachable' : 'unreached');

test('random routes vs search: rates, discordant pairs, McNemar, interval and verdict, from the records', async () => {
  const runs = [await auditWith(DEFAULT_RATES), await auditWith({ ...DEFAULT_RATES, deploy: 0.5, route: 0.35 })];
  const t = routesVsSearchTable(runs);
  assert.equal(t.rows.length, 2);
  for (const [i, row] of t.rows.entries()) {
    const recs = runs[i].records;
    const routes = recs.filter((r) => r.reachable.routes).length;
    const search = recs.filter((r) => r.reachable.search).length;
    const onlyRoutes = recs.filter((r) => r.reachable.routes && !r.reachable.search).length;
    const onlySearch = recs.filter((r) => !r.reachable.routes && r.reachable.search).length;
    assert.equal(row.n, recs.length);
    assert.equal(row.routes.reachable.successes, routes);
    assert.equal(row.search.reachable.successes, search);
    assert.ok(Math.abs(row.routes.reachable.ci.lo - wilson(routes, recs.length).lo) < 1e-12);
    assert.ok(Math.abs(row.search.reachable.ci.hi - wilson(search, recs.length).hi) < 1e-12);
    assert.equal(row.onlyRoutes, onlyRoutes);
    assert.equal(row.onlySearch, onlySearch);
    assert.ok(Math.abs(row.mcnemarP - mcnemar(onlyRoutes, onlySearch)) < 1e-12);
    assert.ok(Math.abs(row.difference.delta - (routes - search) / recs.length) < 1e-12);
    // The bootstrap interval against the normal approximation of a paired difference of proportions.
    const n = recs.length;
    const se = Math.sqrt(onlyRoutes + onlySearch - (onlyRoutes - onlySearch) ** 2 / n) / n;
    assert.ok(Math.abs(row.difference.lo - (row.difference.delta - 1.96 * se)) < 0.06, `lo ${row.difference.lo}`);
    assert.ok(Math.abs(row.difference.hi - (row.difference.delta + 1.96 * se)) < 0.06, `hi ${row.difference.hi}`);
    assert.equal(row.verdict, row.difference.lo > 0 ? 'routes better' : row.difference.hi < 0 ? 'search better' : 'no difference');
    const tokens = (p: string) => recs.reduce((s, r) => s + r.probes[p].cost.tokens, 0);
    assert.equal(row.routes.cost.tokens, tokens('routes'));
    assert.ok(Math.abs(row.costRatio.tokens - tokens('search') / tokens('routes')) < 1e-12);
  }
  assert.equal(t.routesAtLeastSearch, t.rows.filter((r) => r.verdict !== 'search better').length);
});

test('unequal budgets are listed apart and not counted; the renderings escape and quote', async () => {
  const unmatched = await auditWith(DEFAULT_RATES, settingsFor(8, { probes: [{ name: 'routes', budget: 6 }, { name: 'search', budget: 3 }] }));
  const t = routesVsSearchTable([{ ...unmatched, model: '<b>=cmd|x' }]);
  assert.equal(t.rows.length, 0);
  assert.deepEqual(t.unmatched.map((u) => [u.routesBudget, u.searchBudget]), [[6, 3]]);
  const matched = await auditWith(DEFAULT_RATES);
  const view = routesVsSearchView(routesVsSearchTable([{ ...matched, model: '=HYPERLINK("x")|<b>' }]));
  assert.match(tableCsv(view), /'=HYPERLINK\(""x""\)\|<b>/, 'a formula-looking cell is quoted and neutralised');
  assert.match(tablesMarkdown([view]), /=HYPERLINK\("x"\)\\\|<b>/, 'a pipe cannot split a Markdown cell');
  const page = tablesHtml('t', [view]);
  assert.ok(!page.includes('<b>') && page.includes('&lt;b&gt;'), 'HTML escapes the model name');
  assert.match(page, /Content-Security-Policy/);
});

test('repair: failure set, split, identified block and held-out rate, recomputed', async () => {
  const run = await auditWith(DEFAULT_RATES);
  const [row] = repairTable([run]).rows;
  const failures = run.records.filter((r) => r.repair?.inFailureSet);
  assert.equal(row.failureSetSize, failures.length);
  const ordered = [...failures].sort((a, b) => a.repair!.splitKey - b.repair!.splitKey || (a.id < b.id ? -1 : 1));
  const selection = ordered.slice(0, Math.ceil(ordered.length / 2));
  const heldOut = ordered.slice(selection.length);
  assert.equal(row.selectionSize, selection.length);
  assert.equal(row.heldOutSize, heldOut.length);
  const repairs = (set: QuestionRecord[], block: number) => set.filter((r) => r.repair!.correctBySilencedBlock[String(block)]).length;
  const best = Math.max(...Array.from({ length: 8 }, (_, b) => repairs(selection, b)));
  assert.equal(repairs(selection, row.identifiedBlock!), best, 'the identified block repairs the most on the selection half');
  assert.equal(row.heldOutRepair!.successes, repairs(heldOut, row.identifiedBlock!));
  const realized = run.records.filter((r) => r.realized.correct);
  assert.equal(row.damage!.n, realized.length);
  assert.equal(row.damage!.successes, realized.filter((r) => !r.repair!.correctBySilencedBlock[String(row.identifiedBlock)]).length);
});

test('training: realized and ceiling deltas, newly realized split and the "X of Y" verdict', async () => {
  const base = await auditWith(DEFAULT_RATES);
  const tuned = await auditWith({ ...DEFAULT_RATES, deploy: 0.9, sample: 0.05, route: 0.05 });
  const t = trainingTable([{ folder: 'c', dataset: 'test.jsonl', base, tuned }]);
  const [row] = t.rows;
  const n = base.records.length;
  const byId = new Map(tuned.records.map((r) => [r.id, r]));
  const anyReach = (r: QuestionRecord) => Object.values(r.reachable).some(Boolean);
  assert.ok(Math.abs(row.realized.delta - (tuned.records.filter((r) => r.realized.correct).length - base.records.filter((r) => r.realized.correct).length) / n) < 1e-12);
  assert.ok(Math.abs(row.ceiling.delta - (tuned.records.filter(anyReach).length - base.records.filter(anyReach).length) / n) < 1e-12);
  const newly = base.records.filter((b) => !b.realized.correct && byId.get(b.id)!.realized.correct);
  assert.equal(row.newlyRealized.n, newly.length);
  assert.equal(row.newlyRealized.alreadyReachable, newly.filter(anyReach).length);
  assert.equal(row.realizedUp, row.realized.ci.lo > 0);
  assert.equal(row.ceilingFlatOrDown, !(row.ceiling.ci.lo > 0));
  assert.equal(t.realizedUpCeilingFlat, row.realizedUp && row.ceilingFlatOrDown ? 1 : 0);
  assert.ok(row.realizedUp, 'a deployment that is right 90% of the time raises realized');
});

test('trajectory: per-checkpoint rates and the flows between states, recomputed', async () => {
  const runs = [await auditWith(DEFAULT_RATES), await auditWith({ ...DEFAULT_RATES, deploy: 0.6 }), await auditWith({ ...DEFAULT_RATES, deploy: 0.8, route: 0.1 })];
  const t = trajectory(runs.map((r, i) => ({ label: `step-${i}`, folder: r.folder, records: r.records })));
  assert.deepEqual(t.probes, ['sample', 'routes', 'search']);
  assert.equal(t.ceilingBudget, 18);
  for (const [i, p] of t.points.entries()) {
    const recs = runs[i].records;
    assert.equal(p.realized.successes, recs.filter((r) => r.realized.correct).length);
    assert.equal(p.ceiling.successes, recs.filter((r) => Object.values(r.reachable).some(Boolean)).length);
    for (const q of t.probes) assert.equal(p.reachable[q].successes, recs.filter((r) => r.reachable[q]).length);
  }
  for (const [i, f] of t.flows.entries()) {
    const before = new Map(runs[i].records.map((r) => [r.id, state(r)]));
    const counts: Record<string, number> = {};
    for (const r of runs[i + 1].records) counts[`${before.get(r.id)}->${state(r)}`] = (counts[`${before.get(r.id)}->${state(r)}`] ?? 0) + 1;
    for (const [k, v] of Object.entries(f.counts)) assert.equal(v, counts[k] ?? 0, k);
    assert.equal(f.n, runs[i + 1].records.length);
    assert.equal(Object.values(f.ids).flat().length, f.n);
  }
});
