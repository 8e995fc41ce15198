/**
 * The Trajectory tab: per checkpoint (in training order) the realized rate, each probe's reachable
 * rate and the any-probe ceiling with their 95% intervals drawn as whiskers, pass@1 vs pass@k of the
 * sampling probe with their bootstrap intervals, and the questions that moved between states at
 * each step; every point's tooltip gives its value, interval and n. Clicking a checkpoint
 * in the chart (or a step button) lists the questions that moved into it; a question opens in the
 * audit panel. The numbers' tables (n and intervals) sit under the charts.
 */
import {
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
  type Plugin,
} from 'chart.js';
import { count, h, replaceChildren } from '../common/element';
import { themeColors, type ThemeColors } from '../common/themeColors';
import type { FlowKey, Interval, QuestionState, Rate, TableData, TrajectoryPoint, TrajectoryResult } from '../../../src/contract';
import { MIN_BOOTSTRAP_QUESTIONS } from '../../../src/contract';
import { tableSection } from './tablesList';
import { drawWhisker } from '../common/whisker';
import { probeColor } from '../charts/probeColors';
import { markSeries } from '../charts/seriesMark';
import { trajectoryDeltas, type TrajectoryDeltas } from './trajectoryDeltas';

Chart.register(CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);

/** A point's 95% interval and the n behind it. */
interface PointInterval {
  lo: number;
  hi: number;
  n: number;
}

/** Interval and n per point, keyed by dataset object (chart.js datasets carry no typed extras). */
const pointIntervals = new WeakMap<object, (PointInterval | null)[]>();

const rateInterval = (r: Rate | undefined): PointInterval | null => (r && r.n > 0 ? { lo: r.ci.lo, hi: r.ci.hi, n: r.n } : null);
const meanInterval = (value: number | null, ci: Interval | null, n: number): PointInterval | null => (value !== null && ci && n > 0 ? { lo: ci.lo, hi: ci.hi, n } : null);

/** "31.8% [24.9–39.0] (n = 100)": a value as the tooltips and the charts' text alternatives give it. */
export function pointText(value: number | null, interval: PointInterval | null): string {
  if (value === null || !Number.isFinite(value)) return '–';
  const v = `${(100 * value).toFixed(1)}%`;
  return interval ? `${v} [${(100 * interval.lo).toFixed(1)}–${(100 * interval.hi).toFixed(1)}] (n = ${interval.n})` : v;
}

export const passAt1Interval = (p: TrajectoryPoint): PointInterval | null => meanInterval(p.passAt1, p.passAt1Ci, p.passAtKN);

/** pointText of a pass@k value; without an interval (fewer than 20 questions, no bootstrap) it still gives n and says why. */
export function passText(value: number | null, interval: PointInterval | null, n: number): string {
  const text = pointText(value, interval);
  return interval || value === null || !Number.isFinite(value) ? text : `${text} (n = ${n}; no interval below ${MIN_BOOTSTRAP_QUESTIONS} questions)`;
}
export const passAtKInterval = (p: TrajectoryPoint): PointInterval | null => meanInterval(p.passAtK, p.passAtKCi, p.passAtKN);

/** A vertical whisker at each point for its 95% interval. */
const whiskers: Plugin<'line'> = {
  id: 'trajectoryWhiskers',
  afterDatasetsDraw(chart) {
    const y = chart.scales.y;
    const ctx = chart.ctx;
    ctx.save();
    chart.data.datasets.forEach((dataset, i) => {
      const ends = pointIntervals.get(dataset);
      const meta = chart.getDatasetMeta(i);
      if (!ends || meta.hidden) return;
      ctx.strokeStyle = String(dataset.borderColor ?? '#888');
      ctx.lineWidth = 1.25;
      meta.data.forEach((point, j) => {
        const e = ends[j];
        if (!e) return;
        const { x } = point.getProps(['x'], true) as { x: number };
        const a = y.getPixelForValue(e.lo * 100);
        const b = y.getPixelForValue(e.hi * 100);
        drawWhisker(ctx, x, a, b, false);
      });
    });
    ctx.restore();
  },
};

