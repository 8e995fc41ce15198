/**
 * The detail pane and the table's filter, in Chromium under the extension's CSP: a question shown
 * in the pane that the search or the state filter then hides is marked so ("Not in the table…"),
 * with Show in Table bringing it back; the mark goes when the question is listed again. (The pane
 * kept the hidden question as if it were one of the rows listed.)
 * Run: npx tsc -p . && node --test out/test/webview/detailHidden.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun } from './syntheticRun';

const NOTE = 'Not in the table: the current filter or search hides this question.';

describe('the detail pane keeps no question the filter hid without saying so (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;
  const run = makeSyntheticRun({ n: 24, budget: 2, seed: 5, runId: 'detail-hidden', label: 'detail hidden' });

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
    await page.evaluate(`window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent.endsWith('24 questions')`);
  });

  after(async () => {
    await opened?.close();
  });

  const note = () => page.evaluate(`document.querySelector('.detail .detail-hidden')?.textContent ?? null`) as Promise<string | null>;

  test('a search that hides the question shown marks it; clearing the search removes the mark', async () => {
    await page.evaluate(`window.__probes.post({ type: 'selectQuestion', id: 'q-00000' })`);
    await waitFor(page, `document.querySelector('.detail h2')?.textContent === 'Question q-00000'`);
    assert.equal(await note(), null, 'a listed question has no mark');
    await page.locator('vscode-text-field.search input').fill('q-00001');
    await waitFor(page, `document.querySelector('.count').textContent === '1 of 24 questions'`);
    await waitFor(page, `document.querySelector('.detail .detail-hidden') !== null`);
    assert.equal(await note(), `${NOTE}Show in Table`);
    assert.equal(await page.evaluate(`document.querySelector('.detail').firstElementChild.getAttribute('role')`), 'status', 'said to a screen reader, at the top of the pane');
    await page.locator('vscode-text-field.search input').fill('');
    await waitFor(page, `document.querySelector('.count').textContent === '24 questions'`);
    assert.equal(await note(), null);
  });

  test('Show in Table clears the search and selects the question again', async () => {
    await page.locator('vscode-text-field.search input').fill('q-00002');
    await waitFor(page, `document.querySelector('.detail .detail-hidden') !== null`);
    await page.locator('.detail-hidden vscode-button').click();
    await waitFor(page, `document.querySelector('.count').textContent === '24 questions'`);
    assert.equal(await page.evaluate(`document.querySelector('vscode-text-field.search').value`), '');
    assert.equal(await page.evaluate(`document.querySelector('.detail h2')?.textContent`), 'Question q-00000');
    assert.equal(await note(), null);
    assert.deepEqual(opened.browser.problems, [], 'no console errors, failed requests or dialogs');
  });
});
