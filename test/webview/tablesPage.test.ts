/**
 * The Tables page's Trajectory tab in Chromium under the extension's CSP, on the trajectory Show
 * Training Trajectory builds from the fixture runs: pass@1 and pass@k of every checkpoint are shown
 * with their bootstrap interval and n (under the chart, in its text alternative and in the table),
 * both charts are drawn, and a checkpoint label with markup stays text. Its Tables tab shows the
 * exploration sweep (--search-sweep) as `reach-audit table` builds it.
 * Run: npx tsc -p . && node --test out/test/webview/tablesPage.test.js
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Interval, ProbeResult, TableData } from '../../src/contract';
import { tableSet } from '../../src/audit/report/tableSet';
import { deployed, testRecord } from '../support/questionRecord';
import { buildTrajectoryMessage, type TrajectoryMessage } from '../../src/extension/tables/tablesData';
import { routesVsSearchTable, type RunForTables } from '../../src/audit/results/tables';
import { routesVsSearchView } from '../../src/audit/report/tablesReport';
import { probeSeries, probeThemeColours } from './probeSeries';
import { makeSyntheticRun } from './syntheticRun';
import { trajectory } from '../../src/audit/results/trajectory';
import { crossingSentence, deltaAtKCell } from '../../webview/src/comparison/passAtKDeltaText';
import { buildBundles, launchBrowser, openPanel, ROOT, waitFor, type Browser, type Bundles, type Harness, startHarness } from './harness';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'runs');
const HOSTILE = 'tuned <img src=x onerror=alert(1)>';
const HOSTILE_MODEL = 'base <img src=x onerror=alert(1)>';

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

/** "31.8% [26.1–37.5] (n = 100)", or without an interval below 20 questions, written out here as the page should show it. */
function shown(value: number | null, ci: Interval | null, n: number): string {
  if (value === null) return '–';
  if (!ci) return `${(100 * value).toFixed(1)}% (n = ${n}; no interval below 20 questions)`;
  return `${(100 * value).toFixed(1)}% [${(100 * ci.lo).toFixed(1)}–${(100 * ci.hi).toFixed(1)}] (n = ${n})`;
}

/** A showTables message with the exploration sweep, built by `reach-audit table`'s code from constructed records. */
function sweepMessage() {
  const probe = (reached: boolean): ProbeResult => ({ budget: 4, attempts: [], correct: [reached, false, false, false], cost: { generations: 4, tokens: 4, blockApplications: 32 } });
  const point = (c: number, reached: boolean) => ({ c, reached, evaluated: 4, reused: 2, cost: { generations: 2, blockApplications: 16 } });
  const records = Array.from({ length: 30 }, (_, i) =>
    testRecord(`q${i}`, i + 1, {
      realized: deployed(false),
      probes: { routes: probe(i < 6), search: probe(i < 6) },
      reachable: { routes: i < 6, search: i < 6 },
      searchSweep: [point(0.2, i < 20), point(0.6, i < 8), point(5.4, i < 3)],
    }),
  );
  const { views } = tableSet([{ folder: '/runs/base', model: HOSTILE_MODEL, dataset: 'd.jsonl', seed: 0, records, finished: true, searchC: 1.8 }], []);
  const tables: TableData[] = views.map((v) => ({ id: v.id, title: v.title, notes: v.notes, headers: v.headers, rows: v.rows, apart: v.apart }));
  return { type: 'showTables', sources: ['/runs/base'], tables, warnings: [] };
}

