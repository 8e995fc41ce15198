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
import type { DepthResult, QuestionRecord, RunData } from '../../src/contract';
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
  return { run, withChars, without };
}

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
