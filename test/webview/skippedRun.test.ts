/**
 * A run that audited nothing (every prompt longer than the model's context), in Chromium under the
 * extension's CSP at 1000×800: the header keeps the run's name and its command line beside the
 * buttons, the status sentence on a line of its own; the rows read "not audited", not
 * "unreached"; no "more than 5 questions: select one" for a run with no question to select; the
 * advice does not offer fewer max new tokens when the prompt alone overflows the context.
 * Run: npx tsc -p . && node --test out/test/webview/skippedRun.test.js
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { RunData } from '../../src/contract';
import { openedPanel, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun } from './syntheticRun';

/** Six questions whose 8-shot prompts (4,677 tokens and more) overflow a 512-token context. */
function allSkipped(): RunData {
  const run = makeSyntheticRun({ n: 6, budget: 2, seed: 5, runId: 'skipped-six', label: 'checkpoint-100-arith-test-8shot' });
  run.records.forEach((r, i) => {
    const promptTokens = 4677 + i;
    r.skipped = { reason: 'context', message: `${promptTokens} prompt tokens + 64 new tokens exceed the model's context of 512`, promptTokens, maxNewTokens: 64, contextLimit: 512 };
    r.realized = { ...r.realized, output: '', answer: null, correct: false, truncated: false, rule: 'none', tokens: 0, cost: { generations: 0, tokens: 0, blockApplications: 0 } };
    r.probes = {};
    r.reachable = {};
    r.blind = {};
    delete r.repair;
  });
  delete run.summary;
  return run;
}

interface Box { left: number; top: number; right: number; bottom: number; width: number; height: number }

describe('a run that audited nothing (Chromium, strict CSP, 1000×800)', () => {
  let opened: OpenedPanel;
  let page: Page;
  const run = allSkipped();

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.evaluate(`window.__probes.post(${JSON.stringify({ type: 'loadRun', run, command: undefined })})`);
    await page.evaluate(`window.__probes.post(${JSON.stringify({ type: 'runStatus', runId: run.runId, status: 'done', done: 6, total: 6 })})`);
    await waitFor(page, `(document.querySelector('.run-status .status-text')?.textContent ?? '').startsWith('Nothing audited')`);
  });

  after(async () => {
    await opened?.close();
  });

  test('the header: the run name whole, the status sentence on its own line below the name, nothing overlapping', async () => {
    const boxes = (await page.evaluate(`(() => {
      const box = (sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height }; };
      const title = document.querySelector('.run-title');
      return { title: box('.run-title'), titleClipped: title.scrollWidth > title.clientWidth, status: box('.run-status'), actions: box('.topbar-actions'), heading: box('.run-heading') };
    })()`)) as { title: Box; titleClipped: boolean; status: Box; actions: Box; heading: Box };
    assert.ok(boxes.title.width > 200, `the run name has room: ${JSON.stringify(boxes.title)}`);
    assert.equal(boxes.titleClipped, false, 'the run name is not cut');
    assert.ok(boxes.status.top >= boxes.heading.bottom - 1, `the status sentence is below the name and command: ${JSON.stringify(boxes)}`);
    assert.ok(boxes.heading.right <= boxes.actions.left + 1, `the heading and the buttons do not overlap: ${JSON.stringify(boxes)}`);
  });

  test('the rows read "not audited", none "unreached"; the filter has a "Not audited" choice', async () => {
    const chips = (await page.evaluate(`Array.from(document.querySelectorAll('.qt-row .chip, [role=row] .chip')).map((c) => c.textContent)`)) as string[];
    assert.ok(chips.length >= 6, `chips drawn: ${chips.join(', ')}`);
    assert.ok(!chips.includes('unreached'), chips.join(', '));
    assert.equal(chips.filter((c) => c === 'not audited').length, 6, chips.join(', '));
    const filters = (await page.evaluate(`Array.from(document.querySelectorAll('vscode-option')).map((o) => o.textContent.trim())`)) as string[];
    assert.ok(filters.includes('Not audited (skipped)'), filters.join(', '));
  });

  test('no "select one" offer; the advice does not suggest fewer max new tokens for a prompt that alone overflows', async () => {
    const story = (await page.evaluate(`({ more: document.querySelector('.story-more')?.textContent ?? null, nothing: document.querySelector('.story-nothing-audited')?.textContent ?? '' })`)) as { more: string | null; nothing: string };
    assert.equal(story.more, null, 'no "More than 5 questions: select one" for a run with nothing audited');
    assert.match(story.nothing, /^None of the 6 questions was audited\. The prompt alone \(4,677 tokens\) is longer than the model's context \(512\), so fewer max new tokens cannot help/);
  });
});
