/**
 * The Audit side view in Chromium at side-bar widths: every number keeps its whole interval in
 * view. A number was one unbreakable line ("62.5% (25/40, 95% CI 47.0–75.8%)"), so a side bar
 * narrower than label + number cut the interval at its edge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rateOf } from '../../src/contract';
import { auditViewHtml, type AuditViewContent } from '../../src/extension/sidebar/auditViewHtml';
import { formatRateDetail } from '../../src/extension/sidebar/runHeadline';
import { launchBrowser, type Browser } from './harness';

const rate = (k: number, n: number) => rateOf(k, n);

function content(): AuditViewContent {
  const realized = rate(25, 40);
  return {
    name: 'checkpoint-100-arith-test',
    folder: '/w/.reach-audit/runs/r',
    recorded: 40,
    finished: true,
    states: { realized: 25, reachableNotRealized: 9, unreached: 6 },
    headline: {
      n: 40,
      realized,
      reachable: [{ probe: 'sample', rate: rate(31, 40) }, { probe: 'routes', rate: rate(33, 40) }, { probe: 'search', rate: rate(34, 40) }],
      reachableAny: rate(34, 40),
      blind: [{ probe: 'sample', selector: 'majority', ...rate(27, 40) }],
      states: { realized: 25, reachableNotRealized: 9, unreached: 6 },
    },
  };
}

describe('the Audit side view at side-bar widths (Chromium)', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser({ width: 300, height: 700 });
  });
  after(async () => {
    await browser?.close();
  });

  for (const width of [300, 220, 180]) {
    test(`${width} px: every number shows its whole interval, nothing cut at the edge`, async () => {
      const page = browser.page;
      await page.setViewportSize({ width, height: 700 });
      await page.setContent(auditViewHtml(content(), 'n0nce'));
      // VS Code's own font variables (set through the CSSOM, which the view's CSP allows).
      await page.evaluate(`document.documentElement.style.setProperty('--vscode-font-family', 'sans-serif'); document.documentElement.style.setProperty('--vscode-font-size', '13px')`);
      const cells = (await page.evaluate(`Array.from(document.querySelectorAll('td.num')).map((td) => {
        const r = td.getBoundingClientRect();
        const spans = Array.from(td.querySelectorAll('span')).map((s) => s.getBoundingClientRect().right);
        return { text: td.textContent, right: Math.max(r.right, ...spans) };
      })`)) as { text: string; right: number }[];
      const view = (await page.evaluate(`({ client: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth })`)) as { client: number; scroll: number };
      const h = content().headline!;
      assert.deepEqual(cells.map((c) => c.text), [h.realized, ...h.reachable.map((r) => r.rate), h.reachableAny, h.blind[0]].map(formatRateDetail), 'each number with its whole interval');
      for (const c of cells) assert.ok(c.right <= view.client + 0.5, `"${c.text}" ends at ${c.right.toFixed(1)} px, inside the ${view.client} px view`);
      assert.ok(view.scroll <= view.client, `no part of the page past the view's edge (${view.scroll} > ${view.client} px)`);
      assert.deepEqual(browser.problems, []);
    });
  }
});