const STATE_WORDS: Record<QuestionState, string> = { realized: 'realized', reachable: 'reachable, not realized', unreached: 'unreached' };
/** The moves worth listing: every change of state (staying put is counted in the table). */
export const MOVES: FlowKey[] = ['reachable->realized', 'unreached->realized', 'realized->reachable', 'unreached->reachable', 'realized->unreached', 'reachable->unreached'];

export function moveLabel(key: FlowKey): string {
  const [from, to] = key.split('->') as [QuestionState, QuestionState];
  return `${STATE_WORDS[from]} → ${STATE_WORDS[to]}`;
}

export interface TrajectoryActions {
  openQuestion(checkpoint: number, id: string): void;
}

export class TrajectoryView {
  readonly element = h('div', { class: 'tj' });
  private data: TrajectoryResult | undefined;
  private tables: TableData[] = [];
  /** Only destroyed: each chart keeps its own line type, which Chart[] (every type's union) would not. */
  private charts: Pick<Chart, 'destroy'>[] = [];
  private step = -1;
  private deltas: TrajectoryDeltas | undefined;
  private readonly moved = h('section', { class: 'tj-moved', 'aria-live': 'polite', 'aria-label': 'Questions that moved at the selected step' });
  private readonly steps = h('div', { class: 'tj-steps', role: 'group', 'aria-label': 'Steps between checkpoints' });

  constructor(private readonly actions: TrajectoryActions) {
    this.showEmpty();
  }

  showEmpty(): void {
    this.destroyCharts();
    this.deltas = undefined;
    replaceChildren(
      this.element,
      h('p', { class: 'muted tj-empty' }, 'No trajectory yet. Run reach-audit trajectory --model step-0 --model step-1 … --data FILE in a VS Code terminal (Reach Audit: Open Terminal with reach-audit; the extension puts its bundled reach-audit on the PATH of VS Code terminals), then Reach Audit: Show Training Trajectory (or select the trajectory\'s runs and Build Tables). To follow a run while it trains: Reach Audit: Watch Training Run… on the folder its checkpoints are written into.'),
    );
  }

  show(data: TrajectoryResult, tables: TableData[], source: string, warnings: readonly string[]): void {
    this.data = data;
    this.tables = tables;
    this.step = data.flows.length > 0 ? data.flows.length - 1 : -1;
    this.deltas = trajectoryDeltas(data);
    const n = data.points.map((p) => p.n);
    const nText = n.every((x) => x === n[0]) ? `n = ${count(n[0] ?? 0)} questions per checkpoint` : `n = ${n.map(count).join(' / ')} questions`;
    replaceChildren(
      this.element,
      h('h2', { class: 'tj-title' }, `Training trajectory · ${data.points.length} checkpoint${data.points.length === 1 ? '' : 's'}`),
      h('p', { class: 'muted tj-source', title: source }, `${data.points.map((p) => p.label).join(' → ')} · ${nText} · ceiling = reachable by any of ${data.probes.join(', ')} (${data.ceilingBudget} generations per question) · from ${source}`),
      warnings.length > 0 ? h('ul', { class: 'rt-warnings' }, ...warnings.map((w) => h('li', {}, w))) : null,
      h('div', { class: 'tj-charts' },
        h('figure', { class: 'tj-figure' }, h('figcaption', {}, 'Realized and reachable per checkpoint (95% Wilson intervals); click a checkpoint for the questions that moved into it'), h('div', { class: 'tj-canvas' }, h('canvas', { class: 'tj-rates', role: 'img', 'aria-label': this.ratesAlt(data) }))),
        data.passAtKProbe
          ? h('figure', { class: 'tj-figure' },
              h('figcaption', {}, `pass@1 vs pass@${data.passAtKMax} of the ${data.passAtKProbe} probe (unbiased estimator, mean over the ${this.passN(data)} questions that ran it; 95% intervals: Wilson where each question's value is 0 or 1, else bootstrap)`),
              h('div', { class: 'tj-canvas' }, h('canvas', { class: 'tj-passk', role: 'img', 'aria-label': this.passAlt(data) })),
              h('ul', { class: 'tj-passk-values muted' }, ...data.points.map((p) => h('li', { 'data-checkpoint': p.label }, `${p.label}: pass@1 ${passText(p.passAt1, passAt1Interval(p), p.passAtKN)} · pass@${data.passAtKMax} ${passText(p.passAtK, passAtKInterval(p), p.passAtKN)}`))))
          : null),
      this.deltas?.element ?? null,
      this.steps,
      this.moved,
      ...tables.map(tableSection),
    );
    this.renderSteps();
    this.renderMoved();
    // Draw once the tab has laid out, so chart.js measures real sizes.
    requestAnimationFrame(() => this.draw());
  }

