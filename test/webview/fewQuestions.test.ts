/**
 * The panel on a run of few questions and on the random-routes-vs-search comparison, in Chromium
 * under the extension's CSP: one question leads with its own story (deployed answer against gold
 * with its rule, per probe which attempts were right, blind picks, repair row, the skipped steps
 * and why) and no rate tiles; a few questions get a card each; the Charts tab shows per-probe
 * counts for them, and for a full run the paired comparison with the numbers of summary.json,
 * labelled "unmatched" when the budgets differ. Dataset text stays text.
 * Run: npx tsc -p . && node --test out/test/webview/fewQuestions.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { passAtKRows, type RunData } from '../../src/contract';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun, XSS_IMG } from './syntheticRun';
import { pointsInterval, pValueClause, pValueText, questionsDelta, signedPoints } from '../../webview/src/comparison/comparisonModel';
import { searchSweepOf } from '../../src/audit/results/searchSweepTable';
import { intervalText } from '../../webview/src/common/numberText';
import { makeSyntheticComparison } from './syntheticComparison';
import { unfinishedNumbers } from '../../src/extension/panel/unfinishedNumbers';

/** As the panel writes a share: one decimal, in percent. */
const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

async function load(page: Page, run: RunData): Promise<void> {
  await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
  await waitFor(page, `document.querySelector('.count').textContent.endsWith(${JSON.stringify(run.records.length === 1 ? '1 question' : `${run.records.length} questions`)})`);
}

const SKIP_REASON = 'global-route selection skipped: it picks a route on half of the run\'s questions and scores it on the other half, which needs at least 20 questions (this run has 1)';

function oneQuestion(): RunData {
  const run = makeSyntheticRun({ n: 1, budget: 4, seed: 3, runId: 'one', label: 'one question', xssEvery: 1 });
  run.manifest!.globalRoutes = { count: 0, routes: [], skipped: SKIP_REASON };
  return run;
}

/** Gives every record of `run` a sweep at c = 0.2, 0.6, 5.4 (`reach(i)`: reached at each), and returns the sweep as the extension computes it. */
function swept(run: RunData, reach: (i: number) => boolean[]) {
  run.records.forEach((r, i) => {
    r.searchSweep = [0.2, 0.6, 5.4].map((c, j) => ({ c, reached: reach(i)[j], evaluated: 4, reused: 1, cost: { generations: 3, blockApplications: 24 } }));
  });
  return searchSweepOf(run.records, run.manifest!.search!.c)!;
}

