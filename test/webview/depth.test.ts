/**
 * Issue 44 in the panel, in Chromium under the extension's CSP: the detail pane marks the depth
 * probe's cuts in the deployed output (reached / not reached, the point of no return and the
 * stretch before it highlighted), with the marks as a table; model text that looks like HTML
 * stays text.
 * Run: npx tsc -p . && node --test out/test/webview/depth.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { rateOf, type DepthResult, type DepthSummary, type QuestionRecord, type RunData } from '../../src/contract';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun, XSS_IMG, XSS_SCRIPT } from './syntheticRun';

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

const OUTPUT = `Step one ${XSS_IMG} gives 12.\nStep two ${XSS_SCRIPT} gives 13.\n#### 13`;
const CUTS = { zero: 0, quarter: 18, half: 36, threeQuarters: 54, lastLine: OUTPUT.lastIndexOf('\n') + 1 };

function depthOf(withChars: boolean): DepthResult {
  const point = (at: DepthResult['points'][number]['at'], tokens: number, chars: number, correct: boolean[]) => ({
    at, tokens, ...(withChars ? { chars } : {}), correct, answers: correct.map((c) => (c ? '12' : '13')), reached: correct.some(Boolean),
  });
  return {
    budget: 2,
    outputTokens: 24,
    points: [
      point('0', 0, CUTS.zero, [true, false]),
      point('1/4', 6, CUTS.quarter, [false, true]),
      point('1/2', 12, CUTS.half, [false, false]),
      point('3/4', 18, CUTS.threeQuarters, [false, false]),
      point('last-line', 21, CUTS.lastLine, [false, false]),
    ],
    deepestReached: 1,
    noReturn: { point: 2, before: OUTPUT.slice(0, CUTS.half), after: OUTPUT.slice(CUTS.half) },
    lostIn: 2,
    cost: { generations: 10, tokens: 80, blockApplications: 800 },
  };
}

function depthRun(): { run: RunData; withChars: QuestionRecord; without: QuestionRecord } {
  const run = makeSyntheticRun({ n: 30, budget: 4, seed: 5, runId: 'depth', label: 'depth' });
  const failures = run.records.filter((r) => r.repair?.inFailureSet);
  assert.ok(failures.length >= 2, 'the synthetic run has a failure set');
  const [withChars, without] = failures;
  for (const [r, chars] of [[withChars, true], [without, false]] as const) {
    r.realized = { ...r.realized, output: OUTPUT, answer: '13', correct: false };
    r.depth = depthOf(chars);
  }
  assert.ok(run.summary, 'the synthetic run has a summary');
  run.summary!.depth = DEPTH_SUMMARY;
  return { run, withChars, without };
}

const DEPTH_SUMMARY: DepthSummary = {
  n: 12,
  budget: 2,
  curve: [
    { at: '0', reached: rateOf(6, 12), meanDepth: 0 },
    { at: '1/4', reached: rateOf(5, 12), meanDepth: 0.25 },
    { at: '1/2', reached: rateOf(4, 12), meanDepth: 0.5 },
    { at: '3/4', reached: rateOf(2, 12), meanDepth: 0.75 },
    { at: 'last-line', reached: rateOf(0, 10), meanDepth: 0.86 },
  ],
  lostIn: { start: rateOf(6, 12), quarter: [rateOf(1, 12), rateOf(1, 12), rateOf(2, 12), rateOf(2, 12)] },
  early: rateOf(1, 12),
  late: rateOf(5, 12),
  cost: { generations: 120, tokens: 900, blockApplications: 9000 },
};

interface Shown {
  line: string;
  marks: string[];
  textWithoutMarks: string;
  lost: string[];
  noReturn: string;
  rows: string[][];
  injected: number;
}

const SHOWN = `(() => {
  const s = document.querySelector('.detail .depth');
  if (!s) return null;
  const pre = s.querySelector('.depth-output');
  const copy = pre.cloneNode(true);
  copy.querySelectorAll('.depth-mark').forEach((m) => m.remove());
  return {
    line: s.querySelector('.depth-line').textContent,
    marks: Array.from(pre.querySelectorAll('.depth-mark')).map((m) => m.className.replace('depth-mark ', '') + ' ' + m.firstChild.textContent),
    textWithoutMarks: copy.textContent,
    lost: Array.from(pre.querySelectorAll('.depth-lost')).map((m) => m.textContent),
    noReturn: (pre.querySelector('.depth-no-return') || {}).textContent || '',
    rows: Array.from(s.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent)),
    injected: document.querySelectorAll('.detail img, .detail script').length,
  };
})()`;

describe('depth of loss in the detail pane (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;
  const { run, withChars, without } = depthRun();

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent.endsWith('30 questions')`);
  });

  after(async () => {
    await opened?.close();
  });

  test('the marks sit in the deployed output where their prefixes end; the stretch to the point of no return is highlighted; markup stays text', async () => {
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'selectQuestion', id: withChars.id })})`);
    await waitFor(page, `document.querySelector('.detail .depth') !== null`);
    const shown = await evaluate<Shown>(page, SHOWN);
    assert.equal(shown.textWithoutMarks, OUTPUT, 'the output itself, whole and as text');
    assert.deepEqual(shown.marks, ['depth-reached ▸0✓', 'depth-reached ▸¼✓', 'depth-no-return ▸½✗', 'depth-missed ▸¾✗', 'depth-missed ▸last line break✗']);
    assert.deepEqual(shown.lost, [OUTPUT.slice(CUTS.quarter, CUTS.half)], 'lost between the deepest reaching cut and the point of no return');
    assert.ok(shown.noReturn.startsWith('▸½'), shown.noReturn);
    assert.match(shown.line, /Reached from ¼ .* not from ½ on: .* quarter 2/);
    assert.deepEqual(shown.rows[2], ['½', '12 of 24', '0/2', '13, 13', 'point of no return']);
    assert.deepEqual(shown.rows.map((r) => r[4]), ['reached', 'reached', 'point of no return', 'not reached', 'not reached']);
    assert.equal(shown.injected, 0, 'model text never becomes an element');
  });

  test('a record without character positions shows the text around the point of no return instead', async () => {
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'selectQuestion', id: without.id })})`);
    await waitFor(page, `(() => { const t = document.querySelector('.detail h2'); return t && t.textContent === ${JSON.stringify(`Question ${without.id}`)} && document.querySelector('.detail .depth') !== null; })()`);
    const shown = await evaluate<Shown>(page, SHOWN);
    assert.deepEqual(shown.marks, ['depth-no-return ▸point of no return']);
    assert.equal(shown.textWithoutMarks, OUTPUT);
    assert.equal(shown.injected, 0);
  });

  test('the Charts tab draws the reach-over-depth curve with its intervals and n, and says it in words', async () => {
    await page.locator('vscode-panel-tab#tab-charts').click();
    await waitFor(page, `Array.from(document.querySelectorAll('.card h3')).some((h) => h.textContent === 'Reach over depth of the deployed output')`);
    const card = await evaluate<{ canvas: boolean; label: string; words: string; rows: string[][] }>(page, `(() => {
      const c = Array.from(document.querySelectorAll('.card')).find((e) => e.querySelector('h3').textContent === 'Reach over depth of the deployed output');
      const canvas = c.querySelector('canvas');
      return {
        canvas: canvas !== null && canvas.width > 0,
        label: canvas.getAttribute('aria-label'),
        words: c.querySelector('.depth-curve-text').textContent,
        rows: Array.from(c.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.children).map((td) => td.textContent)),
      };
    })()`);
    assert.ok(card.canvas);
    const half = rateOf(4, 12);
    assert.ok(card.label.includes(`from ½ (50.0% deep on average) 33.3% [${(half.ci.lo * 100).toFixed(1)}%, ${(half.ci.hi * 100).toFixed(1)}%], 4 of 12`), card.label);
    assert.ok(card.label.includes('from last line break (86.0% deep on average) 0.0%'), card.label);
    assert.match(card.label, /12 failure-set questions, 2 continuations per mark/);
    assert.match(card.label, /first quarter: 1 of 12; later: 5 of 12/);
    assert.equal(card.words, card.label, 'the same words for screen readers in the card');
    assert.deepEqual(card.rows.map((r) => [r[0], r[4]]), [['0', '6/12'], ['¼', '5/12'], ['½', '4/12'], ['¾', '2/12'], ['last line break', '0/10']]);
    await page.locator('vscode-panel-tab#tab-questions').click();
  });

  test('a question without depth results has no such section; no CSP violations or script errors', async () => {
    const plain = run.records.find((r) => !r.depth)!;
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'selectQuestion', id: plain.id })})`);
    await waitFor(page, `document.querySelector('.detail h2')?.textContent === ${JSON.stringify(`Question ${plain.id}`)}`);
    assert.equal(await evaluate(page, `document.querySelector('.detail .depth') === null`), true);
    // The harness's own synthetic-run generator (synthetic.js, test code) trips wasm-eval on this
    // main in every harness test; the panel's bundle must trip nothing.
    const generator = (text: string) => text.includes('/synthetic.js') || text.includes('WebAssembly.Module()');
    const violations = await evaluate<{ source?: string }[]>(page, 'window.__harness.violations');
    assert.deepEqual(violations.filter((v) => !generator(String(v.source ?? ''))), [], 'no Content-Security-Policy violations from the panel');
    assert.deepEqual((await evaluate<string[]>(page, 'window.__harness.errors')).filter((e) => !generator(e)), [], 'no script errors');
    assert.deepEqual(opened.browser.problems.filter((e) => !generator(e)), [], 'no console errors');
  });
});
