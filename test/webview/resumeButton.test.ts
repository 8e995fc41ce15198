/**
 * The panel header's Resume in Chromium under the extension's CSP: offered for a stopped run (with
 * its sentence when no status line says it stopped), reachable and pressed from the keyboard (it
 * posts resumeRun for the shown run), gone while the run goes, once it is finished, and for another
 * run. Run: npx tsc -p . && node --test out/test/webview/resumeButton.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openedPanel, postedMessages, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun } from './syntheticRun';

const shown = `(() => { const e = document.querySelector('.run-resume'); return !!e && !e.hidden && e.getBoundingClientRect().height > 0; })()`;

describe('the panel header offers Resume for a stopped run (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;
  const post = (message: unknown) => page.evaluate(`window.__probes.post(${JSON.stringify(message)})`);

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
    await page.setViewportSize({ width: 1000, height: 800 });
  });

  after(async () => {
    await opened?.close();
  });

  test('a run cut by a reload: the header says so and offers Resume, which the keyboard presses', async () => {
    const run = makeSyntheticRun({ n: 12, budget: 2, seed: 3, runId: 'cut-run', label: 'cut-run' });
    delete run.summary;
    await post({ type: 'loadRun', run });
    await waitFor(page, `document.querySelector('.run-title')?.textContent === 'cut-run'`);
    assert.equal(await page.evaluate(shown), false, 'no Resume before the host offers it');
    await post({ type: 'resumeOffer', runId: 'cut-run', offer: { comparison: false, note: 'Stopped before its end · 12 questions kept.' } });
    await waitFor(page, shown);
    assert.equal(await page.evaluate(`document.querySelector('.run-resume-note').textContent`), 'Stopped before its end · 12 questions kept.');
    const button = page.locator('.run-resume-button');
    assert.equal((await button.textContent())?.trim(), 'Resume');
    await button.focus();
    await page.keyboard.press('Enter');
    await waitFor(page, `window.__harness.posted.some((m) => m.type === 'resumeRun')`);
    assert.deepEqual((await postedMessages(page)).filter((m) => m.type === 'resumeRun'), [{ type: 'resumeRun', runId: 'cut-run' }]);
    // Pressed: hidden until the host answers (a second press would start a second resume).
    assert.equal(await page.evaluate(shown), false, 'hidden once pressed');
    await post({ type: 'resumeOffer', runId: 'cut-run', offer: { comparison: false, note: 'Stopped before its end · 12 questions kept.' } });
    await waitFor(page, shown);
  });

  test('gone while the run goes, back when it is cancelled (the status line says so: no sentence), gone once finished', async () => {
    await post({ type: 'runStatus', runId: 'cut-run', status: 'running', done: 3, total: 12 });
    await waitFor(page, `!(${shown})`);
    await post({ type: 'resumeOffer', runId: 'cut-run' });
    await post({ type: 'runStatus', runId: 'cut-run', status: 'cancelled', done: 5, total: 12 });
    await post({ type: 'resumeOffer', runId: 'cut-run', offer: { comparison: false } });
    await waitFor(page, shown);
    assert.equal(await page.evaluate(`document.querySelector('.run-resume-note').hidden`), true);
    assert.match(await page.evaluate(`document.querySelector('.run-status').textContent`) as string, /Cancelled/);
    await post({ type: 'runStatus', runId: 'cut-run', status: 'done', done: 12, total: 12 });
    await post({ type: 'resumeOffer', runId: 'cut-run' });
    await waitFor(page, `!(${shown})`);
  });

  test('another run: no Resume carried over; an offer for another run is ignored', async () => {
    await post({ type: 'resumeOffer', runId: 'cut-run', offer: { comparison: false } });
    await waitFor(page, shown);
    const run = makeSyntheticRun({ n: 12, budget: 2, seed: 4, runId: 'finished-run', label: 'finished-run' });
    await post({ type: 'loadRun', run });
    await waitFor(page, `document.querySelector('.run-title')?.textContent === 'finished-run'`);
    assert.equal(await page.evaluate(shown), false);
    await post({ type: 'resumeOffer', runId: 'cut-run', offer: { comparison: false } });
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(shown), false);
    assert.deepEqual(opened.browser.problems, [], 'no console errors, failed requests or dialogs');
  });
});