describe('a run of few questions, and routes vs search (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
  });

  after(async () => {
    await opened?.close();
  });

  test('one question: its story leads, no rate tiles; the skipped steps say why; text stays text', async () => {
    const run = oneQuestion();
    const record = run.records[0];
    await load(page, run);
    await waitFor(page, `document.querySelectorAll('.headline .story-card').length === 1`);
    const shown = await evaluate<{ metrics: number; counts: string; card: string; probes: string[]; steps: string[]; imgs: number; detail: string }>(page, `(() => ({
      metrics: document.querySelectorAll('.headline .metric').length,
      counts: document.querySelector('.story-counts').textContent,
      card: document.querySelector('.story-card').textContent,
      probes: Array.from(document.querySelectorAll('.story-probe-line')).map((e) => e.textContent),
      steps: Array.from(document.querySelectorAll('.story-steps li')).map((e) => e.textContent),
      imgs: document.querySelectorAll('img').length,
      detail: document.querySelector('.detail h2') ? document.querySelector('.detail h2').textContent : '',
    }))()`);
    assert.equal(shown.metrics, 0, 'no rate tiles over one question');
    const realized = record.realized.correct ? 1 : 0;
    assert.ok(shown.counts.startsWith(`1 question · realized ${realized} of 1`), shown.counts);
    assert.ok(shown.card.includes(record.question), 'the question text, as text');
    assert.equal(shown.imgs, 0, 'dataset markup never becomes an element');
    assert.ok(shown.card.includes(`vs gold ${record.gold}`), shown.card);
    assert.ok(shown.card.includes(record.realized.rule === 'none' ? 'no rule found an answer' : `read by ${record.realized.rule}`), shown.card);
    for (const [probe, result] of Object.entries(record.probes)) {
      const right = result.attempts.map((a, i) => (a.correct ? `#${i + 1}` : '')).filter(Boolean);
      const line = shown.probes.find((l) => l.startsWith(`${probe}:`));
      assert.ok(line, `${probe} has its line`);
      assert.ok(line.startsWith(`${probe}: ${right.length} of ${result.budget} attempts right${right.length ? ` (${right.join(', ')})` : ''}`), line);
      assert.ok(line.endsWith(record.reachable[probe] ? 'reachable' : 'not reached'), line);
    }
    assert.ok(shown.steps.some((s) => s.startsWith('Global-route selection: it picks a route on half') && s.includes('(this run has 1)')), shown.steps.join('\n'));
    assert.ok(shown.steps.some((s) => s.startsWith('Rates and 95% intervals: shown from 20 questions on')), shown.steps.join('\n'));
    assert.equal(shown.detail, `Question ${record.id}`, 'the question is open in the detail pane');
    assert.ok(XSS_IMG.length > 0 && record.question.includes(XSS_IMG), 'the fixture carries markup');
  });

  test('one question, Charts tab: attempts per probe as counts; no rate charts', async () => {
    await page.locator('vscode-panel-tab#tab-charts').click();
    await page.waitForSelector('.card canvas');
    const titles = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.card h3')).map((h) => h.textContent)`);
    assert.equal(titles[0], 'A run of few questions');
    assert.ok(titles.includes('Attempts per probe'), titles.join(', '));
    assert.ok(!titles.includes('Question states') && !titles.includes('pass@k'), titles.join(', '));
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.card tr[data-probe]')).map((tr) => Array.from(tr.children).map((c) => c.textContent))`);
    const record = oneQuestion().records[0];
    assert.deepEqual(rows, Object.entries(record.probes).map(([probe, r]) => [record.id, probe, String(r.attempts.filter((a) => a.correct).length), String(r.budget), r.attempts.some((a) => a.correct) ? 'yes' : 'no']));
    await page.locator('vscode-panel-tab#tab-questions').click();
  });

  test('a question the repair scan skipped: the story and the detail pane both say "not scanned"', async () => {
    // Walkthrough defect 4: the story said "Not scanned … neither" while the detail pane said
    // "REPAIR SCAN (not in the failure set) … No single silenced block makes the deployed answer correct".
    const run = oneQuestion();
    const record = run.records[0];
    record.realized = { ...record.realized, correct: false };
    for (const p of Object.keys(record.reachable)) {
      record.reachable[p] = false;
      record.probes[p].correct = record.probes[p].correct.map(() => false);
    }
    record.repair = { inFailureSet: false, realized: false, correctBySilencedBlock: {}, answerBySilencedBlock: {}, splitKey: 0.5, cost: { generations: 0, tokens: 0, blockApplications: 0 } };
    await load(page, { ...run, runId: 'not-scanned' });
    await waitFor(page, `(document.querySelector('.story-card')?.textContent ?? '').includes('Not scanned') && document.querySelector('.detail h2') !== null`);
    const story = await evaluate<string>(page, `document.querySelector('.story-card').textContent`);
    const detail = await evaluate<string>(page, `Array.from(document.querySelectorAll('.detail-section')).find((s) => s.querySelector('h3')?.textContent.startsWith('Repair scan'))?.textContent ?? ''`);
    assert.match(story, /Not scanned: the scan silences blocks for failure-set questions/);
    assert.match(detail, /^Repair scan \(not scanned\)Not scanned: the scan silences blocks for failure-set questions/);
    assert.doesNotMatch(detail, /No single silenced block|makes it right/);

    // Scanned and not repaired: both give the same sentence.
    record.repair = { ...record.repair, correctBySilencedBlock: { 0: false, 1: false, 2: false }, answerBySilencedBlock: { 0: '1', 1: '1', 2: '1' } };
    await load(page, { ...run, runId: 'scanned' });
    await waitFor(page, `document.querySelector('.repair-strip') !== null && (document.querySelector('.story-card')?.textContent ?? '').includes('of 3 makes it right')`);
    const line = await evaluate<string>(page, `document.querySelector('.detail .repair-line').textContent`);
    assert.equal(line, 'Not in the failure set (no reference probe reached it); no single silenced block of 3 makes it right.');
    assert.ok((await evaluate<string>(page, `document.querySelector('.story-card').textContent`)).includes(line.slice(0, -1)));
  });

  test('three questions: a card each, counts over the three', async () => {
    const run = makeSyntheticRun({ n: 3, budget: 4, seed: 11, runId: 'three', label: 'three' });
    await load(page, run);
    await waitFor(page, `document.querySelectorAll('.headline .story-card').length === 3`);
    const ids = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.story-card')).map((c) => c.dataset.id)`);
    assert.deepEqual(ids, run.records.map((r) => r.id));
    // A card's title opens that question in the table and the detail pane.
    await page.locator('.story-card .story-open').nth(2).click();
    await waitFor(page, `document.querySelector('.detail h2') && document.querySelector('.detail h2').textContent === ${JSON.stringify(`Question ${run.records[2].id}`)}`);
  });

  test('five questions × three probes, Charts tab: Attempts per probe has a bar\'s height for each of the 15 rows (labels were skipped every other)', async () => {
    const run = makeSyntheticRun({ n: 5, budget: 4, seed: 13, runId: 'five', label: 'five' });
    await load(page, run);
    await page.locator('vscode-panel-tab#tab-charts').click();
    await waitFor(page, `Array.from(document.querySelectorAll('.card h3')).some((h) => h.textContent === 'Attempts per probe')`);
    const height = await evaluate<number>(page, `(() => { const card = Array.from(document.querySelectorAll('.card')).find((c) => c.querySelector('h3')?.textContent === 'Attempts per probe'); return card.querySelector('.chart-box').getBoundingClientRect().height; })()`);
    const rows = run.records.length * 3;
    assert.ok(height >= rows * 20 + 60, `the chart is ${height} px for ${rows} bars`);
    await page.locator('vscode-panel-tab#tab-questions').click();
  });

  test('a full run: the Charts tab compares random routes with search at the matched budget, numbers from summary.json', async () => {
    const run = makeSyntheticRun({ n: 60, budget: 4, seed: 5, runId: 'sixty', label: 'sixty' });
    const c = run.summary!.routesVsSearch!;
    assert.equal(c.match, 'matched');
    await load(page, run);
    await waitFor(page, `document.querySelectorAll('.headline .metric').length > 0`);
    await page.locator('vscode-panel-tab#tab-charts').click();
    await page.waitForSelector('.rvs-tile');
    const tiles = await evaluate<Record<string, string>>(page, `Object.fromEntries(Array.from(document.querySelectorAll('.rvs-tile')).map((t) => [t.className.match(/rvs-(\\w+)$/)[1], Array.from(t.children).map((x) => x.textContent).join('|')]))`);
    assert.equal(tiles.difference, `Δ reachable, all questions (routes − search)|${signedPoints(c.difference!.estimate)}|${pointsInterval(c.difference!)} n=60`);
    // The gain set (questions the deployment does not realize) decides; summary.json carries it.
    const g = c.gainSet!;
    assert.equal(tiles.gain, `Δ reachable on the gain set (routes − search)|${signedPoints(g.difference.estimate)}|${g.n < 20 ? `${g.onlyA} − ${g.onlyB} of n=${g.n}` : `${pointsInterval(g.difference)} n=${g.n}`}`);
    assert.equal(tiles.onlyA, `Only routes|${c.onlyA}|of n=60`);
    assert.equal(tiles.onlyB, `Only search|${c.onlyB}|of n=60`);
    assert.equal(tiles.both, `Both|${c.both}|neither ${c.neither}`);
    assert.equal(tiles.mcnemar, `McNemar (exact)|${pValueClause(c.mcnemarP)}|${c.onlyA + c.onlyB} discordant`);
    // The four-way verdict with its margin, as summary.json decided it on the gain set; all questions beside.
    const d = g.decision;
    assert.equal(tiles.verdict, `Verdict on the gain set (routes vs search)|${d.verdict}|margin ±5 pts${d.questionsNeeded !== null ? ` · ≈ ${d.questionsNeeded.toLocaleString('en-US')} questions to decide` : ''}`);
    assert.equal(tiles.allVerdict, `All questions (beside)|${c.decision!.verdict}|n=60`);
    const costs = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('tr[data-measure]')).map((tr) => Array.from(tr.children).map((x) => x.textContent))`);
    assert.deepEqual(costs[1], ['generated tokens', c.cost.a.tokens.toLocaleString('en-US'), c.cost.b.tokens.toLocaleString('en-US'), `${c.cost.ratio.tokens!.toFixed(2)}×`]);
    assert.deepEqual(costs[0].slice(0, 3), ['generations', c.cost.a.generations.toLocaleString('en-US'), c.cost.b.generations.toLocaleString('en-US')]);
    assert.deepEqual(costs[2][0], 'block applications');
    assert.equal(await evaluate(page, `document.querySelectorAll('.rvs-unmatched').length`), 0);

    // Unequal budgets: labelled unmatched in the card's title and a banner.
    const unmatched = makeSyntheticRun({ n: 60, budget: 4, seed: 5, runId: 'sixty-unmatched', label: 'unmatched' });
    unmatched.summary!.routesVsSearch = { ...unmatched.summary!.routesVsSearch!, match: 'unmatched', budget: { a: 8, b: 4 } };
    await load(page, unmatched);
    await waitFor(page, `document.querySelector('.rvs-unmatched') !== null`);
    assert.equal(await evaluate(page, `document.querySelector('.rvs-unmatched').textContent`), 'UNMATCHED budgets: routes 8 vs search 4 generations per question');
    assert.ok((await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.card h3')).map((h) => h.textContent)`)).includes('Random routes vs search — UNMATCHED budgets'));
    await page.locator('vscode-panel-tab#tab-questions').click();
  });

  test('a comparison of 8 paired questions reads as counts: no points, no interval, no verdict (the under-20 rule)', async () => {
    // Walkthrough defect 5: the 8-question demo showed "−12.5 pts [−37.5, +0.0]".
    const tuned = makeSyntheticRun({ n: 8, budget: 4, seed: 5, runId: 'tuned-8', label: 'tuned', realizedBias: 0.3, reachBias: -0.2 });
    const base = makeSyntheticRun({ n: 8, budget: 4, seed: 5, runId: 'base-8', label: 'base' });
    const compare = makeSyntheticComparison(base, tuned);
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: tuned, baseRun: base, compare })})`);
    await waitFor(page, `document.querySelectorAll('.compare-deltas tbody tr').length > 0`);
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.compare-deltas tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    const r = compare.realized;
    const k = r.gained - r.lost;
    assert.deepEqual(rows[0], ['Realized', `${Math.round(r.base * 8)} of 8`, `${Math.round(r.tuned * 8)} of 8`, `${k > 0 ? '+' : k < 0 ? '−' : '±'}${Math.abs(k)} question${Math.abs(k) === 1 ? '' : 's'}`, '—', pValueText(r.mcnemarP), String(r.lost), String(r.gained), '8', 'counted (under 20)']);
    const section = await evaluate<string>(page, `document.querySelector('.compare').textContent`);
    assert.doesNotMatch(section, / pts|\[[−+]/, 'no points and no interval over 8 questions');
    assert.match(section, /Fewer than 20 paired questions/);
    // The few-question story leads the headline: no Δ tiles in points either.
    await waitFor(page, `document.querySelectorAll('.headline .story-card').length > 0 || document.querySelector('.headline .story')`);
    assert.doesNotMatch(await evaluate<string>(page, `document.querySelector('.headline').textContent`), / pts\b/);
  });

  test('a comparison of the first few questions says, above its headline, that they are too few to judge a difference; a 60-question one does not', async () => {
    // The demo's first 8 (or 30) questions can show the tuned model behind base with no word that so few are a small sample.
    const tuned = makeSyntheticRun({ n: 8, budget: 4, seed: 5, runId: 'tuned-8-note', label: 'tuned', realizedBias: -0.3 });
    const base = makeSyntheticRun({ n: 8, budget: 4, seed: 5, runId: 'base-8-note', label: 'base' });
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: tuned, baseRun: base, compare: makeSyntheticComparison(base, tuned) })})`);
    await waitFor(page, `document.querySelector('.headline .small-sample') !== null`);
    const first = await evaluate<{ cls: string; role: string | null; text: string }>(page, `(() => { const e = document.querySelector('.headline').firstElementChild; return { cls: e.className, role: e.getAttribute('role'), text: e.textContent }; })()`);
    assert.equal(first.cls, 'small-sample', 'the note leads the headline');
    assert.equal(first.role, 'note');
    assert.equal(first.text, '8 paired questions are too few to judge a difference between the checkpoints: on so few, either one can come out ahead by chance, so the tuned model may look worse (or better) here than over the whole file. Compare them on more questions (all of the file) before reading a difference.');
    const box = await evaluate<{ width: number; headline: number }>(page, `({ width: document.querySelector('.small-sample').getBoundingClientRect().width, headline: document.querySelector('.headline').clientWidth })`);
    assert.ok(box.width > box.headline / 2, `the note spans the headline (${box.width} of ${box.headline} px)`);

    const tuned60 = makeSyntheticRun({ n: 60, budget: 4, seed: 5, runId: 'tuned-60-note', label: 'tuned', realizedBias: 0.3 });
    const base60 = makeSyntheticRun({ n: 60, budget: 4, seed: 5, runId: 'base-60-note', label: 'base' });
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: tuned60, baseRun: base60, compare: makeSyntheticComparison(base60, tuned60) })})`);
    await waitFor(page, `document.querySelectorAll('.headline .metric').length > 0`);
    assert.equal(await evaluate<number>(page, `document.querySelectorAll('.small-sample').length`), 0);
  });

  test('a stopped run (no summary.json) that ran both probes: the paired comparison over its finished questions, not "no paired comparison"', async () => {
    // Walkthrough defect 3: a run cancelled at 99 questions said "This run has no paired comparison" and drew both curves.
    const stopped = makeSyntheticRun({ n: 99, budget: 4, seed: 7, runId: 'stopped-99', label: 'stopped' });
    const c = stopped.summary!.routesVsSearch!;
    delete stopped.summary;
    const unfinished = unfinishedNumbers(stopped.records, false)!;
    assert.equal(unfinished.routesVsSearch!.onlyA, c.onlyA, 'the same comparison summary.json would hold');
    await load(page, stopped);
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'runStatus', runId: 'stopped-99', status: 'cancelled', done: 99, total: 300 })})`);
    await page.locator('vscode-panel-tab#tab-charts').click();
    // Before the host's numbers arrive the card has none; then they do.
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'updateUnfinished', runId: 'stopped-99', unfinished })})`);
    await page.waitForSelector('.rvs-tile');
    const card = await evaluate<string>(page, `Array.from(document.querySelectorAll('.card')).find((c) => c.querySelector('.rvs-tile')).textContent`);
    assert.doesNotMatch(card, /no paired comparison/);
    assert.match(card, /Over the 99 questions finished so far: the run has no summary\.json yet/);
    const tiles = await evaluate<Record<string, string>>(page, `Object.fromEntries(Array.from(document.querySelectorAll('.rvs-tile')).map((t) => [t.className.match(/rvs-(\\w+)$/)[1], Array.from(t.children).map((x) => x.textContent).join('|')]))`);
    assert.equal(tiles.onlyA, `Only routes|${c.onlyA}|of n=99`);
    assert.equal(tiles.mcnemar, `McNemar (exact)|${pValueClause(c.mcnemarP)}|${c.onlyA + c.onlyB} discordant`);
    // No summary.json: the pass@k table has no empty summary.json column (walkthrough defect 9).
    const passHeaders = await evaluate<string[]>(page, `Array.from(Array.from(document.querySelectorAll('.card')).find((c) => c.querySelector('h3')?.textContent === 'pass@k')?.querySelectorAll('thead th') ?? []).map((th) => th.textContent)`);
    assert.deepEqual(passHeaders, ['probe', 'k', 'pass@k', '95% CI', 'n']);
    // The same numbers when they come with the run (a stopped run opened again).
    await load(page, { ...stopped, runId: 'stopped-99-again', unfinished });
    await page.waitForSelector('.rvs-unfinished');
    assert.equal(await evaluate(page, `document.querySelectorAll('.rvs-tile.rvs-onlyA').length`), 1);
    await page.locator('vscode-panel-tab#tab-questions').click();
  });
  test("pass@k on the Charts tab: every interval is summary.json's; a run without its summary shows Wilson's where values are 0 or 1 and says the rest comes with it", async () => {
    const passRows = () => evaluate<string[][]>(page, `Array.from(Array.from(document.querySelectorAll('.card')).find((c) => c.querySelector('h3')?.textContent === 'pass@k').querySelectorAll('tbody tr')).map((r) => [r.dataset.probe, r.dataset.k, ...Array.from(r.children).map((c) => c.textContent)])`);
    const run = makeSyntheticRun({ n: 40, budget: 4, seed: 9, runId: 'forty', label: 'forty' });
    const ci = run.summary!.passAtKCi;
    await load(page, run);
    await page.locator('vscode-panel-tab#tab-charts').click();
    await waitFor(page, `Array.from(document.querySelectorAll('.card tr[data-k] td:last-child')).some((td) => td.textContent === '40')`);
    let rows = await passRows();
    assert.equal(rows.length, 9, 'three probes, k = 1, 2, 4');
    for (const [probe, k, , , , shown, n] of rows) {
      assert.equal(shown, intervalText(ci[probe][k].lo, ci[probe][k].hi), `${probe} pass@${k}: summary.json's interval`);
      assert.equal(n, '40');
    }
    // The same records without summary.json (a stopped run): no bootstrap made up in the panel.
    const stopped = { ...run, runId: 'forty-stopped' };
    delete stopped.summary;
    await load(page, stopped);
    await page.locator('vscode-panel-tab#tab-charts').click();
    // The charts redraw for the stopped run (the previous run's stay until then).
    await waitFor(page, `document.querySelector('.charts').textContent.includes("bootstrap interval with the finished run's summary")`);
    rows = await passRows();
    let fractional = 0;
    for (const [probe, k, , , , shown] of rows) {
      const zeroOne = passAtKRows(run.records, probe).rows.every((r) => r[Number(k) - 1] === 0 || r[Number(k) - 1] === 1);
      fractional += zeroOne ? 0 : 1;
      assert.equal(shown, zeroOne ? intervalText(ci[probe][k].lo, ci[probe][k].hi) : "— (bootstrap interval with the finished run's summary)", `${probe} pass@${k}`);
    }
    assert.ok(fractional >= 2, 'the run has fractional pass@k values');
    await page.locator('vscode-panel-tab#tab-questions').click();
  });
  test('--search-sweep: the routes-vs-search card shows the search at every c of the sweep, each with n and intervals, and which side of 0 routes − search lies on at which c', async () => {
    const sweepRows = () => evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.rvs-sweep tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    const run = makeSyntheticRun({ n: 60, budget: 4, seed: 5, runId: 'sixty-swept', label: 'swept' });
    // The informed search at a small c reaches far more than at the defaults: the sign flips over the sweep.
    const sweep = swept(run, (i) => [i % 3 !== 2, i % 4 === 0, i % 9 === 0]);
    assert.equal(sweep.signStable, false);
    await load(page, { ...run, searchSweep: sweep });
    await page.locator('vscode-panel-tab#tab-charts').click();
    await page.waitForSelector('.rvs-sweep');
    const rows = await sweepRows();
    assert.equal(rows.length, 4, 'the probe\'s own c and the three of the sweep');
    sweep.points.forEach((p, i) => {
      assert.deepEqual(rows[i], [
        p.own ? '1.8 (the probe\'s)' : String(p.c),
        pct(p.search.rate), intervalText(p.search.ci.lo, p.search.ci.hi),
        signedPoints(p.difference.delta), pointsInterval(p.difference),
        `${p.onlyRoutes} / ${p.onlySearch}`, pValueText(p.mcnemarP), '60',
      ]);
    });
    const notes = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.rvs-sweep-note')).map((p) => p.textContent)`);
    // Which side of 0 at which c, in words (it read "does not keep one side of 0 over the sweep").
    assert.match(notes[0], /^Random routes reach [\d.]+% \[[\d.]+–[\d.]+\] of n = 60 questions at 4 generations each\. Which reaches more depends on c: random routes reach more at c = 0\.6, 1\.8, 5\.4; no difference is shown at c = 0\.2 \(95% intervals of routes − search against 0\)\.$/);
    assert.match(notes[1], /Sweep cost: 540 new generations, 180 of 720 routes reused\.$/);

    // A run that ended while shown: the sweep comes with its summary.
    const ended = makeSyntheticRun({ n: 60, budget: 4, seed: 6, runId: 'sixty-ended', label: 'ended' });
    const endedSweep = swept(ended, (i) => [i % 2 === 0, i % 2 === 0, i % 2 === 0]);
    await load(page, ended);
    // The charts redraw for the new run: its card has no sweep until the host sends one.
    await waitFor(page, `document.querySelectorAll('.rvs-tile').length > 0 && document.querySelectorAll('.rvs-sweep').length === 0`);
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'updateSummary', runId: 'sixty-ended', summary: ended.summary, searchSweep: endedSweep })})`);
    await page.waitForSelector('.rvs-sweep');
    assert.equal((await sweepRows()).length, 4);

    // Eight questions: counts, no shares, intervals or sign judgement (the under-20 rule).
    const few = makeSyntheticRun({ n: 8, budget: 4, seed: 5, runId: 'eight-swept', label: 'eight' });
    const fewSweep = swept(few, (i) => [i < 5, i < 2, i < 1]);
    await load(page, { ...few, searchSweep: fewSweep });
    await page.locator('vscode-panel-tab#tab-charts').click();
    await waitFor(page, `(document.querySelector('.rvs-sweep-note')?.textContent ?? '').includes('Fewer than 20 questions')`);
    for (const [i, row] of (await sweepRows()).entries()) {
      const p = fewSweep.points[i];
      assert.deepEqual(row.slice(1, 5), [`${p.search.successes} of 8`, '—', questionsDelta(p.onlyRoutes - p.onlySearch), '—']);
    }
    assert.match(await evaluate<string>(page, `document.querySelector('.rvs-sweep-note').textContent`), /Fewer than 20 questions: counts only/);
    await page.locator('vscode-panel-tab#tab-questions').click();
  });
  test('--search-sweep on a comparison: the Comparison section shows each checkpoint\'s sweep beside its routes-vs-search verdict', async () => {
    const tuned = makeSyntheticRun({ n: 40, budget: 4, seed: 5, runId: 'tuned-40-swept', label: 'tuned', realizedBias: 0.15, reachBias: -0.13 });
    const base = makeSyntheticRun({ n: 40, budget: 4, seed: 5, runId: 'base-40-swept', label: 'base' });
    const sweeps = { base: swept(base, (i) => [i % 2 === 0, i % 3 === 0, i % 5 === 0]), tuned: swept(tuned, (i) => [i % 3 === 0, i % 4 === 0, i % 6 === 0]) };
    const compare = makeSyntheticComparison(base, tuned);
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run: { ...tuned, searchSweep: sweeps.tuned }, baseRun: { ...base, searchSweep: sweeps.base }, compare })})`);
    await waitFor(page, `document.querySelectorAll('.compare-sweep tbody tr').length === 8`);
    const rows = await evaluate<string[][]>(page, `Array.from(document.querySelectorAll('.compare-sweep tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent))`);
    const expected = (['base', 'tuned'] as const).flatMap((checkpoint) => sweeps[checkpoint].points.map((p) => [
      checkpoint, p.own ? '1.8 (the probe\'s)' : String(p.c),
      pct(p.search.rate), intervalText(p.search.ci.lo, p.search.ci.hi),
      signedPoints(p.difference.delta), pointsInterval(p.difference),
      `${p.onlyRoutes} / ${p.onlySearch}`, pValueText(p.mcnemarP), '40',
    ]));
    assert.deepEqual(rows, expected);
    const notes = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('.compare-sweep-note')).map((p) => p.textContent)`);
    assert.ok(notes.some((n) => n.startsWith('base: Random routes reach')) && notes.some((n) => n.startsWith('tuned: Random routes reach')), notes.join('\n'));
  });
});