  /** Theme changed: redraw with the new colours. */
  retheme(): void {
    if (this.data) this.draw();
  }

  selectStep(step: number): void {
    if (!this.data || step < 0 || step >= this.data.flows.length) return;
    this.step = step;
    this.renderSteps();
    this.renderMoved();
  }

  private ratesAlt(d: TrajectoryResult): string {
    return d.points.map((p) => `${p.label}: realized ${pointText(p.realized.rate, rateInterval(p.realized))}, ceiling ${pointText(p.ceiling.rate, rateInterval(p.ceiling))}`).join('; ');
  }

  private passAlt(d: TrajectoryResult): string {
    return d.points.map((p) => `${p.label}: pass@1 ${passText(p.passAt1, passAt1Interval(p), p.passAtKN)}, pass@${d.passAtKMax} ${passText(p.passAtK, passAtKInterval(p), p.passAtKN)}`).join('; ');
  }

  /** "100", or "100 / 98 / 100" when the checkpoints differ. */
  private passN(d: TrajectoryResult): string {
    const n = d.points.map((p) => p.passAtKN);
    return n.every((x) => x === n[0]) ? count(n[0] ?? 0) : n.map(count).join(' / ');
  }

  private renderSteps(): void {
    const d = this.data;
    if (!d) return;
    replaceChildren(
      this.steps,
      h('span', { class: 'muted' }, d.flows.length > 0 ? 'Questions that moved at step:' : 'Questions that moved between checkpoints: with the second checkpoint.'),
      ...d.flows.map((f, i) => {
        const moved = MOVES.reduce((s, k) => s + f.counts[k], 0);
        const b = h('button', { type: 'button', class: 'tj-step', 'aria-pressed': i === this.step ? 'true' : 'false', 'data-step': i }, `${f.from} → ${f.to} (${moved} moved of ${f.n})`);
        b.addEventListener('click', () => this.selectStep(i));
        return b;
      }),
    );
  }

  private renderMoved(): void {
    const d = this.data;
    const f = d && this.step >= 0 ? d.flows[this.step] : undefined;
    if (!d || !f) {
      replaceChildren(this.moved);
      return;
    }
    const to = this.step + 1;
    const groups = MOVES.filter((k) => f.counts[k] > 0).map((k) =>
      h('div', { class: 'tj-move', 'data-move': k },
        h('h4', {}, `${moveLabel(k)} · ${count(f.counts[k])}`),
        h('div', { class: 'tj-ids' }, ...f.ids[k].map((id) => {
          const b = h('button', { type: 'button', class: 'tj-question', title: `Open question ${id} of ${f.to} in the audit panel` }, id);
          b.addEventListener('click', () => this.actions.openQuestion(to, id));
          return b;
        }))),
    );
    replaceChildren(
      this.moved,
      h('h3', {}, `${f.from} → ${f.to}: ${count(MOVES.reduce((s, k) => s + f.counts[k], 0))} of ${count(f.n)} questions changed state`),
      ...(groups.length > 0 ? groups : [h('p', { class: 'muted' }, 'No question changed state at this step.')]),
    );
  }

  private destroyCharts(): void {
    for (const c of this.charts) c.destroy();
    this.charts = [];
  }

