/**
 * The cross-run tables and the trajectory, recomputed here from the runs' records by an
 * independent implementation (textbook Wilson and exact McNemar, the repair split and block choice
 * written out again, the state of a question from its fields), on runs of the fake engine with
 * different correctness rates standing for different models.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import type { QuestionRecord } from '../../../src/contract';
import { repairTable, routesVsSearchTable, trainingTable, type RunForTables } from '../../../src/audit/results/tables';
import { trajectory } from '../../../src/audit/results/trajectory';
import { passAtKDeltas } from '../../../src/audit/results/passAtKDelta';
import { storedTrajectorySchema } from '../../../src/audit/store/runFileSchemas';
import * as v from 'valibot';
import { routesVsSearchView, tableCsv, tablesHtml, tablesMarkdown, trajectoryPassChart, trajectoryViews } from '../../../src/audit/report/tablesReport';
import { summarize } from '../../../src/audit/results/summary';
import { holmAdjust } from '../../../src/audit/stats/holm';
import { DEFAULT_RATES, FakeGenerator, type FakeRates } from './fakeGenerator';
import { settingsFor, smallDataset, tempDir } from './fixtures';

const dataset = smallDataset(40);

async function auditWith(rates: FakeRates, settings = settingsFor()): Promise<RunForTables> {
  const folder = tempDir();
  const model = new FakeGenerator(8, new Map(dataset.questions.map((q) => [q.text, q.gold])), rates);
  const result = await runAudit({ engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 8, modelInfo: { path: '/m', contentHash: 'h' }, settings, model, folder, resume: false });
  return { folder, model: `fake-${rates.deploy}`, dataset: 'test.jsonl', seed: settings.seeds.run, records: result.records, finished: true };
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
/** Unbiased pass@k of one question with c of n attempts right: 1 − C(n−c, k) / C(n, k) (Chen et al. 2021). */
function passAtKOf(n: number, c: number, k: number): number {
  return n - c < k ? 1 : 1 - binomial(n - c, k) / binomial(n, k);
}
/**
 * Percentile bootstrap of a mean (Efron & Tibshirani ch. 13): resample the n values with
 * replacement B times, take the 2.5% and 97.5% quantiles of the resampled means. Its own generator
 * (mulberry32), not the audit's stream, so it agrees only up to Monte Carlo error.
 */
function percentileBootstrap(values: readonly number[], resamples = 10000): { lo: number; hi: number } {
  let a = 0x9e3779b9;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[Math.floor(random() * values.length)];
    means.push(sum / values.length);
  }
  means.sort((x, y) => x - y);
  const at = (q: number) => {
    const h = (means.length - 1) * q;
    const i = Math.floor(h);
    return means[i] + (h - i) * (means[Math.min(i + 1, means.length - 1)] - means[i]);
  };
  return { lo: at(0.025), hi: at(0.975) };
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
    // The score interval against the normal approximation of a paired difference of proportions.
    const n = recs.length;
    const se = Math.sqrt(onlyRoutes + onlySearch - (onlyRoutes - onlySearch) ** 2 / n) / n;
    assert.ok(Math.abs(row.difference.lo - (row.difference.delta - 1.96 * se)) < 0.06, `lo ${row.difference.lo}`);
    assert.ok(Math.abs(row.difference.hi - (row.difference.delta + 1.96 * se)) < 0.06, `hi ${row.difference.hi}`);
    // The gain set (questions the deployment does not realize) decides; Holm over the table's rows decides the direction.
    const gain = recs.filter((r) => !r.realized.correct);
    const gainOnlyRoutes = gain.filter((r) => r.reachable.routes && !r.reachable.search).length;
    const gainOnlySearch = gain.filter((r) => !r.reachable.routes && r.reachable.search).length;
    assert.equal(row.gainSet.n, gain.length);
    assert.equal(row.gainSet.onlyRoutes, gainOnlyRoutes);
    assert.equal(row.gainSet.onlySearch, gainOnlySearch);
    assert.ok(Math.abs(row.gainSet.mcnemarP - mcnemar(gainOnlyRoutes, gainOnlySearch)) < 1e-12);
    assert.equal(row.holmP, holmAdjust(t.rows.map((x) => x.gainSet.mcnemarP))[t.rows.indexOf(row)]);
    const g = row.gainSet.difference;
    const direction = row.holmP < 0.05 && g.lo > 0 ? 'better' : row.holmP < 0.05 && g.hi < 0 ? 'worse' : undefined;
    if (direction) assert.equal(row.decision.verdict, direction);
    else assert.equal(row.decision.verdict, row.equivalenceHolmP < 0.025 ? 'equivalent' : 'inconclusive');
    assert.equal(row.nonInferior.holds, row.verdict === 'search better' ? 'no' : row.verdict === 'inconclusive' ? 'inconclusive' : 'yes');
    assert.equal(row.saturated, null, 'not a choice format');
    assert.equal(row.routes.chance, null);
    const tokens = (p: string) => recs.reduce((s, r) => s + r.probes[p].cost.tokens, 0);
    assert.equal(row.routes.cost.tokens, tokens('routes'));
    assert.ok(Math.abs(row.costRatio.tokens - tokens('search') / tokens('routes')) < 1e-12);
  }
  assert.equal(t.nonInferior, t.rows.filter((r) => r.nonInferior.holds === 'yes').length);
  assert.equal(t.searchBetter, t.rows.filter((r) => r.verdict === 'search better').length);
  assert.equal(t.nonInferior + t.searchBetter + t.inconclusive, t.counted);
  assert.equal(t.counted, t.rows.length);
});

