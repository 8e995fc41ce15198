/**
 * The panel's mechanism views in Chromium under the extension's CSP: the detail pane's "Why not
 * realized" section (d and g in their context, the per-block strip with the suppressor marked and
 * the repair scan's row beside it) and the Charts tab's failure set × block attribution map with
 * its tables. Token text that looks like HTML stays text.
 * Run: npx tsc -p . && node --test out/test/webview/mechanism.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { MechanismRecord, RunData } from '../../src/contract';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun, XSS_IMG } from './syntheticRun';
import { summarizeMechanism } from '../../src/audit/mechanism/mechanismSummary';

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

const L = 8;

function explainedRun(): { run: RunData; account: MechanismRecord } {
  const run = makeSyntheticRun({ n: 40, budget: 4, seed: 11, runId: 'explained', label: 'explained', numBlocks: L });
  const failures = run.records.filter((r) => r.repair?.inFailureSet);
  assert.ok(failures.length >= 2, 'the synthetic run has a failure set');
  const accounts: MechanismRecord[] = failures.map((r, i) => ({
    id: r.id,
    probe: 'sample',
    attempt: 1,
    position: 3 + i,
    promptTokens: 20,
    sharedTail: i === 0 ? `${XSS_IMG} = ` : '12 * 3 =',
    deployed: { id: 40, text: i === 0 ? XSS_IMG : ' 5' },
    gold: { id: 41, text: ' 6' },
    top: { id: 40, text: i === 0 ? XSS_IMG : ' 5' },
    embedding: 0.01,
    blocks: Array.from({ length: L }, (_, b) => ({ lens: 1 - b * 0.3, rankG: 1 + b, rankD: Math.max(1, L - b), attention: 0.1 * (b % 3) - 0.1, mlp: b === 5 ? -2.5 : 0.2 })),
    suppressor: 5,
    blockSuppressor: 5,
  }));
  run.mechanism = { accounts, summary: summarizeMechanism({ numBlocks: L, failureSetSize: failures.length, accounts, records: run.records, identifiedBlock: 5 }) };
  return { run, account: accounts[0] };
}

describe('why not realized (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
  });

  after(async () => {
    await opened?.close();
  });

  test('the detail pane shows the two tokens in context, the block strip and the repair row; markup stays text', async () => {
    const { run, account } = explainedRun();
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent.endsWith('40 questions')`);
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'selectQuestion', id: account.id })})`);
    await waitFor(page, `document.querySelector('.detail .mechanism') !== null`);
    const shown = await evaluate<{ title: string; d: string; g: string; cells: number; suppressor: string; rows: string[]; imgs: number }>(page, `(() => {
      const s = document.querySelector('.detail .mechanism');
      return {
        title: s.querySelector('h3').textContent,
        d: s.querySelector('.mech-d').textContent,
        g: s.querySelector('.mech-g').textContent,
        cells: s.querySelectorAll('.mech-cell').length,
        suppressor: s.querySelector('.mech-suppressor').textContent,
        rows: Array.from(s.querySelectorAll('tbody th')).map((t) => t.textContent),
        imgs: document.querySelectorAll('img').length,
      };
    })()`);
    assert.ok(shown.title.startsWith('Why not realized'), shown.title);
    assert.equal(shown.d, XSS_IMG.replace(/ /g, '␣'), 'the token as text, whitespace shown');
    assert.equal(shown.g, '␣6');
    assert.equal(shown.cells, 3 * L, 'lens, attention and MLP per block');
    assert.equal(shown.suppressor, '−2.50');
    assert.deepEqual(shown.rows.slice(0, 4), ['lens g − d', 'rank g / d', 'attention', 'MLP']);
    assert.equal(shown.imgs, 0, 'token text never becomes an element');
  });

  test('the Charts tab has the attribution map with the suppressor counts and agreement', async () => {
    await page.locator('vscode-panel-tab#tab-charts').click();
    await waitFor(page, `Array.from(document.querySelectorAll('.card h3')).some((h) => h.textContent.startsWith('Failure set × block: where'))`);
    const card = await evaluate<{ canvas: boolean; label: string; text: string }>(page, `(() => {
      const c = Array.from(document.querySelectorAll('.card')).find((e) => e.querySelector('h3').textContent.startsWith('Failure set × block: where'));
      const canvas = c.querySelector('canvas');
      return { canvas: canvas !== null && canvas.width > 0, label: canvas.getAttribute('aria-label'), text: c.textContent };
    })()`);
    assert.ok(card.canvas);
    assert.match(card.label, /Most often the suppressor: block 5/);
    assert.match(card.text, /identified block 5/);
    await page.locator('vscode-panel-tab#tab-questions').click();
    assert.deepEqual(await evaluate(page, 'window.__harness.violations'), [], 'no Content-Security-Policy violations');
    assert.deepEqual(await evaluate(page, 'window.__harness.errors'), [], 'no script errors');
    assert.deepEqual(opened.browser.problems, [], 'no console errors');
  });
});
