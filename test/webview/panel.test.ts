/**
 * The audit panel in Debian's Chromium, under the extension's CSP, with a fake VS Code host:
 * a 10,000-question run, filter/search/sort, keyboard navigation, the reveal message, dataset
 * strings that look like HTML, state restore after a reload, a live run, the charts, and a
 * checkpoint comparison (deltas, the transition table filtering the table, its chip).
 * Timings here are generous sanity bounds; the measured medians come from bench.ts.
 * Run: npx tsc -p . && node --test out/test/webview/
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildBundles, launchBrowser, openPanel, postedMessages, startHarness, waitFor, type Browser, type Bundles, type Harness } from './harness';
import { pointsInterval, pValueClause, pValueText, signedPoints } from '../../webview/src/comparison/comparisonModel';
import { crossingSentence, deltaAtKCell } from '../../webview/src/comparison/passAtKDeltaText';
import { pairedVerdictText } from '../../src/contract';
import { makeSyntheticComparison } from './syntheticComparison';
import { makeSyntheticRun, XSS_IMG, XSS_SCRIPT } from './syntheticRun';
import { probeSeries, probeThemeColours } from './probeSeries';

const BIG = { n: 10000, budget: 8, seed: 7, runId: 'run-10k', label: 'synthetic 10k' };

interface PostTiming {
  rowsMs: number;
  frameMs: number;
  allMs: number;
  rendered: number;
}

interface QueryTiming {
  ms: number;
  shown: string;
}

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

async function loadBig(page: Page): Promise<PostTiming> {
  await evaluate(page, `window.__probes.makeRun(${JSON.stringify(BIG)})`);
  // As the extension sends a large run: the first 500 records, then batches of 2,000.
  return evaluate<PostTiming>(page, 'window.__probes.postRun({ chunk: 500, batch: 2000 })');
}

/** A checkpoint comparison of two 400-question runs; one question's id looks like HTML (ids are data too). */
const XSS_ID = `q-${XSS_IMG}`;
const COMPARED = (() => {
  const tuned = makeSyntheticRun({ n: 400, budget: 4, seed: 5, runId: 'tuned', label: 'tuned', realizedBias: 0.15, reachBias: -0.13 });
  const base = makeSyntheticRun({ n: 400, budget: 4, seed: 5, runId: 'base', label: 'base' });
  for (const run of [tuned, base]) run.records[1].id = XSS_ID;
  return { tuned, base };
})();
const COMPARISON = makeSyntheticComparison(COMPARED.base, COMPARED.tuned);
// A curve whose name is markup (a comparison.json is read from disk): it must stay text.
const ALONG_K = COMPARISON.passAtKDeltas!;
ALONG_K.push({ ...ALONG_K[0], what: XSS_IMG });

