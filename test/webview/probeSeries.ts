/**
 * Which colour each probe's series got in each chart of a page, read from the charts' canvases
 * (`data-series`, written from the datasets handed to chart.js), and the theme colour the palette
 * gives each known probe: the check that one probe has one colour in every chart, on the panel and
 * on the Tables page.
 */
import type { Page } from 'playwright-core';

/** The VS Code chart colour each known probe is drawn in (webview/src/charts/probeColors.ts). */
export const PROBE_THEME_COLOUR: Record<string, string> = { sample: '--vscode-charts-blue', routes: '--vscode-charts-orange', search: '--vscode-charts-purple' };

/** The probe a series label names ('routes', 'routes (base)', 'reachable · routes'), if any. */
function probeOf(label: string): string | undefined {
  return /^(?:reachable · )?(sample|routes|search)(?: \(.+\))?$/.exec(label)?.[1];
}

/** Per probe: the chart (its canvas's index and aria-label or class) and the colour it was drawn in. */
export async function probeSeries(page: Page): Promise<{ probe: string; chart: string; colour: string | null }[]> {
  const canvases = (await page.evaluate(`Array.from(document.querySelectorAll('canvas[data-series]')).map((c, i) => ({ chart: (c.closest('.card')?.querySelector('h3')?.textContent ?? c.className) + ' #' + i, series: JSON.parse(c.dataset.series) }))`)) as { chart: string; series: [string, string | null][] }[];
  const found: { probe: string; chart: string; colour: string | null }[] = [];
  for (const { chart, series } of canvases) {
    for (const [label, colour] of series) {
      const probe = probeOf(label);
      if (probe) found.push({ probe, chart, colour });
    }
  }
  return found;
}

/** The page's value of each probe's theme colour. */
export async function probeThemeColours(page: Page): Promise<Record<string, string>> {
  return (await page.evaluate(`(() => { const s = getComputedStyle(document.body); return Object.fromEntries(Object.entries(${JSON.stringify(PROBE_THEME_COLOUR)}).map(([p, v]) => [p, s.getPropertyValue(v).trim()])); })()`)) as Record<string, string>;
}
