/**
 * Room for the comparison, in Chromium under the extension's CSP, at the sizes the panel has in
 * code-server beside a dataset (PANEL_SIZES: measured by test/suite/comparisonRoom.test.ts at
 * 1400×900 and 1000×800): a 30-question checkpoint comparison's paired differences, transition
 * table and "Ceilings along k" chart each whole, one scroll at most; the question table and the
 * detail pane readable; the headline whole (roomMeasure.ts). The VS Code suite measures the same in
 * the real window; this file checks the page alone, without VS Code.
 * Run: npx tsc -p . && node --test out/test/webview/comparisonRoom.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticComparison } from './syntheticComparison';
import { makeSyntheticRun } from './syntheticRun';
import { MEASURE_ROOM, ROOM_PARTS, roomProblems, type Measured } from './roomMeasure';

/** The audit panel's page in code-server beside the dataset, the Explorer open: at 1400×900, at 1000×800. */
const PANEL_SIZES = [
  { window: '1400×900', width: 521, height: 798 },
  { window: '1000×800', width: 321, height: 698 },
];

async function measured(page: Page): Promise<Measured> {
  for (const deadline = Date.now() + 15_000; ;) {
    const m = (await page.evaluate(`(${MEASURE_ROOM})(${JSON.stringify(ROOM_PARTS)})`)) as Measured | null;
    if (m) return m;
    assert.ok(Date.now() < deadline, 'the panel did not settle with its chart drawn');
    await page.waitForTimeout(200);
  }
}

describe('room for the comparison beside a dataset (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
    const base = makeSyntheticRun({ n: 30, budget: 4, seed: 7, runId: 'room-base', label: 'base' });
    const tuned = makeSyntheticRun({ n: 30, budget: 4, seed: 7, runId: 'room-tuned', label: 'tuned', realizedBias: 0.15, reachBias: -0.1 });
    await page.evaluate(`window.__probes.post(${JSON.stringify({ type: 'loadRun', run: tuned, baseRun: base, compare: makeSyntheticComparison(base, tuned) })})`);
    await waitFor(page, `document.querySelector('.count').textContent === '30 questions'`);
    // A question in the detail pane, as the extension selects one.
    await page.evaluate(`window.__probes.post(${JSON.stringify({ type: 'selectQuestion', id: tuned.records[0].id })})`);
    await waitFor(page, `document.querySelector('.detail-title') !== null`);
  });

  after(async () => {
    await opened?.close();
  });

  for (const size of PANEL_SIZES) {
    test(`the panel beside a dataset at ${size.window} (${size.width}×${size.height}): the comparison, the table and the detail each whole`, async () => {
      await page.setViewportSize({ width: size.width, height: size.height });
      const m = await measured(page);
      assert.deepEqual(roomProblems(m, `${size.width}×${size.height}`), [], JSON.stringify(m));
      // Narrow, the paired differences read as paragraphs: no cell runs past the section's edge.
      const cut = (await page.evaluate(`(() => {
        const edge = document.querySelector('.compare').getBoundingClientRect().right;
        return Array.from(document.querySelectorAll('.compare tbody > tr > *, .compare tfoot > tr > *')).filter((c) => c.getBoundingClientRect().right > edge + 1).map((c) => c.textContent);
      })()`)) as string[];
      assert.deepEqual(cut, [], 'comparison cells past the edge');
      assert.deepEqual(await page.evaluate('window.__harness.violations'), [], 'no Content-Security-Policy violations');
    });
  }
});
