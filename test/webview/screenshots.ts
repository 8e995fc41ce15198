/**
 * Screenshots of the audit panel in the harness (synthetic data), Dark Modern and Light Modern:
 * out/test/screenshots/harness/panel-{dark,light}.png (questions tab with a question open) and
 * panel-charts-{dark,light}.png (charts tab), for checking the layout while working on the panel.
 * The README's pictures come from the real VS Code instead (test/suite, saved by the launcher).
 * Run: npx tsc -p . && node out/test/webview/screenshots.js
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBundles, launchBrowser, openPanel, ROOT, setTheme, startHarness, type ThemeName } from './harness';
import { makeSyntheticRun } from './syntheticRun';

const RUN = { n: 2000, budget: 8, seed: 11, xssEvery: 0, label: 'qwen2-0.5b-base · arith-test', runId: 'screenshot-run' };

async function main(): Promise<void> {
  const outDir = join(ROOT, 'out', 'test', 'screenshots', 'harness');
  await mkdir(outDir, { recursive: true });
  // The question shown: in the failure set, repaired by a block, reached by several probes.
  const run = makeSyntheticRun(RUN);
  const shown = run.records.find((r, i) => i > 3 && r.repair?.inFailureSet && Object.values(r.repair.correctBySilencedBlock).some(Boolean) && Object.values(r.reachable ?? {}).filter(Boolean).length >= 2 && !r.realized.truncated);
  if (!shown) throw new Error('no suitable question in the synthetic run');

  const bundles = await buildBundles();
  const harness = await startHarness(bundles);
  const browser = await launchBrowser({ width: 1440, height: 900 });
  try {
    const { page } = browser;
    await openPanel(page, harness, 'dark');
    await page.evaluate(`window.__probes.makeRun(${JSON.stringify(RUN)})`);
    await page.evaluate('window.__probes.postRun()');
    await page.evaluate(`window.__probes.post({ type: 'runStatus', runId: ${JSON.stringify(RUN.runId)}, status: 'done', done: ${RUN.n}, total: ${RUN.n} })`);
    await page.evaluate(`window.__probes.post({ type: 'selectQuestion', id: ${JSON.stringify(shown.id)} })`);
    await page.waitForSelector('.detail-header');
    // Open the first correct route attempt so the output and the route strip show.
    await page.locator('.probe').nth(1).locator('summary.attempt-correct').first().click();
    for (const theme of ['dark', 'light'] as ThemeName[]) {
      if (theme !== 'dark') await setTheme(page, harness, theme);
      await page.locator('vscode-panel-tab#tab-questions').click();
      await page.locator('.qt').focus();
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(outDir, `panel-${theme}.png`) });
      await page.locator('vscode-panel-tab#tab-charts').click();
      await page.waitForSelector('.card canvas');
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(outDir, `panel-charts-${theme}.png`) });
    }
    if (browser.problems.length > 0) throw new Error(`page problems:\n${browser.problems.join('\n')}`);
    const violations = await page.evaluate('window.__harness.violations');
    if ((violations as unknown[]).length > 0) throw new Error(`CSP violations: ${JSON.stringify(violations)}`);
    console.log(`screenshots written to ${outDir}`);
  } finally {
    await browser.close();
    await harness.close();
    await rm(bundles.dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
