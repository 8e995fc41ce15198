/**
 * The panel's header at 1000×800 in Chromium under the extension's CSP: a long run name and model
 * path are shown whole (wrapped), not cut by an ellipsis; a long command line stays one line with a
 * Show All button (keyboard reachable, aria-expanded) that wraps it whole, and no button when the
 * line fits. Run: npx tsc -p . && node --test out/test/webview/header.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun } from './syntheticRun';

const NAME = 'checkpoint-1000-arith-test-arith-A01-0001-lr3e-5-warmup-200-seed-17-gsm8k-style-eight-shot-with-chat-template';
const MODEL = '/home/someone/experiments/2026-12/arith-finetune/long-run-name-for-the-sweep/checkpoints/checkpoint-1000';
const COMMAND = `reach-audit audit --model ${MODEL} --data /home/someone/experiments/2026-12/data/arith-test.jsonl --probe sample:16 --probe routes:16 --probe search:16 --repair --max-new-tokens 256 --limit 300 --seed 17`;

interface Clip { text: string; clipped: boolean; width: number }

async function clip(page: Page, selector: string): Promise<Clip> {
  return (await page.evaluate(`(() => { const e = document.querySelector(${JSON.stringify(selector)}); return { text: e.textContent, clipped: e.scrollWidth > e.clientWidth + 1, width: e.clientWidth }; })()`)) as Clip;
}

describe('the panel header: long names whole, the command line whole on request (Chromium, strict CSP, 1000×800)', () => {
  let opened: OpenedPanel;
  let page: Page;

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
    await page.setViewportSize({ width: 1000, height: 800 });
  });

  after(async () => {
    await opened?.close();
  });

  test('a long run name and model path wrap whole', async () => {
    const run = makeSyntheticRun({ n: 24, budget: 2, seed: 5, runId: 'long-names', label: NAME });
    run.manifest!.model.path = MODEL;
    run.reproduce = { command: COMMAND, gaps: [] };
    await page.evaluate(`window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.run-title')?.textContent === ${JSON.stringify(NAME)}`);
    const title = await clip(page, '.run-title');
    const subtitle = await clip(page, '.run-subtitle');
    assert.equal(title.clipped, false, `the run name is not cut (${title.width} px)`);
    assert.ok(subtitle.text.startsWith(MODEL), subtitle.text);
    assert.equal(subtitle.clipped, false, `the model and dataset paths are not cut (${subtitle.width} px)`);
  });

  test('a long command line: one line with Show All, which wraps it whole and says so (aria-expanded)', async () => {
    await waitFor(page, `!document.querySelector('.run-command-whole').hidden`);
    const line = await clip(page, '.run-command-line');
    assert.equal(line.text, COMMAND);
    assert.equal(line.clipped, true, 'one line, cut, until asked');
    const button = page.locator('.run-command-whole');
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.equal(await button.getAttribute('aria-controls'), 'run-command-line');
    assert.equal((await button.textContent())?.trim(), 'Show All');
    await button.focus();
    await page.keyboard.press('Enter');
    await waitFor(page, `document.querySelector('.run-command-whole').getAttribute('aria-expanded') === 'true'`);
    const whole = await clip(page, '.run-command-line');
    assert.equal(whole.clipped, false, 'the whole command is shown');
    assert.equal((await button.textContent())?.trim(), 'Show Less');
    await button.click();
    await waitFor(page, `document.querySelector('.run-command-whole').getAttribute('aria-expanded') === 'false'`);
  });

  test('a command that fits: no Show All button', async () => {
    const run = makeSyntheticRun({ n: 24, budget: 2, seed: 5, runId: 'short-command', label: 'short' });
    run.reproduce = { command: 'reach-audit audit --model m --data d.jsonl', gaps: [] };
    await page.evaluate(`window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.run-title')?.textContent === 'short'`);
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(`document.querySelector('.run-command-whole').hidden`), true);
    assert.deepEqual(opened.browser.problems, [], 'no console errors, failed requests or dialogs');
  });
});