  private draw(): void {
    const d = this.data;
    if (!d) return;
    this.destroyCharts();
    const colors = themeColors();
    const labels = d.points.map((p) => p.label);
    const rates = this.element.querySelector<HTMLCanvasElement>('canvas.tj-rates');
    if (rates) {
      const series: { label: string; color: string; values: (typeof d.points)[number]['realized'][]; dashed?: boolean; width?: number }[] = [
        { label: 'realized', color: colors.realized, values: d.points.map((p) => p.realized) },
        ...d.probes.map((q) => ({ label: `reachable · ${q}`, color: probeColor(q, colors.series), values: d.points.map((p) => p.reachable[q]), dashed: true })),
        { label: 'ceiling (any probe)', color: colors.series[4], values: d.points.map((p) => p.ceiling), width: 3 },
      ];
      const datasets = series.map((s) => {
        const ds = {
          label: s.label,
          data: s.values.map((r) => (r && r.n > 0 ? r.rate * 100 : null)),
          borderColor: s.color,
          backgroundColor: s.color,
          borderDash: s.dashed ? [5, 4] : [],
          borderWidth: s.width ?? 2,
          pointRadius: 4,
          pointHoverRadius: 6,
        };
        pointIntervals.set(ds, s.values.map(rateInterval));
        return ds;
      });
      markSeries(rates, datasets);
      this.charts.push(new Chart(rates, this.config(colors, labels, datasets, (i) => this.selectStep(i - 1), [whiskers])));
    }
    const passk = this.element.querySelector<HTMLCanvasElement>('canvas.tj-passk');
    if (passk && d.passAtKProbe) {
      const pass1 = { label: 'pass@1', data: d.points.map((p) => (p.passAt1 === null ? null : p.passAt1 * 100)), borderColor: colors.realized, backgroundColor: colors.realized, pointRadius: 4 };
      // pass@k is the probe's: its colour in every chart.
      const probe = probeColor(d.passAtKProbe, colors.series);
      const passK = { label: `pass@${d.passAtKMax}`, data: d.points.map((p) => (p.passAtK === null ? null : p.passAtK * 100)), borderColor: probe, backgroundColor: probe, borderDash: [5, 4], pointRadius: 4 };
      pointIntervals.set(pass1, d.points.map(passAt1Interval));
      pointIntervals.set(passK, d.points.map(passAtKInterval));
      markSeries(passk, [pass1, passK]);
      this.charts.push(new Chart(passk, this.config(colors, labels, [pass1, passK], (i) => this.selectStep(i - 1), [whiskers])));
    }
    for (const block of this.deltas?.blocks ?? []) this.charts.push(block.draw());
  }

  private config(colors: ThemeColors, labels: string[], datasets: object[], onPick: (index: number) => void, plugins: Plugin<'line'>[]): ChartConfiguration<'line'> {
    const font = { family: colors.fontFamily, size: colors.fontSize };
    return {
      type: 'line',
      data: { labels, datasets: datasets as ChartConfiguration<'line'>['data']['datasets'] },
      plugins,
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        onClick: (_event, elements) => {
          const i = elements[0]?.index;
          if (i !== undefined && i > 0) onPick(i);
        },
        scales: {
          x: { ticks: { color: colors.foreground, font }, grid: { color: colors.grid } },
          y: { min: 0, max: 100, title: { display: true, text: '% of questions', color: colors.muted, font }, ticks: { color: colors.foreground, font }, grid: { color: colors.grid } },
        },
        plugins: {
          legend: { labels: { color: colors.foreground, font, boxWidth: 14 } },
          tooltip: {
            callbacks: {
              label: (item) => {
                const interval = pointIntervals.get(item.dataset)?.[item.dataIndex] ?? null;
                const v = item.parsed.y;
                return `${item.dataset.label}: ${pointText(v === null ? null : v / 100, interval)}`;
              },
            },
          },
        },
      },
    };
  }

  /** For the tests: what the tab shows of the trajectory. */
  get shownTables(): readonly TableData[] {
    return this.tables;
  }
}