test('unequal budgets are listed apart and not counted; the renderings escape and quote', async () => {
  const unmatched = await auditWith(DEFAULT_RATES, settingsFor(8, { probes: [{ name: 'routes', budget: 6 }, { name: 'search', budget: 3 }] }));
  const t = routesVsSearchTable([{ ...unmatched, model: '<b>=cmd|x' }]);
  assert.equal(t.rows.length, 0);
  assert.deepEqual(t.unmatched.map((u) => [u.routesBudget, u.searchBudget]), [[6, 3]]);
  const matched = await auditWith(DEFAULT_RATES);
  const view = routesVsSearchView(routesVsSearchTable([{ ...matched, model: '=HYPERLINK("x")|<b>' }]));
  assert.match(tableCsv(view), /'=HYPERLINK\(""x""\)\|<b>/, 'a formula-looking cell is quoted and neutralised');
  assert.match(tablesMarkdown([view]), /=HYPERLINK\("x"\)\\\|&lt;b&gt;/, 'a pipe cannot split a Markdown cell, nor HTML render in one');
  assert.ok(!tablesMarkdown([view]).includes('<b>'), 'no raw HTML from a model name in the Markdown');
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
  const inCeiling = (r: QuestionRecord) => r.realized.correct || anyReach(r);
  assert.ok(Math.abs(row.realized.delta - (tuned.records.filter((r) => r.realized.correct).length - base.records.filter((r) => r.realized.correct).length) / n) < 1e-12);
  assert.ok(Math.abs(row.ceiling.delta - (tuned.records.filter(inCeiling).length - base.records.filter(inCeiling).length) / n) < 1e-12);
  assert.deepEqual(row.realizedNotReached, { base: base.records.filter((r) => r.realized.correct && !anyReach(r)).length, tuned: tuned.records.filter((r) => r.realized.correct && !anyReach(r)).length });
  const newly = base.records.filter((b) => !b.realized.correct && byId.get(b.id)!.realized.correct);
  assert.equal(row.newlyRealized.n, newly.length);
  assert.equal(row.newlyRealized.alreadyReachable, newly.filter(anyReach).length);
  const up = row.realized.mcnemarP < 0.05 && row.realized.ci.lo > 0;
  assert.ok(up, 'a deployment that is right 90% of the time raises realized');
  assert.equal(row.realized.decision?.verdict, 'better');
  const flat = row.ceiling.ci.hi < 0.05;
  const ceilingUp = row.ceiling.mcnemarP < 0.05 && row.ceiling.ci.lo > 0;
  assert.equal(row.claim.holds, up && flat ? 'yes' : ceilingUp ? 'no' : 'inconclusive');
  assert.equal(t.realizedUpCeilingFlat, row.claim.holds === 'yes' ? 1 : 0);
});

test('trajectory: per-checkpoint rates and the flows between states, recomputed', async () => {
  const runs = [await auditWith(DEFAULT_RATES), await auditWith({ ...DEFAULT_RATES, deploy: 0.6 }), await auditWith({ ...DEFAULT_RATES, deploy: 0.8, route: 0.1 })];
  const t = trajectory(runs.map((r, i) => ({ label: `step-${i}`, folder: r.folder, records: r.records })), { alongK: true });
  assert.deepEqual(t.probes, ['sample', 'routes', 'search']);
  assert.equal(t.ceilingBudget, 18);
  // Each later checkpoint against the first along k: the comparison's curves, paired by id.
  assert.deepEqual(t.passAtKDeltas, runs.slice(1).map((r, i) => ({ label: `step-${i + 1}`, base: 'step-0', curves: passAtKDeltas(runs[0].records, r.records) })));
  assert.deepEqual(t.passAtKDeltas!.map((d) => d.curves.map((c) => c.what)), [0, 1].map(() => ['realized', 'sample', 'routes', 'search', 'ceiling']));
  assert.equal(v.safeParse(storedTrajectorySchema, { kind: 'reach-audit-trajectory', createdAt: 'now', ...t }).success, true, 'a trajectory with them is valid');
  assert.equal(trajectory(runs.map((r, i) => ({ label: `step-${i}`, folder: r.folder, records: r.records }))).passAtKDeltas, undefined, 'reach-audit trajectory prints none, so computes none');
  for (const [i, p] of t.points.entries()) {
    const recs = runs[i].records;
    assert.equal(p.realized.successes, recs.filter((r) => r.realized.correct).length);
    assert.equal(p.ceiling.successes, recs.filter((r) => r.realized.correct || Object.values(r.reachable).some(Boolean)).length);
    assert.equal(p.realizedNotReached, recs.filter((r) => r.realized.correct && !Object.values(r.reachable).some(Boolean)).length);
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

test('trajectory: pass@1 and pass@k per checkpoint carry their n and bootstrap interval, in every rendering', async () => {
  const runs = [await auditWith(DEFAULT_RATES), await auditWith({ ...DEFAULT_RATES, sample: 0.5 })];
  const t = trajectory(runs.map((r, i) => ({ label: `step-${i}`, folder: r.folder, records: r.records })));
  assert.equal(t.passAtKProbe, 'sample');
  const k = t.passAtKMax;
  assert.ok(k > 1);
  for (const [i, p] of t.points.entries()) {
    const used = runs[i].records.filter((r) => r.probes.sample);
    assert.equal(p.passAtKN, used.length);
    const at1 = used.map((r) => r.probes.sample.correct.filter(Boolean).length / r.probes.sample.correct.length);
    const atK = used.map((r) => passAtKOf(r.probes.sample.correct.length, r.probes.sample.correct.filter(Boolean).length, k));
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    assert.ok(Math.abs(p.passAt1! - mean(at1)) < 1e-12, `pass@1 ${p.passAt1} vs ${mean(at1)}`);
    assert.ok(Math.abs(p.passAtK! - mean(atK)) < 1e-12, `pass@${k} ${p.passAtK} vs ${mean(atK)}`);
    // The interval is the run's own summary.json interval, and a percentile bootstrap of the
    // per-question values written out here agrees with it up to Monte Carlo error: about 0.002 for
    // a 2.5% quantile over 10,000 resamples, but a resampled mean of 0/1 values moves in steps of
    // 1/n, so two generators can land one step apart.
    const summary = summarize(runs[i].records);
    assert.deepEqual(p.passAt1Ci, summary.passAtKCi.sample['1']);
    assert.deepEqual(p.passAtKCi, summary.passAtKCi.sample[String(k)]);
    for (const [ci, values, value] of [[p.passAt1Ci!, at1, p.passAt1!], [p.passAtKCi!, atK, p.passAtK!]] as const) {
      // Per-question values all 0 or 1 (pass@B): the Wilson interval of the count; otherwise the bootstrap.
      const binary = values.every((x) => x === 0 || x === 1);
      const ref = binary ? wilson(values.filter((x) => x === 1).length, values.length) : percentileBootstrap(values);
      const tolerance = 1 / values.length + 0.005;
      assert.ok(Math.abs(ci.lo - ref.lo) < tolerance && Math.abs(ci.hi - ref.hi) < tolerance, `${ci.lo}..${ci.hi} vs ${ref.lo}..${ref.hi}`);
      assert.ok(ci.lo <= value && value <= ci.hi && ci.hi - ci.lo > 0.02, `${value} in ${ci.lo}..${ci.hi}`);
    }
  }

  // Text (and Markdown, and the page): "31.8% [24.9, 39.0] (n = 40)"; CSV: value, lo, hi, n.
  const [view] = trajectoryViews(t);
  const cell = (x: number, ci: { lo: number; hi: number }, n: number) => `${(100 * x).toFixed(1)}% [${(100 * ci.lo).toFixed(1)}, ${(100 * ci.hi).toFixed(1)}] (n = ${n})`;
  assert.deepEqual(view.headers.slice(-2), ['pass@1 · sample', `pass@${k} · sample`]);
  assert.deepEqual(view.rows.map((r) => r.slice(-2)), t.points.map((p) => [cell(p.passAt1!, p.passAt1Ci!, p.passAtKN), cell(p.passAtK!, p.passAtKCi!, p.passAtKN)]));
  assert.ok(view.notes.some((n) => /Wilson where every question's value is 0 or 1 .*otherwise the percentile bootstrap/.test(n)), 'the interval used is named');
  assert.deepEqual(view.csvHeaders.slice(-8), ['pass_at_1', 'pass_at_1_lo', 'pass_at_1_hi', 'pass_at_1_n', 'pass_at_k', 'pass_at_k_lo', 'pass_at_k_hi', 'pass_at_k_n']);
  assert.deepEqual(view.csvRows.map((r) => r.slice(-8)), t.points.map((p) => [p.passAt1, p.passAt1Ci!.lo, p.passAt1Ci!.hi, p.passAtKN, p.passAtK, p.passAtKCi!.lo, p.passAtKCi!.hi, p.passAtKN]));
  const csvLine = tableCsv(view).split('\r\n')[1];
  assert.ok(csvLine.endsWith([t.points[0].passAt1, t.points[0].passAt1Ci!.lo, t.points[0].passAt1Ci!.hi, t.points[0].passAtKN, t.points[0].passAtK, t.points[0].passAtKCi!.lo, t.points[0].passAtKCi!.hi, t.points[0].passAtKN].join(',')), csvLine);
  // The HTML shades the pass@k intervals and says what they are.
  assert.match(tablesHtml('t', [view], [trajectoryPassChart(t)]), /shaded: 95% interval: Wilson where each question is 0 or 1, else bootstrap/);

  // Without the sampling probe there is no pass@k: no value, no interval, n = 0, no pass@k columns.
  const noSample = await auditWith(DEFAULT_RATES, settingsFor(8, { probes: [{ name: 'routes', budget: 4 }, { name: 'search', budget: 4 }] }));
  const bare = trajectory([noSample, noSample].map((r, i) => ({ label: `s${i}`, folder: r.folder, records: r.records })));
  assert.deepEqual(bare.points.map((p) => [p.passAt1, p.passAt1Ci, p.passAtK, p.passAtKCi, p.passAtKN]), [[null, null, null, null, 0], [null, null, null, null, 0]]);
  assert.ok(!trajectoryViews(bare)[0].headers.some((h) => h.startsWith('pass@')));
});