async function postComparison(page: Page, count = '400 questions'): Promise<void> {
  await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: COMPARED.tuned, baseRun: COMPARED.base, compare: COMPARISON })})`);
  await waitFor(page, `document.querySelector('.count').textContent === ${JSON.stringify(count)}`);
}

/** As the panel writes a share: one decimal, in percent. */
const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;

async function selectedId(page: Page): Promise<string | null> {
  return evaluate<string | null>(page, `(() => { const r = document.querySelector('.qt-body-row.selected .col-id'); return r ? r.textContent : null; })()`);
}

async function lastMessage(page: Page, type: string): Promise<Record<string, unknown> | undefined> {
  return (await postedMessages(page)).filter((m) => m.type === type).pop();
}

async function assertClean(page: Page, browser: Browser): Promise<void> {
  assert.deepEqual(await evaluate(page, 'window.__harness.violations'), [], 'no Content-Security-Policy violations');
  assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
  assert.deepEqual(await evaluate(page, 'window.__harness.alerts'), [], 'no alert() ran');
  assert.deepEqual(browser.problems, [], 'no console errors, failed requests or dialogs');
}

describe('audit panel (Chromium, strict CSP)', () => {
  let bundles: Bundles;
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  const expected = makeSyntheticRun(BIG);

  before(async () => {
    bundles = await buildBundles();
    harness = await startHarness(bundles);
    browser = await launchBrowser();
    page = browser.page;
  });

  after(async () => {
    await browser?.close();
    await harness?.close();
    if (bundles) await rm(bundles.dir, { recursive: true, force: true });
  });

  test('shows the first rows of a 10,000-question run, rendering only the rows in view', async () => {
    await openPanel(page, harness);
    const timing = await loadBig(page);
    assert.ok(timing.rendered > 10 && timing.rendered < 120, `virtualized: ${timing.rendered} row elements for 10,000 questions`);
    assert.ok(timing.frameMs < 3000, `first rows after ${timing.frameMs.toFixed(0)} ms (target 1 s; bench.ts measures the median)`);
    assert.equal(await evaluate(page, `document.querySelector('.qt').getAttribute('aria-rowcount')`), '10001');
    assert.equal(await evaluate(page, `document.querySelector('.count').textContent`), '10,000 questions');
    assert.equal(await evaluate(page, `document.querySelector('.qt-body-row[aria-rowindex="2"] .col-id').textContent`), 'q-00000');
    await assertClean(page, browser);
  });

  test('filters by state and searches, with the counts the records give', async () => {
    const unreached = expected.records.filter((r) => !r.realized.correct && !Object.values(r.reachable ?? {}).some(Boolean)).length;
    const filtered = await evaluate<QueryTiming>(page, `window.__probes.timeFilter('unreached')`);
    assert.equal(filtered.shown, `${unreached.toLocaleString('en-US')} of 10,000 questions`);
    assert.ok(filtered.ms < 1000, `filter answered in ${filtered.ms.toFixed(1)} ms`);
    const chips = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.qt-body-row:not([hidden]) .col-state')).map((c) => c.textContent)`);
    assert.ok(chips.length > 0 && chips.every((t) => t.includes('unreached')), 'every shown row is unreached');

    await evaluate(page, `window.__probes.timeFilter('all')`);
    const apples = expected.records.filter((r) => `${r.id}\u0000${r.question}\u0000${r.gold}\u0000${r.realized.answer ?? ''}`.toLowerCase().includes('apples')).length;
    const searched = await evaluate<QueryTiming>(page, `window.__probes.timeSearch('Apples')`);
    assert.equal(searched.shown, `${apples.toLocaleString('en-US')} of 10,000 questions`);
    assert.ok(searched.ms < 1000, `search answered in ${searched.ms.toFixed(1)} ms`);

    // Typing in the real text field (shadow DOM input) drives the same search.
    await page.locator('vscode-text-field.search input').fill('q-04242');
    await waitFor(page, `document.querySelector('.count').textContent === '1 of 10,000 questions'`);
    assert.equal(await evaluate(page, `document.querySelector('.qt-body-row:not([hidden]) .col-id').textContent`), 'q-04242');
    await page.locator('vscode-text-field.search input').fill('');
    await waitFor(page, `document.querySelector('.count').textContent === '10,000 questions'`);
  });

  test('sorts by a column header, toggling the direction', async () => {
    await page.locator('.qt-sort', { hasText: 'Gold' }).click();
    assert.equal(await evaluate(page, `document.querySelector('.col-gold[role=columnheader]').getAttribute('aria-sort')`), 'ascending');
    const golds = expected.records.map((r) => Number(r.gold)).sort((a, b) => a - b);
    assert.equal(await evaluate(page, `document.querySelector('.qt-body-row[aria-rowindex="2"] .col-gold').textContent`), String(golds[0]));
    await page.locator('.qt-sort', { hasText: 'Gold' }).click();
    assert.equal(await evaluate(page, `document.querySelector('.col-gold[role=columnheader]').getAttribute('aria-sort')`), 'descending');
    assert.equal(await evaluate(page, `document.querySelector('.qt-body-row[aria-rowindex="2"] .col-gold').textContent`), String(golds[golds.length - 1]));
    await page.locator('.qt-sort', { hasText: 'Id' }).click();
    assert.equal(await evaluate(page, `document.querySelector('.qt-body-row[aria-rowindex="2"] .col-id').textContent`), 'q-00000');
  });

  test('clicking rows selects each and shows its detail without opening the dataset; double-click and the button reveal', async () => {
    // Walkthrough defect 2: a click replaced the panel with the dataset. Clicking through rows only reads them.
    const revealsBefore = (await postedMessages(page)).filter((m) => m.type === 'revealQuestion' || m.type === 'openDetail').length;
    for (const id of ['q-00003', 'q-00004', 'q-00005']) {
      await page.locator('.qt-body-row', { hasText: id }).click();
      assert.equal(await selectedId(page), id);
      assert.equal(await evaluate(page, `document.querySelector('.detail-title h2').textContent`), `Question ${id}`);
    }
    assert.equal((await postedMessages(page)).filter((m) => m.type === 'revealQuestion' || m.type === 'openDetail').length, revealsBefore, 'a click posts no reveal');
    await page.locator('.qt-body-row', { hasText: 'q-00005' }).dblclick();
    assert.deepEqual(await lastMessage(page, 'revealQuestion'), { type: 'revealQuestion', runId: BIG.runId, id: 'q-00005', line: 6 });
    assert.equal(await evaluate(page, `document.querySelector('.detail-title h2').textContent`), 'Question q-00005');
    const record = expected.records[5];
    const detailText = await evaluate<string>(page, `document.querySelector('.detail').textContent`);
    assert.ok(detailText.includes(record.realized.output.split('\n')[0]), 'deployed output shown');
    assert.ok(detailText.includes(`budget ${BIG.budget}`), 'probe budgets shown');
    // The detail pane's button posts the same message.
    await page.locator('.detail vscode-button', { hasText: 'Reveal in dataset' }).click();
    const reveals = (await postedMessages(page)).filter((m) => m.type === 'revealQuestion');
    assert.deepEqual(reveals[reveals.length - 1], { type: 'revealQuestion', runId: BIG.runId, id: 'q-00005', line: 6 });
  });

  test('keyboard: arrows move the selection, Enter reveals, focus is visible', async () => {
    await page.locator('.qt').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    assert.equal(await selectedId(page), 'q-00008');
    await page.keyboard.press('ArrowUp');
    assert.equal(await selectedId(page), 'q-00007');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastMessage(page, 'revealQuestion'), { type: 'revealQuestion', runId: BIG.runId, id: 'q-00007', line: 8 });
    const activeDescendant = await evaluate<string>(page, `document.querySelector('.qt').getAttribute('aria-activedescendant')`);
    assert.equal(await evaluate(page, `document.getElementById(${JSON.stringify(activeDescendant)}).getAttribute('aria-selected')`), 'true');
    await page.keyboard.press('End');
    assert.equal(await selectedId(page), 'q-09999');
    await page.keyboard.press('Home');
    assert.equal(await selectedId(page), 'q-00000');
    const outline = await evaluate<string>(page, `getComputedStyle(document.querySelector('.qt-body-row.selected')).outlineStyle`);
    assert.notEqual(outline, 'none', 'the selected row shows a focus outline while the grid has keyboard focus');
  });

  test('dataset strings that look like HTML render as text in the table and the detail pane', async () => {
    await evaluate(page, `window.__probes.timeSearch('onerror')`);
    const cells = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.qt-body-row:not([hidden]) .col-question')).map((c) => c.textContent)`);
    assert.ok(cells.length > 0 && cells.every((t) => t.includes(XSS_IMG)), 'question cells hold the literal text');
    await page.locator('.qt-body-row', { hasText: 'q-00000' }).click();
    const question = await evaluate<string>(page, `document.querySelector('.question-text').textContent`);
    assert.ok(question.includes(XSS_IMG) && question.includes(XSS_SCRIPT), 'detail pane holds the literal text');
    await page.locator('.detail details.attempt-details summary').first().click();
    // The output is built on the details' toggle event, which fires after the click returns.
    await page.waitForSelector('.detail details.attempt-details pre');
    assert.ok((await evaluate<string>(page, `document.querySelector('.detail details.attempt-details pre').textContent`)).includes(XSS_IMG), 'a model output that looks like HTML stays text');
    assert.equal(await evaluate(page, `document.querySelectorAll('img').length`), 0, 'no <img> element was created');
    assert.equal(await evaluate(page, `document.querySelectorAll('script').length`), 4, 'no <script> element beyond the four the page loads');
    assert.equal(await evaluate(page, `document.querySelectorAll('[onerror]').length`), 0);
    await evaluate(page, `window.__probes.timeSearch('')`);
    await assertClean(page, browser);
  });

  test('charts tab draws every chart with its numbers, under the CSP', async () => {
    await page.locator('vscode-panel-tab#tab-charts').click();
    await page.waitForSelector('.card canvas');
    const titles = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.card h3')).map((h) => h.textContent)`);
    assert.deepEqual(titles, ['Question states', 'Reachable vs answer-blind selection', 'pass@k', 'Random routes vs search at matched budget', 'Repair and damage by block', 'Failure set × block repair map']);
    const realizedRow = await evaluate<string[]>(page, `Array.from(document.querySelector('.card .numbers tbody tr').children).map((c) => c.textContent)`);
    const realized = expected.records.filter((r) => r.realized.correct).length;
    assert.equal(realizedRow[0], 'Realized');
    assert.equal(realizedRow[1], `${((realized / 10000) * 100).toFixed(1)}%`);
    assert.match(realizedRow[2], /^\[\d+\.\d–\d+\.\d\]$/, 'with its Wilson interval');
    assert.equal(realizedRow[3], `${realized.toLocaleString('en-US')}/10,000`, 'and its n');
    // pass@k from the records is summary.json's (the table has no column repeating it).
    const passRows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.card:nth-child(3) .numbers tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    assert.ok(passRows.length > 0 && passRows.every((r) => r.length === 5), JSON.stringify(passRows[0]));
    for (const [probe, k, shown] of passRows) assert.equal(shown, pct(expected.summary!.passAtK[probe][k]), `pass@${k} of ${probe}`);
    // One probe, one colour: every chart draws each probe's series in the probe's theme colour.
    const series = await probeSeries(page);
    const themeColour = await probeThemeColours(page);
    assert.deepEqual([...new Set(series.map((x) => x.probe))].sort(), ['routes', 'sample', 'search']);
    assert.ok(new Set(series.map((x) => x.chart.replace(/ #\d+$/, ''))).size >= 2, JSON.stringify(series));
    for (const x of series) assert.equal(x.colour, themeColour[x.probe], `${x.probe} in ${x.chart}`);
    // The repair map: its label counts the failure set it draws; the pointer over a cell names it.
    const mapLabel = await evaluate<string>(page, `document.querySelector('.heatmap-canvas').getAttribute('aria-label')`);
    assert.match(mapLabel, /^Repair map of [\d,]+ failure-set questions over \d+ blocks\. Most repairs by block \d+: \d+ of [\d,]+\.$/);
    const box = await page.locator('.heatmap-canvas').first().boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + 2, box.y + 16 + 1);
    assert.match(await evaluate<string>(page, `document.querySelector('.heatmap-hover').textContent`), /^Question q-\d+, block 0: (repaired|not repaired|not scanned) — /);
    await page.locator('vscode-panel-tab#tab-questions').click();
    await assertClean(page, browser);
  });

  test('state (sort, filter, search, selection, scroll, tab) comes back after a reload', async () => {
    await page.locator('.qt-sort', { hasText: 'Gold' }).click();
    await page.locator('.qt-sort', { hasText: 'Gold' }).click();
    await evaluate(page, `window.__probes.timeFilter('failureSet')`);
    await evaluate(page, `window.__probes.timeSearch('apples')`);
    await evaluate(page, `window.__probes.timeScroll(26 * 40)`);
    await page.locator('.qt-body-row:not([hidden])').nth(12).click();
    const chosen = await selectedId(page);
    const scrollBefore = await evaluate<number>(page, `document.querySelector('.qt-viewport').scrollTop`);
    await page.waitForTimeout(400); // the scroll position is saved 300 ms after scrolling stops
    const stored = await evaluate<Record<string, unknown>>(page, 'window.__harness.storedState()');
    assert.deepEqual({ ...stored, scrollTop: undefined }, { sort: { key: 'gold', descending: true }, filter: 'failureSet', search: 'apples', truncatedOnly: false, selectedId: chosen, runId: BIG.runId, scrollTop: undefined, tab: 'questions' });
    assert.deepEqual(await lastMessage(page, 'persistState'), { type: 'persistState', state: stored });

    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    await loadBig(page);
    assert.equal(await evaluate(page, `document.querySelector('.col-gold[role=columnheader]').getAttribute('aria-sort')`), 'descending');
    assert.equal(await evaluate(page, `document.querySelector('vscode-dropdown.filter').value`), 'failureSet');
    assert.equal(await evaluate(page, `document.querySelector('vscode-text-field.search').value`), 'apples');
    assert.equal(await selectedId(page), chosen);
    assert.equal(await evaluate(page, `document.querySelector('.detail-title h2').textContent`), `Question ${chosen}`);
    assert.equal(await evaluate<number>(page, `document.querySelector('.qt-viewport').scrollTop`), scrollBefore);
    await assertClean(page, browser);
  });

  test("another run opens at its top, not at the previous run's scroll offset", async () => {
    await evaluate(page, `window.__probes.timeFilter('all')`);
    await evaluate(page, `window.__probes.timeSearch('')`);
    await evaluate(page, `window.__probes.timeScroll(26 * 400)`);
    await page.waitForTimeout(400); // saved 300 ms after scrolling stops
    assert.ok((await evaluate<{ scrollTop: number }>(page, 'window.__harness.storedState()')).scrollTop > 0);
    const other = makeSyntheticRun({ n: 2000, budget: 4, seed: 5, runId: 'other', label: 'other run' });
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: other })})`);
    await waitFor(page, `document.querySelector('.run-title')?.textContent === 'other run'`);
    assert.equal(await evaluate<number>(page, `document.querySelector('.qt-viewport').scrollTop`), 0);
    assert.equal(await evaluate<string>(page, `String(window.__harness.storedState().runId)`), 'other');
  });

  test('a live run fills the table batch by batch and shows its progress', async () => {
    await evaluate(page, 'window.__harness.clearState()');
    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    const live = makeSyntheticRun({ n: 300, budget: 4, seed: 3, runId: 'live', label: 'live run' });
    const empty = { ...live, records: [], summary: undefined };
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: empty })})`);
    await evaluate(page, `window.__probes.post({ type: 'runStatus', runId: 'live', status: 'running', done: 0, total: 300 })`);
    for (let start = 0; start < 300; start += 100) {
      const batch = live.records.slice(start, start + 100);
      await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'appendRecords', runId: 'live', records: batch })})`);
      await evaluate(page, `window.__probes.post({ type: 'runStatus', runId: 'live', status: 'running', done: ${start + 100}, total: 300 })`);
      await waitFor(page, `document.querySelector('.count').textContent === '${start + 100} questions'`);
    }
    // The status line follows the headline's count, redrawn on its own timer: wait for it rather than race it.
    await waitFor(page, `/Running · 300 \\/ 300/.test(document.querySelector('.run-status').textContent)`);
    assert.equal(await evaluate(page, `document.querySelectorAll('.run-status vscode-progress-ring').length`), 1);
    // Under 20 finished questions the headline is the question story (no metric tiles) until the stats timer catches up.
    await waitFor(page, `document.querySelector('.metric-n .metric-detail')?.textContent === 'live'`);
    await evaluate(page, `window.__probes.post({ type: 'runStatus', runId: 'live', status: 'cancelled', done: 300, total: 400 })`);
    await waitFor(page, `document.querySelector('.run-status').textContent.includes('Cancelled')`);
    await assertClean(page, browser);
  });

  test('comparing checkpoints shows both pass@k curves and the realized and ceiling deltas with intervals', async () => {
    await postComparison(page);
    // The headline is drawn after the table has painted.
    await waitFor(page, `document.querySelector('.headline').textContent.includes('Δ realized')`);
    const metrics = await evaluate<string>(page, `document.querySelector('.headline').textContent`);
    const { realized, reachableCeiling } = COMPARISON;
    assert.ok(metrics.includes(`Δ realized${signedPoints(realized.delta)}${pointsInterval(realized.ci)} n=400 · McNemar ${pValueClause(realized.mcnemarP)}`), metrics);
    assert.ok(metrics.includes(`Δ reachable ceiling${signedPoints(reachableCeiling.delta)}${pointsInterval(reachableCeiling.ci)} n=400`), metrics);
    await page.locator('.qt-body-row', { hasText: 'q-00002' }).click();
    assert.ok((await evaluate<string>(page, `document.querySelector('.detail').textContent`)).includes('In base'));
    await page.locator('vscode-panel-tab#tab-charts').click();
    await page.waitForSelector('.card canvas');
    const passLabels = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.card:nth-child(3) .numbers tbody tr td:first-child')).map((c) => c.textContent)`);
    assert.ok(passLabels.includes('routes (tuned)') && passLabels.includes('routes (base)'), 'pass@k rows for both checkpoints');
    await page.locator('vscode-panel-tab#tab-questions').click();
    await assertClean(page, browser);
  });

  test('the Comparison section shows each paired difference with n, its interval, McNemar p, lost, gained and the verdict with its margin', async () => {
    // A tab of its own beside the questions (above the table it had only the height the table left).
    assert.equal(await evaluate(page, `document.querySelector('#tab-comparison').hidden`), false);
    await page.locator('vscode-panel-tab#tab-comparison').click();
    assert.equal(await evaluate(page, `document.querySelector('.compare').hidden`), false);
    assert.equal(await evaluate(page, `document.querySelector('#view-comparison').hidden`), false);
    assert.match(await evaluate<string>(page, `document.querySelector('.compare-summary').textContent`), /base base → tuned tuned · n = 400 paired questions/);
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.compare-deltas tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    const expectedRows = [
      ['Realized', COMPARISON.realized],
      ['Reachable ceiling (realized or any probe)', COMPARISON.reachableCeiling],
      ...Object.entries(COMPARISON.reachable).map(([probe, d]) => [`Reachable · ${probe}`, d] as const),
    ] as const;
    assert.deepEqual(rows, expectedRows.map(([label, d]) => [label, pct(d.base), pct(d.tuned), signedPoints(d.delta), pointsInterval(d.ci), pValueText(d.mcnemarP), String(d.lost), String(d.gained), '400', pairedVerdictText(d.decision!)]));
    assert.equal(rows.length, 5, 'realized, the ceiling and three probes');
    for (const row of rows) assert.match(row[9], /^(better|worse|equivalent within ±5 pts|inconclusive at ±5 pts( \(≈ [\d,]+ questions to decide\))?)$/);

    // Random routes vs search on each checkpoint, decided on its gain set (the questions its deployment misses), all questions beside.
    const gain = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.compare-gain-set tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    assert.deepEqual(gain, (['base', 'tuned'] as const).map((label) => {
      const c = COMPARED[label].summary!.routesVsSearch!;
      const g = c.gainSet!;
      assert.equal(g.n, COMPARED[label].records.filter((r) => !r.realized.correct).length);
      return [label, String(g.n), `${g.onlyA} / ${g.onlyB}`, signedPoints(g.difference.estimate), pointsInterval(g.difference), pValueText(g.mcnemarP), pairedVerdictText(g.decision), pairedVerdictText(c.decision!)];
    }));

    const newly = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.compare-newly tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    const { alreadyReachable, newlyReachable, n } = COMPARISON.newlyRealized;
    const wilsonText = (r: { ci: { lo: number; hi: number } }) => `[${(r.ci.lo * 100).toFixed(1)}–${(r.ci.hi * 100).toFixed(1)}]`;
    assert.deepEqual(newly, [
      ['already reachable by base', String(alreadyReachable.ids.length), pct(alreadyReachable.rate), wilsonText(alreadyReachable), String(n)],
      ['newly reachable', String(newlyReachable.ids.length), pct(newlyReachable.rate), wilsonText(newlyReachable), String(n)],
    ]);
    assert.equal(await evaluate(page, `document.querySelector('.compare-block:nth-child(3) h3').textContent`), `Newly realized (${n})`);
  });

  test('the Comparison section draws tuned − base pass@k along k: a chart, and a table of every Δ with its interval and n, and where the curves cross', async () => {
    await waitFor(page, `document.querySelector('.compare-pass-at-k canvas') !== null`);
    const headers = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.compare-pass-at-k-delta thead th')).map((c) => c.textContent)`);
    assert.deepEqual(headers, ['k', ...ALONG_K.map((c) => `Δ ${c.what}`)]);
    assert.deepEqual(ALONG_K.slice(0, -1).map((c) => c.what), ['realized', 'sample', 'routes', 'search', 'ceiling']);
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.compare-pass-at-k-delta tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    assert.deepEqual(rows, ALONG_K[0].points.map((p, i) => [String(p.k), ...ALONG_K.map((c) => deltaAtKCell(c.points[i]))]));
    assert.equal(rows.length, 4, 'k = 1..B (B = 4)');
    // n = 400: every fractional pass@k has a bootstrap interval, every 0/1 one Newcombe's: no cell without an interval.
    assert.ok(rows.flat().every((cell) => !cell.includes('no interval')), JSON.stringify(rows));
    const crossings = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.compare-crossings li')).map((l) => l.textContent)`);
    assert.deepEqual(crossings, ALONG_K.map(crossingSentence));
    assert.ok(crossings.every((c) => c.includes('n = 400')));
    assert.match(await evaluate<string>(page, `document.querySelector('.compare-pass-at-k').closest('.compare-block').querySelector('.card-note').textContent`), /paired over n = 400 questions.*95% intervals/);
    const series = JSON.parse(await evaluate<string>(page, `document.querySelector('.compare-pass-at-k canvas').dataset.series`)) as [string, string][];
    assert.deepEqual(series.map(([label]) => label), ALONG_K.map((c) => c.what));
    // Each named curve its own colour (the ceiling once shared the sample probe's blue).
    const named = series.slice(0, 5);
    assert.equal(new Set(named.map(([, colour]) => colour)).size, named.length, JSON.stringify(named));
    // The hostile curve name is text: no element was made of it, no script ran.
    assert.equal(await evaluate(page, `document.querySelectorAll('.compare-pass-at-k img').length`), 0);
    await assertClean(page, browser);
  });

  test('the transition table counts each cell’s ids; a cell filters the table to exactly them and the chip clears it', async () => {
    const counts = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.transitions tbody tr')).map((r) => Array.from(r.querySelectorAll('td')).map((c) => c.textContent))`);
    const states = ['realized', 'reachable', 'unreached'] as const;
    const t = COMPARISON.transitions;
    assert.deepEqual(counts, states.map((from) => [...states.map((to) => String(t[from][to].length)), String(states.reduce((s, to) => s + t[from][to].length, 0))]));
    const footer = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.transitions tfoot td')).map((c) => c.textContent)`);
    assert.deepEqual(footer, [...states.map((to) => String(states.reduce((s, from) => s + t[from][to].length, 0))), '400']);

    const ids = t.reachable.realized;
    assert.ok(ids.length > 1, 'the synthetic pair has questions that moved from reachable to realized');
    const cell = page.locator('.transitions button[data-key="transition:reachable>realized"]');
    await page.locator('vscode-panel-tab#tab-comparison').click();
    await cell.click();
    await waitFor(page, `document.querySelector('.count').textContent === '${ids.length} of 400 questions'`);
    // The count's questions show in the Questions tab.
    await waitFor(page, `!document.querySelector('#view-questions').hidden && document.querySelector('#view-comparison').hidden`);
    assert.equal(await cell.getAttribute('aria-pressed'), 'true');
    assert.equal(await evaluate(page, `document.querySelector('.filter-chip').hidden`), false);
    assert.equal(await evaluate(page, `document.querySelector('.filter-chip-label').textContent`), `base reachable → tuned realized (${ids.length})`);
    const visible = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.qt-body-row:not([hidden]) .col-id')).map((c) => c.textContent)`);
    assert.ok(visible.length > 0 && visible.every((id) => ids.includes(id)), 'every row in view is one of the cell’s questions');
    // The export of "the questions shown" names exactly the cell's ids.
    await page.locator('vscode-button', { hasText: 'Export CSV' }).click();
    const exported = (await lastMessage(page, 'requestExport'))?.ids as string[];
    assert.deepEqual(exported.slice().sort(), ids.slice().sort());

    // The state filter still applies on top of the id set.
    await evaluate(page, `window.__probes.timeFilter('unrealized')`);
    assert.equal(await evaluate(page, `document.querySelector('.count').textContent`), `0 of 400 questions`, 'every tuned-realized question is realized');
    await evaluate(page, `window.__probes.timeFilter('all')`);

    await page.locator('.filter-chip-clear').click();
    await waitFor(page, `document.querySelector('.count').textContent === '400 questions'`);
    assert.equal(await evaluate(page, `document.querySelector('.filter-chip').hidden`), true);
    assert.equal(await cell.getAttribute('aria-pressed'), 'false');

    // A part of the newly realized split filters the same way; pressing it again clears it.
    const already = COMPARISON.newlyRealized.alreadyReachable.ids;
    const newlyCell = page.locator('.compare-newly button[data-key="newly:alreadyReachable"]');
    await page.locator('vscode-panel-tab#tab-comparison').click();
    await newlyCell.click();
    await waitFor(page, `document.querySelector('.count').textContent === '${already.length} of 400 questions'`);
    assert.equal(await evaluate(page, `document.querySelector('.filter-chip-label').textContent`), `newly realized, already reachable by base (${already.length})`);
    // Pressed again (back in the Comparison tab), it clears the filter and stays.
    await page.locator('vscode-panel-tab#tab-comparison').click();
    await newlyCell.click();
    assert.equal(await evaluate(page, `document.querySelector('#view-comparison').hidden`), false);
    await waitFor(page, `document.querySelector('.count').textContent === '400 questions'`);
    await assertClean(page, browser);
  });

  test('keyboard: transition counts are buttons Enter and Space press; the filter survives a reload', async () => {
    const ids = COMPARISON.transitions.unreached.unreached;
    const cell = page.locator('.transitions button[data-key="transition:unreached>unreached"]');
    await page.locator('vscode-panel-tab#tab-comparison').click();
    // Reached by the keyboard (after the tab's mouse click a focus by script draws no outline).
    await cell.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    assert.equal(await evaluate(page, `document.activeElement.dataset.key`), 'transition:unreached>unreached');
    const outline = await evaluate<string>(page, `getComputedStyle(document.activeElement).outlineStyle`);
    assert.notEqual(outline, 'none', 'the focused cell shows a focus outline');
    await page.keyboard.press('Enter');
    await waitFor(page, `document.querySelector('.count').textContent === '${ids.length} of 400 questions'`);
    // The questions show in the Questions tab, the keyboard in their table.
    await waitFor(page, `document.activeElement && document.activeElement.classList.contains('qt')`);
    await page.waitForTimeout(50);
    assert.equal((await evaluate<Record<string, unknown>>(page, 'window.__harness.storedState()')).compareFilter, 'transition:unreached>unreached');

    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    await postComparison(page, `${ids.length} of 400 questions`);
    assert.equal(await evaluate(page, `document.querySelector('.filter-chip-label').textContent`), `base unreached → tuned unreached (${ids.length})`);
    assert.equal(await page.locator('.transitions button[data-key="transition:unreached>unreached"]').getAttribute('aria-pressed'), 'true');

    await page.locator('vscode-panel-tab#tab-comparison').click();
    await page.locator('.transitions button[data-key="transition:unreached>unreached"]').focus();
    await page.keyboard.press('Space');
    await waitFor(page, `document.querySelector('.count').textContent === '400 questions'`);
    // The Comparison tab is remembered too.
    await page.waitForTimeout(350);
    assert.equal((await evaluate<Record<string, unknown>>(page, 'window.__harness.storedState()')).tab, 'comparison');
    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    await postComparison(page);
    await waitFor(page, `!document.querySelector('#view-comparison').hidden && document.querySelector('#tab-comparison').getAttribute('aria-selected') === 'true'`);
    await page.locator('vscode-panel-tab#tab-questions').click();
    await assertClean(page, browser);
  });

  test('a question id that looks like HTML stays text through the transition filter, the table and the detail', async () => {
    const states = ['realized', 'reachable', 'unreached'] as const;
    const key = states.flatMap((from) => states.map((to) => [from, to] as const)).find(([from, to]) => COMPARISON.transitions[from][to].includes(XSS_ID))!;
    assert.ok(key, 'the HTML-looking id is in a transition');
    await page.locator('vscode-panel-tab#tab-comparison').click();
    await page.locator(`.transitions button[data-key="transition:${key[0]}>${key[1]}"]`).click();
    await page.locator('vscode-text-field.search input').fill('onerror');
    await waitFor(page, `Array.from(document.querySelectorAll('.qt-body-row:not([hidden]) .col-id')).some((c) => c.textContent === ${JSON.stringify(XSS_ID)})`);
    await page.locator('.qt-body-row', { has: page.locator('.col-id', { hasText: XSS_ID }) }).click();
    assert.equal(await evaluate(page, `document.querySelector('.detail-title h2').textContent`), `Question ${XSS_ID}`);
    assert.equal(await evaluate(page, `document.querySelectorAll('img').length`), 0, 'no <img> element was created');
    assert.equal(await evaluate(page, `document.querySelectorAll('[onerror]').length`), 0);
    await page.locator('vscode-text-field.search input').fill('');
    await page.locator('.filter-chip-clear').click();
    await waitFor(page, `document.querySelector('.count').textContent === '400 questions'`);
    await assertClean(page, browser);
  });

  test('without a comparison the section and the chip stay away', async () => {
    await page.locator('vscode-panel-tab#tab-comparison').click();
    await page.locator('.transitions button[data-key="transition:realized>realized"]').click();
    await page.locator('vscode-panel-tab#tab-comparison').click();
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: COMPARED.tuned, baseRun: COMPARED.base })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '400 questions'`);
    assert.equal(await evaluate(page, `document.querySelector('.compare').hidden`), true);
    // The Comparison tab goes with it, and the Questions tab shows in its place.
    assert.equal(await evaluate(page, `document.querySelector('#tab-comparison').hidden`), true);
    assert.equal(await evaluate(page, `document.querySelector('#view-questions').hidden`), false);
    assert.equal(await evaluate(page, `document.querySelector('.filter-chip').hidden`), true, 'a filter from another comparison does not apply');
    // The headline is redrawn shortly after the table: the deltas must go (waitFor fails if they stay).
    await waitFor(page, `!document.querySelector('.headline').textContent.includes('Δ')`, 3000);
    assert.ok((await evaluate<string>(page, `document.querySelector('.headline').textContent`)).includes('Realized'));
    await assertClean(page, browser);
  });

  test('a record missing optional parts still shows', async () => {
    await page.locator('vscode-panel-tab#tab-questions').click();
    const bare = { runId: 'bare', manifest: {}, records: [{ id: 7, line: 3, gold: '4', realized: { output: '2+2 is 5', answer: '5', correct: false } }] };
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: bare })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '1 question'`);
    await page.locator('.qt-body-row', { hasText: '7' }).click();
    const detailText = await evaluate<string>(page, `document.querySelector('.detail').textContent`);
    assert.ok(detailText.includes('No probe results'), detailText);
    await page.locator('.detail vscode-button', { hasText: 'Reveal in dataset' }).click();
    assert.deepEqual(await lastMessage(page, 'revealQuestion'), { type: 'revealQuestion', runId: 'bare', id: 7, line: 3 });
    await assertClean(page, browser);
  });

  test('an output cut while thinking shows its own state: one chip in the table, whole at the default width, and in the detail', async () => {
    await evaluate(page, 'window.__harness.clearState()');
    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    const run = makeSyntheticRun({ n: 12, budget: 4, seed: 3, runId: 'thinking', label: 'thinking' });
    // The widest set with a thought cut by the token limit: every probe reaching, every blind pick, three repairing blocks.
    const r = run.records[0];
    r.realized = { ...r.realized, output: '<think>16 - 3 = 13, then 13 + 5 = 18', answer: null, correct: false, truncated: true, thought: 'unfinished' };
    for (const probe of Object.keys(r.probes)) {
      r.probes[probe].correct[0] = true;
      r.probes[probe].attempts[0] = { ...r.probes[probe].attempts[0], correct: true, thought: 'finished' };
      r.reachable[probe] = true;
      for (const pick of Object.values(r.blind[probe])) pick.correct = true;
    }
    r.probes[Object.keys(r.probes)[0]].attempts[1] = { ...r.probes[Object.keys(r.probes)[0]].attempts[1], answer: null, correct: false, thought: 'unfinished' };
    const map = Object.fromEntries(Array.from({ length: 24 }, (_, b) => [String(b), b === 12 || b === 15 || b === 21]));
    r.repair = { ...r.repair!, inFailureSet: true, realized: false, correctBySilencedBlock: map };
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '12 questions'`);
    const cell = await evaluate<{ text: string; overflow: number; title: string }>(
      page,
      `(() => { const row = Array.from(document.querySelectorAll('.qt-body-row')).find((x) => x.querySelector('.col-id').textContent === ${JSON.stringify(r.id)}); const box = row.querySelector('.chips'); const chip = box.querySelector('.chip-thinking'); return { text: Array.from(box.children).map((c) => c.textContent).join(' | '), overflow: box.scrollWidth - box.clientWidth, title: chip ? chip.title : '' }; })()`,
    );
    assert.equal(cell.text, 'reach ×3 | blind ×6 | repair: L12 +2 | thinking…');
    assert.equal(cell.overflow, 0, 'the chip set fits the States column');
    assert.match(cell.title, /thought never closed \(it hit the token limit\): no answer was read/);
    // Other rows carry no such chip.
    assert.equal(await evaluate(page, `document.querySelectorAll('.qt-body-row .chip-thinking').length`), 1);
    await page.locator('.qt-body-row', { hasText: r.id }).click();
    const chips = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.detail-header .chip')).map((c) => c.textContent)`);
    assert.ok(chips.includes('cut while thinking') && chips.includes('truncated'), chips.join(' | '));
    const detail = await evaluate<string>(page, `document.querySelector('.detail').textContent`);
    assert.ok(detail.includes('cut while thinking: no answer read'), 'the deployed output\'s facts say so');
    await page.locator('.detail details.attempt-details summary').nth(1).click();
    await page.waitForSelector('.detail details.attempt-details pre');
    assert.ok((await evaluate<string>(page, `document.querySelectorAll('.detail details.attempt-details')[1].textContent`)).includes('cut while thinking'), 'an attempt cut while thinking says so');
    await evaluate(page, 'window.__harness.clearState()');
    await assertClean(page, browser);
  });

  test('long ids are cut in the middle with the whole id on hover; columns resize and the widths are kept', async () => {
    await evaluate(page, 'window.__harness.clearState()');
    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    const run = makeSyntheticRun({ n: 20, budget: 4, seed: 9, runId: 'long-ids', label: 'long ids' });
    run.records.forEach((r, i) => (r.id = `arith-A-benchmark-${String(i).padStart(4, '0')}`));
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '20 questions'`);
    const cell = await evaluate<{ text: string; title: string; tail: string; tailInside: boolean; cut: boolean }>(page, `(() => {
      const cell = document.querySelector('.qt-body-row[aria-rowindex="3"] .col-id');
      const box = cell.getBoundingClientRect(), tail = cell.querySelector('.mid-tail').getBoundingClientRect(), head = cell.querySelector('.mid-head');
      return { text: cell.textContent, title: cell.title, tail: cell.querySelector('.mid-tail').textContent, tailInside: tail.right <= box.right + 0.5 && tail.width > 0, cut: head.scrollWidth > head.clientWidth };
    })()`);
    const id = run.records[1].id;
    assert.deepEqual(cell, { text: id, title: id, tail: '-0001', tailInside: true, cut: true }, 'the distinguishing end of the id shows');
    // Every cell of the row carries its whole value on hover, the states in words.
    const titles = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.qt-body-row[aria-rowindex="3"] .qt-cell')).map((c) => c.title)`);
    assert.ok(titles.every((t) => t !== ''), JSON.stringify(titles));
    assert.match(titles[4], /: /);

    // Drag the id column's right edge 100 px: the id column widens, the whole id shows.
    const before = await evaluate<number>(page, `document.querySelector('.qt-header .col-id').getBoundingClientRect().width`);
    const grip = page.locator('.qt-header .col-id .qt-resize');
    // hover() waits until the handle is stable and is what the pointer hits, so the drag starts on it.
    await grip.hover();
    const handle = await grip.boundingBox();
    assert.ok(handle);
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(handle.x + handle.width / 2 + 50, handle.y + handle.height / 2, { steps: 4 });
    await page.mouse.move(handle.x + handle.width / 2 + 100, handle.y + handle.height / 2, { steps: 4 });
    await page.mouse.up();
    const after = await evaluate<number>(page, `document.querySelector('.qt-header .col-id').getBoundingClientRect().width`);
    assert.ok(Math.abs(after - before - 100) < 2, `id column ${before} → ${after}`);
    assert.equal(await evaluate(page, `(() => { const h = document.querySelector('.qt-body-row[aria-rowindex="3"] .col-id .mid-head'); return h.scrollWidth > h.clientWidth; })()`), false);
    const rowWidth = await evaluate<number>(page, `document.querySelector('.qt-body-row[aria-rowindex="3"] .col-id').getBoundingClientRect().width`);
    assert.ok(Math.abs(rowWidth - after) < 1, 'body cells follow the header');
    const stored = await evaluate<{ columns?: Record<string, number> }>(page, 'window.__harness.storedState()');
    assert.ok(stored.columns && Math.abs((stored.columns.id ?? 0) - after) < 1, JSON.stringify(stored.columns));
    // Keyboard: the focused handle moves its edge with the arrows (gold's is its left edge, right of the question column).
    await page.locator('.qt-header .col-gold .qt-resize').focus();
    const gold = await evaluate<number>(page, `document.querySelector('.qt-header .col-gold').getBoundingClientRect().width`);
    await page.keyboard.press('ArrowLeft');
    assert.ok(Math.abs((await evaluate<number>(page, `document.querySelector('.qt-header .col-gold').getBoundingClientRect().width`)) - gold - 16) < 1);
    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '20 questions'`);
    assert.ok(Math.abs((await evaluate<number>(page, `document.querySelector('.qt-header .col-id').getBoundingClientRect().width`)) - after) < 1, 'widths come back after a reload');
    await evaluate(page, 'window.__harness.clearState()');
    await assertClean(page, browser);
  });

  test('at the default widths every state chip shows whole, even the widest set; the States column resizes from its edge', async () => {
    await evaluate(page, 'window.__harness.clearState()');
    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    const run = makeSyntheticRun({ n: 30, budget: 4, seed: 11, runId: 'chips', label: 'chips' });
    // The widest chip sets a record can give: every probe reaching, every blind pick right, three
    // two-digit repairing blocks, a truncated output; realized and not.
    const everything = (i: number, realized: boolean) => {
      const r = run.records[i];
      r.realized.correct = realized;
      r.realized.truncated = true;
      for (const probe of Object.keys(r.probes)) {
        r.probes[probe].correct[0] = true;
        r.probes[probe].attempts[0].correct = true;
        r.reachable[probe] = true;
        for (const pick of Object.values(r.blind[probe])) pick.correct = true;
      }
      const map = Object.fromEntries(Array.from({ length: 24 }, (_, b) => [String(b), !realized && (b === 12 || b === 15 || b === 21)]));
      r.repair = { ...r.repair!, inFailureSet: !realized, realized, correctBySilencedBlock: map };
    };
    everything(0, false);
    everything(1, true);
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '30 questions'`);
    const measure = `(() => {
      const table = document.querySelector('.qt').getBoundingClientRect();
      return Array.from(document.querySelectorAll('.qt-body-row:not([hidden])')).map((row) => {
        const box = row.querySelector('.chips');
        const right = Math.min(box.getBoundingClientRect().right, table.right);
        const bottom = Math.min(box.getBoundingClientRect().bottom, row.getBoundingClientRect().bottom);
        const chips = Array.from(box.children).map((c) => c.getBoundingClientRect());
        return { id: row.querySelector('.col-id').textContent, text: Array.from(box.children).map((c) => c.textContent).join(' | '), overflow: box.scrollWidth - box.clientWidth, cut: chips.filter((c) => c.right > right + 0.5 || c.bottom > bottom + 0.5).length };
      });
    })()`;
    const rows = await evaluate<{ id: string; text: string; overflow: number; cut: number }[]>(page, measure);
    assert.equal(rows.length, 30);
    const widest = rows.filter((r) => r.id === run.records[0].id || r.id === run.records[1].id).map((r) => r.text);
    assert.deepEqual(widest.sort(), ['reach ×3 | blind ×6 | repair: L12 +2 | truncated', 'realized | reach ×3 | blind ×6 | truncated']);
    assert.deepEqual(rows.filter((r) => r.overflow > 0 || r.cut > 0), [], 'no chip clipped at the default widths');
    // A narrower panel (the dataset open beside it): the States column gives way, never running past
    // the table's edge, and the rows grow to two lines so the chips wrap whole.
    await page.setViewportSize({ width: 1000, height: 900 });
    await waitFor(page, `document.querySelector('.qt').classList.contains('qt-tall') && document.querySelector('.qt-body-row:not([hidden])').getBoundingClientRect().height === 44`);
    const narrow = await evaluate<{ id: string; text: string; overflow: number; cut: number }[]>(page, measure);
    assert.ok(narrow.length > 10, String(narrow.length));
    assert.deepEqual(narrow.filter((r) => r.overflow > 0 || r.cut > 0), [], 'no chip clipped in a narrow panel');
    assert.ok(await evaluate<boolean>(page, `document.querySelector('.qt-header .col-state').getBoundingClientRect().right <= document.querySelector('.qt').getBoundingClientRect().right + 0.5`));
    await page.setViewportSize({ width: 1400, height: 900 });
    await waitFor(page, `!document.querySelector('.qt').classList.contains('qt-tall')`);

    // The States column has a handle on its left edge: dragged 80 px left, the column is 80 px wider.
    const width = () => evaluate<number>(page, `document.querySelector('.qt-header .col-state').getBoundingClientRect().width`);
    const before = await width();
    const grip = page.locator('.qt-header .col-state .qt-resize');
    assert.equal(await grip.getAttribute('aria-label'), 'Resize the states column');
    await grip.hover();
    const handle = await grip.boundingBox();
    assert.ok(handle);
    const y = handle.y + handle.height / 2;
    await page.mouse.move(handle.x + handle.width / 2, y);
    await page.mouse.down();
    await page.mouse.move(handle.x + handle.width / 2 - 40, y, { steps: 4 });
    await page.mouse.move(handle.x + handle.width / 2 - 80, y, { steps: 4 });
    await page.mouse.up();
    const wider = await width();
    assert.ok(Math.abs(wider - before - 80) < 2, `states column ${before} → ${wider}`);
    const edge = await evaluate<number>(page, `document.querySelector('.qt-header .col-state').getBoundingClientRect().left`);
    assert.ok(Math.abs(edge - (handle.x + handle.width / 2 - 80)) < 2, 'the edge follows the pointer');
    const stored = await evaluate<{ columns?: Record<string, number> }>(page, 'window.__harness.storedState()');
    assert.ok(Math.abs((stored.columns?.state ?? 0) - wider) < 1, JSON.stringify(stored.columns));
    // From the keyboard: → moves the edge right, narrowing it.
    await grip.focus();
    await page.keyboard.press('ArrowRight');
    assert.ok(Math.abs((await width()) - (wider - 16)) < 1);
    await evaluate(page, 'window.__harness.clearState()');
    await assertClean(page, browser);
  });

  test('at 60 px an id that does not fit shows its ellipsis and the end of its tail, the whole id on hover', async () => {
    await evaluate(page, 'window.__harness.clearState()');
    await page.reload();
    await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
    const run = makeSyntheticRun({ n: 12, budget: 4, seed: 9, runId: 'narrow-ids', label: 'narrow ids' });
    // The demo's ids (arith-0000) and a long one: both have a five-character tail.
    run.records.forEach((r, i) => (r.id = i % 2 === 0 ? `arith-${String(i).padStart(4, '0')}` : `arith-A-benchmark-${String(i).padStart(4, '0')}`));
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '12 questions'`);
    // Drag the id column's edge to 60 px.
    const grip = page.locator('.qt-header .col-id .qt-resize');
    await grip.hover();
    const handle = await grip.boundingBox();
    assert.ok(handle);
    const start = await evaluate<number>(page, `document.querySelector('.qt-header .col-id').getBoundingClientRect().width`);
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(handle.x + handle.width / 2 - (start - 60), handle.y + handle.height / 2, { steps: 4 });
    await page.mouse.up();
    assert.ok(Math.abs((await evaluate<number>(page, `document.querySelector('.qt-header .col-id').getBoundingClientRect().width`)) - 60) < 1);
    const cells = await evaluate<{ id: string; title: string; headCut: boolean; headWidth: number; needed: number; tailRight: number; boxRight: number; shownTail: number; ch: number }[]>(page, `(() => {
      return Array.from(document.querySelectorAll('.qt-body-row:not([hidden]) .col-id')).map((cell) => {
        const head = cell.querySelector('.mid-head'), tail = cell.querySelector('.mid-tail'), text = cell.querySelector('.mid-tail-text');
        // What the head needs to draw its first letter and the ellipsis, in its own font.
        const probe = document.createElement('span');
        probe.style.font = getComputedStyle(head).font;
        probe.style.position = 'absolute';
        probe.style.whiteSpace = 'pre';
        probe.textContent = '…';
        document.body.appendChild(probe);
        const needed = probe.getBoundingClientRect().width;
        probe.textContent = '0';
        const ch = probe.getBoundingClientRect().width;
        probe.remove();
        const style = getComputedStyle(cell);
        const box = cell.getBoundingClientRect().right - parseFloat(style.paddingRight);
        return { id: cell.textContent, title: cell.title, headCut: head.scrollWidth > head.clientWidth, headWidth: head.getBoundingClientRect().width, needed, tailRight: text.getBoundingClientRect().right, boxRight: box, shownTail: tail.getBoundingClientRect().width, ch };
      });
    })()`);
    assert.equal(cells.length, 12);
    for (const c of cells) {
      assert.equal(c.title, c.id, 'the whole id on hover');
      assert.ok(c.headCut, `${c.id}: the head is cut`);
      // Room for the ellipsis: Chromium draws it (with as many letters as fit before it); in less it drew a clipped "a" and no ellipsis.
      assert.ok(c.headWidth + 0.5 >= c.needed, `${c.id}: head ${c.headWidth} px, the ellipsis needs ${c.needed} px`);
      // The tail's end shows inside the cell, right-aligned: at 60 px about four of its characters ("a…0000").
      assert.ok(Math.abs(c.tailRight - c.boxRight) < 1, `${c.id}: tail ends at ${c.tailRight}, the cell at ${c.boxRight}`);
      assert.ok(c.shownTail >= 3.5 * c.ch, `${c.id}: ${c.shownTail} px of tail shown (a character is ${c.ch} px)`);
    }
    await evaluate(page, 'window.__harness.clearState()');
    await assertClean(page, browser);
  });

  test('Export is disabled on an empty run; on a live run it exports what is finished and says so', async () => {
    const live = makeSyntheticRun({ n: 30, budget: 4, seed: 4, runId: 'live-export', label: 'live export' });
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: { ...live, records: [], summary: undefined } })})`);
    await evaluate(page, `window.__probes.post({ type: 'runStatus', runId: 'live-export', status: 'running', done: 0, total: 30 })`);
    await waitFor(page, `document.querySelector('.count').textContent === '0 questions'`);
    const buttons = `Array.from(document.querySelectorAll('.topbar-actions vscode-button')).map((b) => ({ disabled: b.hasAttribute('disabled'), title: b.title }))`;
    const empty = await evaluate<{ disabled: boolean; title: string }[]>(page, buttons);
    assert.deepEqual(empty.map((b) => b.disabled), [true, true]);
    assert.match(empty[0].title, /Nothing to export yet/);
    await page.locator('.topbar-actions vscode-button', { hasText: 'Export CSV' }).click({ force: true });
    assert.equal(await lastMessage(page, 'requestExport'), undefined, 'a disabled export posts nothing');
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'appendRecords', runId: 'live-export', records: live.records.slice(0, 12) })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '12 questions'`);
    const running = await evaluate<{ disabled: boolean; title: string }[]>(page, buttons);
    assert.deepEqual(running.map((b) => b.disabled), [false, false]);
    assert.match(running[1].title, /the 12 questions finished so far \(JSON\); the run is still going/);
    await page.locator('.topbar-actions vscode-button', { hasText: 'Export JSON' }).click();
    assert.deepEqual(await lastMessage(page, 'requestExport'), { type: 'requestExport', runId: 'live-export', format: 'json' });
    await evaluate(page, `window.__probes.post({ type: 'runStatus', runId: 'live-export', status: 'cancelled', done: 12, total: 30 })`);
    await waitFor(page, `document.querySelector('.topbar-actions vscode-button').title === 'Export the 12 questions (CSV)'`);
    await assertClean(page, browser);
  });

  test('a status that arrives with the first record, before the table has its row, never says "no question matches the filter"', async () => {
    const live = makeSyntheticRun({ n: 10, budget: 4, seed: 5, runId: 'first-record', label: 'first record' });
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: { ...live, records: [], summary: undefined } })})`);
    await evaluate(page, `window.__probes.post({ type: 'runStatus', runId: 'first-record', status: 'running', done: 0, total: 10 })`);
    await waitFor(page, `document.querySelector('.count').textContent === '0 questions'`);
    // The record and the next status in one turn, the table's frame held back until both are
    // handled (as a busy or hidden page delays it): what Export says then, beside the count.
    const between = await evaluate<{ count: string; titles: string[] }>(page, `new Promise((resolve) => {
      const frames = [];
      const raf = window.requestAnimationFrame;
      window.requestAnimationFrame = (f) => { frames.push(f); return frames.length; };
      const seen = (e) => {
        if (!e.data || e.data.type !== 'runStatus' || e.data.done !== 1) return;
        window.removeEventListener('message', seen);
        const state = { count: document.querySelector('.count').textContent, titles: Array.from(document.querySelectorAll('.topbar-actions vscode-button')).map((b) => b.title) };
        window.requestAnimationFrame = raf;
        for (const f of frames) f(performance.now());
        resolve(state);
      };
      window.addEventListener('message', seen);
      window.postMessage(${JSON.stringify({ type: 'appendRecords', runId: 'first-record', records: live.records.slice(0, 1) })}, '*');
      window.postMessage({ type: 'runStatus', runId: 'first-record', status: 'running', done: 1, total: 10 }, '*');
    })`);
    assert.equal(between.count, '0 questions', 'the frame was held back');
    for (const title of between.titles) assert.match(title, /^Nothing to export yet/, JSON.stringify(between));
    await waitFor(page, `document.querySelector('.count').textContent === '1 question'`);
    await waitFor(page, `document.querySelector('.topbar-actions vscode-button').title.includes('the 1 question finished so far')`);
    await assertClean(page, browser);
  });
});