describe('Tables page: the trajectory (Chromium, strict CSP)', () => {
  let bundles: Bundles;
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let message: TrajectoryMessage;

  before(async () => {
    message = buildTrajectoryMessage(
      [
        { label: 'base', folder: path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base') },
        { label: HOSTILE, folder: path.join(FIXTURES, '2026-12-01T10-15-00Z-demo-tuned') },
      ],
      'fixtures',
    );
    bundles = await buildBundles(['tables']);
    harness = await startHarness(bundles);
    browser = await launchBrowser();
    page = browser.page;
    await openPanel(page, harness, 'dark', 'tables');
  });

  after(async () => {
    await browser?.close();
    await harness?.close();
    if (bundles) await rm(bundles.dir, { recursive: true, force: true });
  });

  test('pass@1 and pass@k of each checkpoint with their interval and n; both charts drawn; labels stay text', async () => {
    const t = message.trajectory;
    assert.equal(t.passAtKProbe, 'sample', 'the fixtures ran the sampling probe');
    // The fixtures have 8 questions: pass@k (0/1 per question) has its Wilson interval, pass@1 none (no bootstrap below 20 questions).
    for (const p of t.points) assert.ok(p.passAt1Ci === null && p.passAtKCi && p.passAtKN > 0, `${p.label}: interval and n sent`);
    await evaluate(page, `window.postMessage(${JSON.stringify(message)}, '*')`);
    await waitFor(page, `document.querySelectorAll('.tj-passk-values li').length === ${t.points.length} && document.querySelector('canvas.tj-passk').width > 0`);

    const k = t.passAtKMax;
    const values = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.tj-passk-values li')).map((li) => li.textContent)`);
    assert.deepEqual(values, t.points.map((p) => `${p.label}: pass@1 ${shown(p.passAt1, p.passAt1Ci, p.passAtKN)} · pass@${k} ${shown(p.passAtK, p.passAtKCi, p.passAtKN)}`));
    const alt = await evaluate<string>(page, `document.querySelector('canvas.tj-passk').getAttribute('aria-label')`);
    for (const p of t.points) assert.ok(alt.includes(`pass@1 ${shown(p.passAt1, p.passAt1Ci, p.passAtKN)}`), alt);
    const caption = await evaluate<string>(page, `document.querySelector('canvas.tj-passk').closest('figure').querySelector('figcaption').textContent`);
    assert.match(caption, new RegExp(`over the ${t.points[0].passAtKN} questions that ran it; 95% intervals: Wilson where each question's value is 0 or 1, else bootstrap`));

    // The checkpoints table: the CLI's cells, the pass@ columns each with an interval and n.
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.rt-section[data-table="trajectory"] tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent))`);
    assert.deepEqual(rows, message.tables[0].rows);
    for (const row of rows) {
      assert.match(row[row.length - 2], /^\d+\.\d% \(n = \d+; no interval below 20 questions\)$/);
      assert.match(row[row.length - 1], /^\d+\.\d% \[\d+\.\d, \d+\.\d\] \(n = \d+\)$/);
    }
    assert.ok(await evaluate<boolean>(page, `document.querySelector('canvas.tj-rates').width > 0`));
    // Each probe's reachable line in the colour the panel's charts give that probe.
    const series = await probeSeries(page);
    const themeColour = await probeThemeColours(page);
    assert.deepEqual(series.map((x) => x.probe).sort(), [...t.probes].sort());
    for (const x of series) assert.equal(x.colour, themeColour[x.probe], `${x.probe} in ${x.chart}`);
    const passSeries = await evaluate<[string, string][]>(page, `JSON.parse(document.querySelector('canvas.tj-passk').dataset.series)`);
    assert.equal(passSeries.find(([label]) => label === `pass@${k}`)?.[1], themeColour[t.passAtKProbe!], 'pass@k in its probe\'s colour');

    // The hostile label is text everywhere, and nothing ran.
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('img').length`), 0);
    assert.ok(values[1].startsWith(HOSTILE));
    assert.deepEqual(await evaluate(page, 'window.__harness.violations'), [], 'no Content-Security-Policy violations');
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
    assert.deepEqual(await evaluate(page, 'window.__harness.alerts'), [], 'no alert() ran');
    assert.deepEqual(browser.problems, [], 'no console errors, failed requests or dialogs');
  });

  test('Tables tab: random routes vs search shows the gain-set verdict the headline counts, all questions beside', async () => {
    // 300 questions: both probes reach the 200 realized; on the 100 others routes reach 3, search 10.
    // Over all 300 the difference reads "equivalent"; on the gain set it is inconclusive, and the headline counts that.
    const probe = (ok: boolean) => ({ budget: 1, attempts: [deployed(ok)], correct: [ok], cost: { generations: 1, tokens: 1, blockApplications: 1 } });
    const records = Array.from({ length: 300 }, (_, i) => {
      const [realized, r, s] = i < 200 ? [true, true, true] : i < 203 ? [false, true, false] : i < 213 ? [false, false, true] : [false, false, false];
      return testRecord(`q${i}`, i + 1, { realized: deployed(realized), probes: { routes: probe(r), search: probe(s) }, reachable: { routes: r, search: s } });
    });
    const run: RunForTables = { folder: '/runs/diluted', model: HOSTILE, dataset: 'arith.jsonl', seed: 1, records, finished: true };
    const view = routesVsSearchView(routesVsSearchTable([run]));
    await evaluate(page, `window.postMessage(${JSON.stringify({ type: 'showTab', tab: 'tables' })}, '*')`);
    await evaluate(page, `window.postMessage(${JSON.stringify({ type: 'showTables', sources: ['/runs/diluted'], tables: [view], warnings: [] })}, '*')`);
    await waitFor(page, `document.querySelectorAll('.rt-section[data-table="routes-vs-search"] tbody tr').length === 1`);
    const headline = await evaluate<string>(page, `document.querySelector('.rt-section[data-table="routes-vs-search"] .rt-headline').textContent`);
    assert.equal(headline, 'Search at reward 0/1 (per question: generations 1 routes / 1 search, block applications 1 / 1): random routes non-inferior to search (gain set, Holm-adjusted over the 1 reward 0/1 setting, margin ±5 pts; "search better" unadjusted) in 0 of 1 settings; search better in 0; 1 inconclusive.');
    const cells = await evaluate<Record<string, string>>(page, `(() => { const s = document.querySelector('.rt-section[data-table="routes-vs-search"]'); const hs = Array.from(s.querySelectorAll('thead th')).map((x) => x.textContent); const cs = Array.from(s.querySelectorAll('tbody tr')[0].children).map((x) => x.textContent); return Object.fromEntries(hs.map((x, i) => [x, cs[i]])); })()`);
    assert.equal(cells['gain set n'], '100');
    assert.equal(cells['gain set: only routes / only search'], '3 / 10');
    assert.match(cells['gain set: routes − search (pts) [95% CI]'], /^-7\.0 \[-\d+\.\d, [-+]\d+\.\d\]$/);
    assert.match(cells.verdict, /^inconclusive at ±5 pts/);
    assert.match(cells['all questions: routes − search (pts) [95% CI] · verdict'], /^-2\.3 \[.*\] p \d\.\d+ · equivalent within ±5 pts$/);
    assert.match(cells['routes non-inferior'], /^inconclusive/);
    assert.equal(cells.model, HOSTILE, 'a model name with markup stays text');
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('img').length`), 0);
    assert.deepEqual(await evaluate(page, 'window.__harness.violations'), [], 'no Content-Security-Policy violations');
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
  });

  test('a trajectory of one checkpoint (a watched run after its first audit) is drawn, with no step yet', async () => {
    const one = buildTrajectoryMessage([{ label: 'checkpoint-100', folder: path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base') }], 'watch');
    await evaluate(page, `window.postMessage(${JSON.stringify(one)}, '*')`);
    await waitFor(page, `(document.querySelector('.tj-title')?.textContent ?? '').endsWith('· 1 checkpoint') && document.querySelector('canvas.tj-rates').width > 0`);
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('.tj-step').length`), 0);
    assert.equal(await evaluate<string>(page, `document.querySelector('.tj-steps').textContent`), 'Questions that moved between checkpoints: with the second checkpoint.');
    assert.deepEqual(one.tables[1].notes.slice(1), ['One checkpoint so far: the first step appears with the second checkpoint.']);
    assert.match(one.tables[0].notes[0], /^1 checkpoint in training order/);
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.rt-section[data-table="trajectory"] tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent))`);
    assert.deepEqual(rows, one.tables[0].rows);
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
    assert.deepEqual(browser.problems, [], 'no console errors, failed requests or dialogs');
  });

  test('one row per c with intervals and n, the own c marked, the sign statement above; names stay text', async () => {
    const message = sweepMessage();
    const sweep = message.tables.find((t) => t.id === 'search-sweep')!;
    assert.ok(sweep, 'the sweep table is built');
    await evaluate(page, `window.postMessage(${JSON.stringify(message)}, '*')`);
    await waitFor(page, `document.querySelectorAll('.rt-section[data-table="search-sweep"] tbody tr').length === 4`);
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.rt-section[data-table="search-sweep"] tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent))`);
    assert.deepEqual(rows, sweep.rows);
    assert.deepEqual(rows.map((r) => r[4]), ['0.2', '0.6', "1.8 (the probe's)", '5.4']);
    for (const r of rows) for (const cell of [r[5], r[6]]) assert.match(cell, /^\d+\.\d% \[\d+\.\d, \d+\.\d\] \(n = 30\)$/);
    const headline = await evaluate<string>(page, `document.querySelector('.rt-section[data-table="search-sweep"] .rt-headline').textContent`);
    // Which side of 0 at which c, in words (it read "keeps one side of 0 (or stays across it) … in 0 of 1 settings").
    assert.equal(headline, 'Which reaches more depends on c: the search reaches more at c = 0.2; no difference is shown at c = 0.6, 1.8, 5.4 (95% intervals of routes − search against 0).');
    assert.equal(rows[0][0], HOSTILE_MODEL);
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('img').length`), 0);
    assert.deepEqual(await evaluate(page, 'window.__harness.violations'), [], 'no Content-Security-Policy violations');
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
    assert.deepEqual(browser.problems, [], 'no console errors, failed requests or dialogs');
  });
  test('Trajectory tab, Δpass@k against the first checkpoint: under 20 paired questions said, not drawn (the comparison\'s rule)', async () => {
    const few = buildTrajectoryMessage(
      [
        { label: 'base', folder: path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base') },
        { label: HOSTILE, folder: path.join(FIXTURES, '2026-12-01T10-15-00Z-demo-tuned') },
      ],
      'fixtures',
    );
    assert.equal(few.trajectory.passAtKDeltas![0].curves[0].n, 8, 'the fixtures pair 8 questions');
    await evaluate(page, `window.postMessage(${JSON.stringify(few)}, '*')`);
    await waitFor(page, `document.querySelector('.tj-delta-few') !== null`);
    const text = await evaluate<string>(page, `document.querySelector('.tj-deltas').textContent`);
    assert.ok(text.includes(`${HOSTILE} − base: pass@k along k`), text);
    assert.ok(text.includes('Fewer than 20 paired questions (n = 8): the differences along k are not drawn'), text);
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('.tj-deltas canvas, .tj-deltas table').length`), 0, 'no chart, no table of points');
    assert.doesNotMatch(text, /\[[−+]\d/, 'no interval');
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('img').length`), 0);
  });

  test('Trajectory tab, Δpass@k against the first checkpoint: from 20 paired questions every checkpoint\'s curves are drawn, each Δ with its interval, and where they cross', async () => {
    const runs = [
      makeSyntheticRun({ n: 40, budget: 4, seed: 5, runId: 'step-0', label: 'step-0' }),
      makeSyntheticRun({ n: 40, budget: 4, seed: 5, runId: 'step-1', label: 'step-1', realizedBias: 0.1 }),
      makeSyntheticRun({ n: 40, budget: 4, seed: 5, runId: 'step-2', label: 'step-2', realizedBias: 0.15, reachBias: -0.13 }),
    ];
    const result = trajectory(runs.map((r) => ({ label: r.label!, folder: `/runs/${r.runId}`, records: r.records })), { alongK: true });
    const message = { type: 'showTrajectory', source: 'synthetic', trajectory: result, tables: [], warnings: [] };
    await evaluate(page, `window.postMessage(${JSON.stringify(message)}, '*')`);
    await waitFor(page, `document.querySelectorAll('.tj-delta canvas').length === 2 && Array.from(document.querySelectorAll('.tj-delta canvas')).every((c) => c.width > 0)`);
    for (const step of result.passAtKDeltas!) {
      assert.equal(step.base, 'step-0');
      const shown = await evaluate<{ head: string[]; rows: string[][]; crossings: string[] }>(page, `(() => { const s = document.querySelector('.tj-delta[data-checkpoint="${step.label}"]'); return {
        head: Array.from(s.querySelectorAll('thead th')).map((x) => x.textContent),
        rows: Array.from(s.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent)),
        crossings: Array.from(s.querySelectorAll('.compare-crossings li')).map((li) => li.textContent) }; })()`);
      assert.deepEqual(shown.head, ['k', ...step.curves.map((c) => `Δ ${c.what}`)]);
      assert.deepEqual(shown.rows, [1, 2, 3, 4].map((k, i) => [String(k), ...step.curves.map((c) => deltaAtKCell(c.points[i]))]));
      for (const row of shown.rows) for (const cell of row.slice(1)) assert.match(cell, /\[[−+]\d+\.\d, [−+]\d+\.\d\]$/, 'every Δ with its interval at n = 40');
      assert.deepEqual(shown.crossings, step.curves.map(crossingSentence));
    }
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
    assert.deepEqual(browser.problems, [], 'no console errors, failed requests or dialogs');
  });
});
