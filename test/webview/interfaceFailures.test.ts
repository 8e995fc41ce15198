/**
 * The panel's interface-failure filter on an imported run, in Chromium under the extension's CSP:
 * one filter per harness reading the records carry, showing exactly the questions where that
 * reading's verdict and ours disagree (either way); a run without readings (every audit) gets none;
 * a reading whose name is markup stays text.
 * Run: npx tsc -p . && node --test out/test/webview/interfaceFailures.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { RunData } from '../../src/contract';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun, XSS_IMG } from './syntheticRun';

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

async function load(page: Page, run: RunData): Promise<void> {
  await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
  await waitFor(page, `document.querySelector('.count').textContent === ${JSON.stringify(`${run.records.length} questions`)}`);
}

/** A 40-question run given two harness readings: strict-match disagrees with our verdict on every 3rd question, the markup-named one on every 5th. */
function importedRun(): { run: RunData; strict: string[]; marked: string[] } {
  const run = makeSyntheticRun({ n: 40, budget: 4, seed: 9, runId: 'imported', label: 'imported' });
  const strict: string[] = [];
  const marked: string[] = [];
  run.records.forEach((r, i) => {
    const ours = r.realized.correct;
    const strictCorrect = i % 3 === 0 ? !ours : ours;
    const markedCorrect = i % 5 === 0 ? !ours : ours;
    if (strictCorrect !== ours) strict.push(r.id);
    if (markedCorrect !== ours) marked.push(r.id);
    r.harness = {
      prompt: 'Question: …\nAnswer:',
      readings: {
        'strict-match': { extracted: '[invalid]', correct: strictCorrect, scores: { exact_match: strictCorrect ? 1 : 0 } },
        [XSS_IMG]: { extracted: null, correct: markedCorrect, scores: {} },
      },
    };
  });
  return { run, strict, marked };
}

const shownIds = (page: Page) => evaluate<string[]>(page, `Array.from(document.querySelectorAll('.qt-body-row .col-id')).map((e) => e.textContent)`);

describe('interface failures filter (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
  });

  after(async () => {
    await opened?.close();
  });

  test("one filter per harness reading shows exactly the questions where it and our grader disagree; markup in a reading's name stays text", async () => {
    const { run, strict, marked } = importedRun();
    await load(page, run);
    const options = await evaluate<{ value: string; label: string }[]>(page, `Array.from(document.querySelectorAll('vscode-dropdown.filter vscode-option')).map((o) => ({ value: o.getAttribute('value'), label: o.textContent }))`);
    const failures = options.filter((o) => o.value.startsWith('interface:'));
    assert.deepEqual(failures, [
      { value: 'interface:strict-match', label: 'Interface failures: harness strict-match and our grader disagree' },
      { value: `interface:${XSS_IMG}`, label: `Interface failures: harness ${XSS_IMG} and our grader disagree` },
    ]);
    assert.equal(await evaluate(page, 'window.__harness.alerts.length'), 0, 'no markup ran');

    const strictCount = await evaluate<{ shown: string }>(page, `window.__probes.timeFilter('interface:strict-match')`);
    assert.equal(strictCount.shown, `${strict.length} of 40 questions`);
    assert.deepEqual((await shownIds(page)).sort(), strict.slice().sort());
    const markedCount = await evaluate<{ shown: string }>(page, `window.__probes.timeFilter(${JSON.stringify(`interface:${XSS_IMG}`)})`);
    assert.equal(markedCount.shown, `${marked.length} of 40 questions`);
    await evaluate(page, `window.__probes.timeFilter('all')`);
    assert.deepEqual(await evaluate(page, 'window.__harness.violations'), [], 'no Content-Security-Policy violations');
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
  });

  test('an audited run (no harness readings) has no interface-failure filter', async () => {
    await load(page, makeSyntheticRun({ n: 12, budget: 4, seed: 2, runId: 'audited', label: 'audited' }));
    const values = await evaluate<string[]>(page, `Array.from(document.querySelectorAll('vscode-dropdown.filter vscode-option')).map((o) => o.getAttribute('value'))`);
    assert.ok(values.length > 0 && !values.some((v) => v.startsWith('interface:')), values.join(', '));
  });
});
