/**
 * Ceilings along k in the Comparison section: tuned − base pass@k at every k ≤ B for realized, each
 * probe and the ceiling, as comparison.json stores them (comparison.passAtKDeltas). A small line
 * chart (Δ in points against k, a band for each 95% interval) with a table as its text alternative:
 * every Δ with its interval and n, then where each curve changes sign (passAtKDeltaText.ts).
 */
import { Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartDataset } from 'chart.js';
import type { PassAtKDeltaCurve } from '../../../src/contract';
import { crossingSentence, deltaAtKCell } from './passAtKDeltaText';
import { h } from '../common/element';
import { themeColors, withAlpha } from '../common/themeColors';
import { probeColor } from '../charts/probeColors';
import { markSeries } from '../charts/seriesMark';

Chart.register(LineController, LineElement, PointElement, LinearScale, Filler, Legend, Tooltip);

export interface PassAtKDeltaBlock {
  element: HTMLElement;
  /** Draws the chart once the element is in the page (chart.js sizes to its box); the chart to destroy on redraw. */
  draw(): Chart;
}

/** `sides`: the two checkpoints' names for the labels (the Trajectory tab names them; the comparison says tuned and base). */
export function passAtKDeltaBlock(curves: readonly PassAtKDeltaCurve[], sides = { tuned: 'Tuned', base: 'base' }): PassAtKDeltaBlock {
  const canvas = h('canvas', { role: 'img', 'aria-label': `${sides.tuned} − ${sides.base} pass@k against k, with 95% intervals; the table below gives every number` });
  const ks = curves[0].points.map((p) => p.k);
  const table = h('table', { class: 'mini-table compare-pass-at-k-delta', 'aria-label': `${sides.tuned} − ${sides.base} pass@k at every k, with 95% intervals` },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'num' }, 'k'), ...curves.map((c) => h('th', { scope: 'col', class: 'num' }, `Δ ${c.what}`)))),
    h('tbody', {}, ...ks.map((k, i) => h('tr', { 'data-k': String(k) }, h('th', { scope: 'row', class: 'num' }, String(k)), ...curves.map((c) => h('td', { class: 'num' }, deltaAtKCell(c.points[i])))))));
  const element = h('div', { class: 'compare-pass-at-k' },
    h('div', { class: 'chart-box' }, canvas),
    table,
    h('ul', { class: 'compare-crossings' }, ...curves.map((c) => h('li', {}, crossingSentence(c)))));
  return {
    element,
    draw: () => {
      const colors = themeColors();
      // The ceiling (realized ∪ reached) in the text colour: the reachable blue is the sample probe's series colour.
      const color = (what: string) => (what === 'realized' ? colors.realized : what === 'ceiling' ? colors.foreground : probeColor(what, colors.series));
      const datasets: ChartDataset<'line'>[] = curves.flatMap((c) => {
        const band = (end: 'lo' | 'hi'): ChartDataset<'line'> => ({
          // A zero-width space marks band datasets so the legend and tooltip skip them.
          label: `${c.what} ${end}\u200b`,
          data: c.points.map((p) => ({ x: p.k, y: 100 * (p[end] ?? p.delta) })),
          borderWidth: 0,
          pointRadius: 0,
          backgroundColor: withAlpha(color(c.what), 0.12),
          fill: end === 'hi' ? '-1' : false,
        });
        return [band('lo'), band('hi'), { label: c.what, data: c.points.map((p) => ({ x: p.k, y: 100 * p.delta })), borderColor: color(c.what), backgroundColor: color(c.what), borderWidth: 2, pointRadius: 2, fill: false }];
      });
      markSeries(canvas, datasets);
      return new Chart(canvas, {
        type: 'line',
        data: { datasets },
        options: {
          maintainAspectRatio: false,
          responsive: true,
          animation: false,
          interaction: { mode: 'index', intersect: false },
          scales: {
            x: { type: 'linear', title: { display: true, text: 'k (attempts)' }, ticks: { precision: 0 } },
            y: { title: { display: true, text: 'Δ pass@k (pts)' } },
          },
          plugins: {
            legend: { position: 'bottom', labels: { filter: (item) => !String(item.text).endsWith('\u200b') } },
            tooltip: { filter: (item) => !String(item.dataset.label).endsWith('\u200b') },
          },
        },
      });
    },
  };
}
