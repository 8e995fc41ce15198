/**
 * The Tables page shows the exploration sweep (--search-sweep) as `reach-audit table` builds it:
 * the search's reach at each c beside random routes, the probe's own c marked, each rate with its
 * interval and n, the sign statement above it; a hostile model name stays text (Chromium, strict CSP).
 * Run: npx tsc -p . && node --test out/test/webview/searchSweepTable.test.js
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { tableSet } from '../../src/audit/report/tableSet';
import type { ProbeResult, TableData } from '../../src/contract';
import { deployed, testRecord } from '../support/questionRecord';
import { buildBundles, launchBrowser, openPanel, waitFor, type Browser, type Bundles, type Harness, startHarness } from './harness';

const HOSTILE = 'base <img src=x onerror=alert(1)>';

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

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
  const { views } = tableSet([{ folder: '/runs/base', model: HOSTILE, dataset: 'd.jsonl', seed: 0, records, finished: true, searchC: 1.8 }], []);
  const tables: TableData[] = views.map((v) => ({ id: v.id, title: v.title, notes: v.notes, headers: v.headers, rows: v.rows, apart: v.apart }));
  return { type: 'showTables', sources: ['/runs/base'], tables, warnings: [] };
}

describe('Tables page: the exploration sweep (Chromium, strict CSP)', () => {
  let bundles: Bundles;
  let harness: Harness;
  let browser: Browser;
  let page: Page;

  before(async () => {
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
    assert.equal(headline, 'routes − search keeps one side of 0 (or stays across it) over every c in 0 of 1 settings.');
    assert.equal(rows[0][0], HOSTILE);
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('img').length`), 0);
    assert.deepEqual(await evaluate(page, 'window.__harness.violations'), [], 'no Content-Security-Policy violations');
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
    assert.deepEqual(browser.problems, [], 'no console errors, failed requests or dialogs');
  });
});
