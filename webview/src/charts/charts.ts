/**
 * The Charts tab: state bars, answer-blind selection, pass@k curves, random routes vs search at a
 * matched budget, repair and damage by block, and the question × block repair heatmap. Every chart
 * has a table beside it with each number's n and 95% interval (also the charts' text alternative).
 * chart.js is imported piece by piece and registered once, so the bundle carries only what is drawn.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
  type ChartDataset,
  type Plugin,
} from 'chart.js';
import { count, h, intervalText, replaceChildren } from '../common/element';
import '../../styles/probeCharts.css';
import { RepairHeatmap } from './heatmap';
import { MechanismHeatmap } from './mechanismHeatmap';
import { routesVsSearchView } from './routesVsSearch';
import { repairNullSentences } from '../headline/repairNullView';
import { probeColor } from './probeColors';
import { depthCurvePoints, depthCurveText } from './depthCurve';
import { FORK_ARMS, forkPositionsText, QUARTER_LABELS, type ForkPositions } from './forkPositions';
import { markSeries } from './seriesMark';
import { formatPercent as percent, learnedRouteLines, rateOf, type MechanismData, type PassAtKKind, type Rate, type RunSummary, type SearchSweepNumbers, type UnfinishedNumbers, MIN_BOOTSTRAP_QUESTIONS, RATE_MIN_QUESTIONS } from '../../../src/contract';
import { SWEEP_HEADERS, sweepView } from './sweepRows';
import { shownPassAtK } from './passAtKInterval';
import type { RunStatistics } from './runStatistics';
import { themeColors, withAlpha, type ThemeColors } from '../common/themeColors';
import { drawWhisker } from '../common/whisker';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Filler, Legend, Tooltip);

/** Interval ends per bar, keyed by dataset object (chart.js datasets cannot carry typed extras). */
const barIntervals = new WeakMap<object, { ends: ([number, number] | null)[]; color: string }>();

/** Draws a whisker for each bar's 95% interval (chart.js has no error bars built in). */
const intervalWhiskers: Plugin<'bar'> = {
  id: 'intervalWhiskers',
  afterDatasetsDraw(chart) {
    const horizontal = chart.options.indexAxis === 'y';
    const valueScale = horizontal ? chart.scales.x : chart.scales.y;
    const ctx = chart.ctx;
    ctx.save();
    chart.data.datasets.forEach((dataset, i) => {
      const whiskers = barIntervals.get(dataset);
      const meta = chart.getDatasetMeta(i);
      if (!whiskers || meta.hidden) return;
      const intervals = whiskers.ends;
      ctx.strokeStyle = whiskers.color;
      ctx.lineWidth = 1.25;
      meta.data.forEach((bar, j) => {
        const interval = intervals[j];
        if (!interval) return;
        const a = valueScale.getPixelForValue(interval[0] * 100);
        const b = valueScale.getPixelForValue(interval[1] * 100);
        const { x, y } = bar.getProps(['x', 'y'], true) as { x: number; y: number };
        drawWhisker(ctx, horizontal ? y : x, a, b, horizontal);
      });
    });
    ctx.restore();
  },
};

export interface ChartRun {
  label: string;
  stats: RunStatistics;
  summary?: RunSummary;
  /** A run without summary.json: the paired numbers the extension computed over its finished questions. */
  unfinished?: UnfinishedNumbers;
  /** The run's mechanism.jsonl (`reach-audit explain`), when it has one. */
  mechanism?: MechanismData;
  /** The search over its exploration sweep (--search-sweep), when the run has one. */
  searchSweep?: SearchSweepNumbers;
  /** Saves against position (--fork-probe), from the records. */
  forkPositions?: ForkPositions;
}

function proportionCells(p: Rate): HTMLElement[] {
  return [
    h('td', { class: 'num' }, percent(p.n === 0 ? undefined : p.rate)),
    h('td', { class: 'num muted' }, intervalText(p.ci.lo, p.ci.hi)),
    h('td', { class: 'num muted' }, `${count(p.successes)}/${count(p.n)}`),
  ];
}

function numbersTable(headers: string[], rows: HTMLElement[]): HTMLElement {
  return h('table', { class: 'mini-table numbers' }, h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', {}, t)))), h('tbody', {}, ...rows));
}

const PROPORTION_HEADERS = ['rate', '95% CI', 'k/n'];

function card(title: string, note: string, ...body: (Node | null)[]): HTMLElement {
  return h('section', { class: 'card' }, h('h3', {}, title), note ? h('p', { class: 'card-note muted' }, note) : null, ...body);
}

/** Height of one question × probe bar in Attempts per probe, room for its label. */
const PER_PROBE_ROW_PX = 22;

function canvasBox(label: string, tall = false): { box: HTMLElement; canvas: HTMLCanvasElement } {
  const canvas = h('canvas', { role: 'img', 'aria-label': label });
  return { box: h('div', { class: tall ? 'chart-box chart-box-tall' : 'chart-box' }, canvas), canvas };
}

export class ChartsView {
  readonly element: HTMLElement;
  /** Only destroyed: each chart keeps its own type (bar or line), which Chart[] (every type's union) would not. */
  private charts: Pick<Chart, 'destroy'>[] = [];
  private heatmap: RepairHeatmap | undefined;
  private runs: ChartRun[] = [];
  private live = false;

  constructor(private readonly onSelectQuestion: (id: string) => void) {
    this.element = h('div', { class: 'charts' });
  }

  /** Redraws every chart for `runs` (the run shown, then the base run when comparing). */
  update(runs: ChartRun[], live = false): void {
    this.runs = runs;
    this.live = live;
    this.render();
  }

  /** Redraws with the current theme's colours (VS Code changed theme). */
  retheme(): void {
    if (this.runs.length > 0) this.render();
  }

  private destroy(): void {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
  }

  private add<T extends 'bar' | 'line'>(canvas: HTMLCanvasElement, config: ChartConfiguration<T>): void {
    markSeries(canvas, config.data.datasets);
    this.charts.push(new Chart(canvas, config));
  }

  private render(): void {
    this.destroy();
    const colors = themeColors();
    Chart.defaults.color = colors.muted;
    Chart.defaults.borderColor = withAlpha(colors.grid, 0.6);
    Chart.defaults.font.family = colors.fontFamily;
    Chart.defaults.font.size = colors.fontSize;
    Chart.defaults.animation = false;

    const [main] = this.runs;
    if (!main || main.stats.n === 0) {
      replaceChildren(this.element, h('p', { class: 'muted empty' }, 'No finished questions yet.'));
      return;
    }
    replaceChildren(this.element);
    if (main.stats.n < RATE_MIN_QUESTIONS) {
      // Few questions: what each question's attempts did, the paired counts, the repair map; no rates.
      this.element.appendChild(card('A run of few questions', `${count(main.stats.n)} question${main.stats.n === 1 ? '' : 's'}: the charts of rates and intervals (states, answer-blind selection, pass@k, repair by block) start at ${RATE_MIN_QUESTIONS} questions. Below: each question's attempts, and the counts.`));
      for (const c of [this.perProbeCard(colors), this.matchedBudgetCard(colors)]) if (c) this.element.appendChild(c);
      const few = this.heatmapCard();
      if (few && this.heatmap) {
        this.element.appendChild(few);
        this.heatmap.draw(main.stats.heatmapRows, main.stats.numBlocks, colors);
      }
      const forksFew = this.forksCard(colors);
      if (forksFew) this.element.appendChild(forksFew);
      this.mechanismCard(colors);
      return;
    }
    this.element.appendChild(this.statesCard(colors));
    const blind = this.blindCard(colors);
    if (blind) this.element.appendChild(blind);
    const pass = this.passAtKCard(colors);
    if (pass) this.element.appendChild(pass);
    const ceilingOnly = [...new Set(this.runs.flatMap((run) => run.stats.untilReached))];
    if (ceilingOnly.length > 0) {
      this.element.appendChild(
        card(
          'pass@k and answer-blind selection: not computed',
          `The ${ceilingOnly.join(', ')} probe${ceilingOnly.length === 1 ? '' : 's'} ran with --until-reached: each question's attempts stopped at its first correct one. Reachable is exact; the pools are partial, so no pass@k curve or blind pick is drawn from them.`,
        ),
      );
    }
    const matched = this.matchedBudgetCard(colors);
    if (matched) this.element.appendChild(matched);
    const depth = this.depthCard(colors);
    if (depth) this.element.appendChild(depth);
    const forks = this.forksCard(colors);
    if (forks) this.element.appendChild(forks);
    const repair = this.repairCard(colors);
    if (repair) this.element.appendChild(repair);
    const heat = this.heatmapCard();
    if (heat && this.heatmap) {
      this.element.appendChild(heat);
      // Drawn once attached, so it sizes itself to the card.
      this.heatmap.draw(main.stats.heatmapRows, main.stats.numBlocks, colors);
    }
    this.mechanismCard(colors);
  }

  /** The failure set × block MLP attribution map, when the run has been explained. */
  private mechanismCard(colors: ThemeColors): void {
    const mechanism = this.runs[0]?.mechanism;
    if (!mechanism || mechanism.summary.explained === 0) return;
    const map = new MechanismHeatmap(this.onSelectQuestion);
    this.element.appendChild(card('Failure set × block: where the answer is pushed away', "Rows: the explained failure-set questions, grouped by their suppressor; columns: blocks. Each cell is the block's MLP output on the g − d direction at the divergence point (reach-audit explain): red pushes the deployed token d over the correct path's g. Click a cell to open the question.", map.element));
    map.draw(mechanism, colors);
  }

  /** `fullScale`: the value axis runs to 100%; otherwise it fits the data (small per-block rates). */
  private barOptions(horizontal: boolean, title: string, fullScale = true): ChartConfiguration<'bar'>['options'] {
    const valueAxis = { min: 0, max: fullScale ? 100 : undefined, ticks: { callback: (v: number | string) => `${v}%` }, title: { display: true, text: title } };
    return {
      indexAxis: horizontal ? 'y' : 'x',
      maintainAspectRatio: false,
      responsive: true,
      scales: horizontal ? { x: valueAxis, y: { grid: { display: false } } } : { y: valueAxis, x: { grid: { display: false } } },
      plugins: {
        legend: { display: this.runs.length > 1, position: 'bottom' },
        tooltip: {
          callbacks: {
            label: (item) => {
              const interval = barIntervals.get(item.dataset)?.ends[item.dataIndex];
              return `${item.dataset.label}: ${Number(item.raw).toFixed(1)}% ${interval ? intervalText(interval[0], interval[1]) : ''}`;
            },
          },
        },
      },
    };
  }

  private barDataset(label: string, values: Rate[], color: string, dashed: boolean): ChartDataset<'bar'> {
    const dataset: ChartDataset<'bar'> = {
      label,
      data: values.map((p) => p.rate * 100),
      backgroundColor: withAlpha(color, dashed ? 0.25 : 0.55),
      borderColor: color,
      borderWidth: 1,
      borderSkipped: false,
    };
    barIntervals.set(dataset, { ends: values.map((p) => (p.n > 0 ? [p.ci.lo, p.ci.hi] : null)), color });
    return dataset;
  }

  private statesCard(colors: ThemeColors): HTMLElement {
    const [main] = this.runs;
    const labels = main.stats.states.map((s) => s.label);
    const stateColors: Record<string, string> = {
      realized: colors.realized,
      reachable: colors.reachable,
      failureSet: colors.reachable,
      blind: colors.blind,
      repaired: colors.repair,
      unreached: colors.unreached,
    };
    const { box, canvas } = canvasBox('Share of questions in each state, with 95% Wilson intervals; numbers in the table below');
    const datasets = this.runs.map((run, r) => {
      const ds = this.barDataset(run.label, run.stats.states.map((s) => s.value), r === 0 ? colors.series[0] : colors.muted, r > 0);
      if (this.runs.length === 1) {
        ds.backgroundColor = main.stats.states.map((s) => withAlpha(stateColors[s.key] ?? colors.series[0], 0.55));
        ds.borderColor = main.stats.states.map((s) => stateColors[s.key] ?? colors.series[0]);
      }
      return ds;
    });
    // Bars coloured per state share one whisker colour: the text colour.
    if (this.runs.length === 1) {
      const whiskers = barIntervals.get(datasets[0]);
      if (whiskers) whiskers.color = colors.foreground;
    }
    const rows: HTMLElement[] = [];
    for (const run of this.runs) {
      for (const s of run.stats.states) rows.push(h('tr', {}, h('td', {}, this.runs.length > 1 ? `${s.label} (${run.label})` : s.label), ...proportionCells(s.value)));
    }
    const element = card('Question states', `n = ${count(main.stats.n)} questions${this.runs.length > 1 ? `; ${this.runs[1].label}: n = ${count(this.runs[1].stats.n)}` : ''}. Bars: share of questions; whiskers: 95% Wilson interval.`, box, numbersTable(['state', ...PROPORTION_HEADERS], rows));
    this.add(canvas, { type: 'bar', data: { labels, datasets }, options: this.barOptions(true, '% of questions'), plugins: [intervalWhiskers] });
    return element;
  }

  private blindCard(colors: ThemeColors): HTMLElement | null {
    const [main] = this.runs;
    if (main.stats.blind.length === 0 && main.stats.reachableByProbe.length === 0) return null;
    const probes = main.stats.reachableByProbe.map((r) => r.probe);
    const selectors = [...new Set(main.stats.blind.map((b) => b.selector))];
    const realized = main.stats.states.find((s) => s.key === 'realized')!.value;
    const labels = probes;
    const datasets: ChartDataset<'bar'>[] = [
      this.barDataset('realized (deployed)', probes.map(() => realized), colors.realized, false),
      this.barDataset('reachable (needs the answer)', main.stats.reachableByProbe.map((r) => r.value), colors.reachable, false),
      ...selectors.map((selector, i) =>
        this.barDataset(`blind: ${selector}`, probes.map((p) => main.stats.blind.find((b) => b.probe === p && b.selector === selector)?.value ?? rateOf(0, 0)), [colors.blind, colors.series[4], colors.series[1]][i % 3], false),
      ),
    ];
    const { box, canvas } = canvasBox('Realized, reachable and answer-blind accuracy per probe, with 95% Wilson intervals');
    const rows: HTMLElement[] = [h('tr', {}, h('td', {}, 'realized'), h('td', {}, '—'), ...proportionCells(realized))];
    for (const r of main.stats.reachableByProbe) rows.push(h('tr', {}, h('td', {}, 'reachable'), h('td', {}, r.probe), ...proportionCells(r.value)));
    for (const b of main.stats.blind) rows.push(h('tr', {}, h('td', {}, `blind: ${b.selector}`), h('td', {}, b.probe), ...proportionCells(b.value)));
    // learned-route is a run-level, cross-fitted choice: summary.json's rows and sentences, per run (base → tuned when comparing).
    const learnedNotes: HTMLElement[] = [];
    for (const run of this.runs) {
      const learned = run.summary?.learnedRoute;
      if (!learned) continue;
      const tag = this.runs.length > 1 ? ` (${run.label})` : '';
      rows.push(h('tr', {}, h('td', {}, `blind: learned-route, cross-fitted${tag}`), h('td', {}, 'routes pool'), ...proportionCells(learned.accuracy.learned)));
      rows.push(h('tr', {}, h('td', {}, `blind: global-route of the same folds${tag}`), h('td', {}, 'routes pool'), ...proportionCells(learned.accuracy.global)));
      rows.push(h('tr', {}, h('td', {}, `blind: shuffled-label control${tag}`), h('td', {}, 'routes pool'), ...proportionCells(learned.accuracy.shuffled)));
      for (const line of learnedRouteLines(learned).slice(2)) learnedNotes.push(h('p', { class: 'card-note learned-route-note' }, `${tag ? `${run.label}: ` : ''}${line.trim()}`));
    }
    const element = card('Reachable vs answer-blind selection', 'The gap between reachable and blind is the part of the gain that needs the gold answer.', box, numbersTable(['measure', 'probe', ...PROPORTION_HEADERS], rows), ...learnedNotes);
    const options = this.barOptions(false, '% of questions');
    if (options?.plugins?.legend) options.plugins.legend.display = true;
    this.add(canvas, { type: 'bar', data: { labels, datasets }, options, plugins: [intervalWhiskers] });
    return element;
  }

  private lineOptions(xTitle: string, yTitle: string): ChartConfiguration<'line'>['options'] {
    return {
      maintainAspectRatio: false,
      responsive: true,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { type: 'linear', title: { display: true, text: xTitle }, ticks: { precision: 0 } },
        y: { min: 0, max: 100, title: { display: true, text: yTitle }, ticks: { callback: (v) => `${v}%` } },
      },
      plugins: {
        legend: { position: 'bottom', labels: { filter: (item) => !String(item.text).endsWith('\u200b') } },
        tooltip: { filter: (item) => !String(item.dataset.label).endsWith('\u200b') },
      },
    };
  }

  /** A curve with its interval as a shaded band (two hidden-from-legend datasets filled between). */
  private curve(label: string, points: { x: number; y: number; low: number; high: number }[], color: string, dashed: boolean): ChartDataset<'line'>[] {
    // A zero-width space marks band datasets so the legend and tooltip skip them.
    const band = (ends: 'low' | 'high'): ChartDataset<'line'> => ({
      label: `${label} ${ends}\u200b`,
      data: points.map((p) => ({ x: p.x, y: p[ends] * 100 })),
      borderWidth: 0,
      pointRadius: 0,
      backgroundColor: withAlpha(color, 0.15),
      fill: ends === 'high' ? '-1' : false,
    });
    return [
      band('low'),
      band('high'),
      {
        label,
        data: points.map((p) => ({ x: p.x, y: p.y * 100 })),
        borderColor: color,
        backgroundColor: color,
        borderWidth: 2,
        borderDash: dashed ? [5, 4] : undefined,
        pointRadius: 2,
        fill: false,
      },
    ];
  }

  private passAtKCard(colors: ThemeColors): HTMLElement | null {
    const curves = this.runs.flatMap((run, r) => run.stats.passAtK.map((c) => ({ run, r, ...c })));
    if (curves.length === 0) return null;
    const datasets: ChartDataset<'line'>[] = [];
    const rows: HTMLElement[] = [];
    for (const c of curves) {
      const color = probeColor(c.probe, colors.series);
      const label = this.runs.length > 1 ? `${c.probe} (${c.run.label})` : c.probe;
      // The interval is the run's own (summary.json's), never one made up here: no band where it has none.
      const points = shownPassAtK(c.probe, c.points, c.run.summary);
      datasets.push(...this.curve(label, points.map((p) => ({ x: p.k, y: p.mean, low: p.ci?.lo ?? p.mean, high: p.ci?.hi ?? p.mean })), color, c.r > 0));
      const ks = [...new Set([1, 2, 4, 8, 16, 32, 64, points.length])].filter((k) => k <= points.length);
      for (const k of ks) {
        const p = points[k - 1];
        // No summary.json column: the panel's pass@k averages the contract's rows, the very rows
        // summary.json averages, so it repeated this column, and was empty (or —) for a run without one.
        rows.push(h('tr', { 'data-probe': c.probe, 'data-k': String(k) }, h('td', {}, label), h('td', { class: 'num' }, String(k)), h('td', { class: 'num' }, percent(p.mean)), h('td', { class: 'num muted' }, p.ci ? intervalText(p.ci.lo, p.ci.hi) : `— (${p.missing})`), h('td', { class: 'num muted' }, count(p.n))));
      }
    }
    const { box, canvas } = canvasBox('pass@k curves per probe with 95% intervals');
    const element = card('pass@k', `${passAtKCaption(curves)} Mean over questions, as summary.json computes it; band: summary.json's 95% interval — Wilson where every question's value is 0 or 1, a percentile bootstrap over questions otherwise (none below ${MIN_BOOTSTRAP_QUESTIONS} questions; a run without its summary yet shows the Wilson ones only). Dashed: base checkpoint.`, box, numbersTable(['probe', 'k', 'pass@k', '95% CI', 'n'], rows));
    this.add(canvas, { type: 'line', data: { datasets }, options: this.lineOptions('k (attempts)', 'pass@k') });
    return element;
  }

  /** Depth of loss (--depth-probe): the failure set's reach from each depth of the deployed output. */
  private depthCard(colors: ThemeColors): HTMLElement | null {
    const withDepth = this.runs.map((run, r) => ({ run, r, depth: run.summary?.depth })).filter((x) => x.depth && x.depth.n > 0);
    if (withDepth.length === 0) return null;
    const datasets: ChartDataset<'line'>[] = [];
    const rows: HTMLElement[] = [];
    const sentences: string[] = [];
    for (const { run, r, depth } of withDepth) {
      const label = this.runs.length > 1 ? `reached (${run.label})` : 'reached';
      const points = depthCurvePoints(depth!);
      // One colour per run: the continuations decode as the sample probe does.
      datasets.push(...this.curve(label, points.map((p) => ({ x: p.x * 100, y: p.y, low: p.low, high: p.high })), r === 0 ? probeColor('sample', colors.series) : colors.muted, r > 0));
      for (const p of points) {
        rows.push(h('tr', {}, ...(this.runs.length > 1 ? [h('td', {}, run.label)] : []), h('td', {}, p.label), h('td', { class: 'num' }, percent(p.x)), ...proportionCells({ n: p.n, successes: p.successes, rate: p.y, ci: { lo: p.low, hi: p.high } })));
      }
      sentences.push(depthCurveText(depth!));
    }
    const { box, canvas } = canvasBox(sentences.join(' '));
    const main = withDepth[0].depth!;
    const headers = [...(this.runs.length > 1 ? ['run'] : []), 'from', 'mean depth', ...PROPORTION_HEADERS];
    const element = card(
      'Reach over depth of the deployed output',
      `Each failure-set question (n = ${count(main.n)}) resampled ${main.budget} times from prefixes of its deployed output (0, ¼, ½, ¾ of its tokens, the last line break). x: the prefix's mean share of the output; y: the share of those questions reached from it; band: 95% Wilson interval. Lost in the first quarter: ${count(main.early.successes)} of ${count(main.early.n)}, later: ${count(main.late.successes)}.${withDepth.length > 1 ? ' Dashed: base checkpoint.' : ''}`,
      box,
      h('p', { class: 'sr-only depth-curve-text' }, sentences.join(' ')),
      numbersTable(headers, rows),
    );
    const options = this.lineOptions('depth into the deployed output (% of its tokens)', 'failure set reached');
    if (options?.scales) options.scales.x = { type: 'linear', min: 0, max: 100, title: { display: true, text: 'depth into the deployed output (% of its tokens)' }, ticks: { callback: (v) => `${v}%` } };
    this.add(canvas, { type: 'line', data: { datasets }, options });
    return element;
  }

  /** Saves against position (--fork-probe): per quarter of the deployed output and arm, the forked questions a fork there saves. */
  private forksCard(colors: ThemeColors): HTMLElement | null {
    const view = this.runs[0]?.forkPositions;
    if (!view) return null;
    const words = forkPositionsText(view);
    const armLabel = { entropy: 'highest-entropy positions', random: 'random positions' } as const;
    const rows: HTMLElement[] = [];
    for (const arm of FORK_ARMS) {
      QUARTER_LABELS.forEach((label, k) => {
        const r = view.saves[arm][k];
        rows.push(h('tr', {}, h('td', {}, armLabel[arm]), h('td', {}, label), ...(view.rates ? proportionCells(r) : [h('td', { class: 'num' }, `${count(r.successes)}/${count(r.n)}`)])));
      });
    }
    const headers = ['forks at', 'quarter of the output', ...(view.rates ? PROPORTION_HEADERS : ['saved / forked'])];
    const note = `Each question the fork probe ran on (n = ${count(view.n)}) counts once per quarter of its deployed output in which a fork of that arm was tried; saved: one of those forks reaches the gold answer${view.rates ? '; whiskers: 95% Wilson interval' : `. Under ${RATE_MIN_QUESTIONS} questions: counts only`}. Earliest saving fork per quarter: ${view.earliest.join(', ')}.`;
    const table = numbersTable(headers, rows);
    if (!view.rates) return card('Saves against position in the deployed output', note, h('p', { class: 'sr-only fork-positions-text' }, words), table);
    const { box, canvas } = canvasBox(words);
    const datasets = [
      this.barDataset(armLabel.entropy, view.saves.entropy, colors.series[0], false),
      this.barDataset(armLabel.random, view.saves.random, colors.muted, false),
    ];
    const element = card('Saves against position in the deployed output', note, box, h('p', { class: 'sr-only fork-positions-text' }, words), table);
    const options = this.barOptions(false, '% of forked questions saved');
    if (options?.plugins?.legend) options.plugins.legend.display = true;
    this.add(canvas, { type: 'bar', data: { labels: [...QUARTER_LABELS], datasets }, options, plugins: [intervalWhiskers] });
    return element;
  }

  /**
   * Random routes vs search: the share reached within the first b attempts of each (from 20
   * questions on), and summary.json's paired comparison — what each spent and the ratio, the
   * questions only one of them reached, exact McNemar, the paired score interval and the verdict
   * (marked saturated when chance alone would reach the questions).
   */
  private matchedBudgetCard(colors: ThemeColors): HTMLElement | null {
    const [main] = this.runs;
    // A stopped run has no summary.json: the same comparison over the questions it finished.
    const fromRecords = main.summary?.routesVsSearch ? undefined : main.unfinished;
    const paired = main.summary?.routesVsSearch ?? fromRecords?.routesVsSearch;
    const view = routesVsSearchView(paired, main.summary?.chance ?? fromRecords?.chance);
    const routeProbes = main.stats.foundWithin.filter((f) => f.probe === 'routes' || f.probe === 'search');
    if (!view && routeProbes.length === 0) return null;
    const few = main.stats.n < RATE_MIN_QUESTIONS;
    const body: (Node | null)[] = [];
    if (view?.unmatched) body.push(h('p', { class: 'rvs-unmatched', role: 'note' }, view.unmatched));
    if (view && fromRecords && typeof fromRecords.n === 'number') {
      body.push(h('p', { class: 'card-note rvs-unfinished', role: 'note' }, `Over the ${count(fromRecords.n)} questions finished so far: the run has no summary.json yet (it stopped before the end), so these are the numbers its summary would give for them.`));
    }
    if (view) {
      body.push(h('div', { class: 'rvs-tiles' }, ...view.tiles.map((t) =>
        h('div', { class: `metric rvs-tile rvs-${t.key}`, title: t.title },
          h('div', { class: 'metric-label' }, t.label),
          h('div', { class: 'metric-value' }, t.value),
          h('div', { class: 'metric-detail muted' }, t.detail)))));
      body.push(numbersTable(['spent', paired!.a, paired!.b, 'ratio'],
        view.costs.map((c) => h('tr', { 'data-measure': c.measure }, h('td', {}, c.measure), h('td', { class: 'num' }, c.a), h('td', { class: 'num' }, c.b), h('td', { class: 'num' }, c.ratio)))));
      for (const note of view.notes) body.push(h('p', { class: 'card-note muted' }, note));
    } else {
      body.push(h('p', { class: 'card-note muted' }, this.live ? 'The paired comparison comes with the finished run\'s summary.' : 'This run has no paired comparison (it needs both the routes and the search probe on the same questions).'));
    }
    const sweep = sweepView(main.searchSweep);
    if (sweep) {
      body.push(
        h('h4', { class: 'rvs-sweep-title' }, 'The search over its exploration constant c (--search-sweep)'),
        h('table', { class: 'mini-table numbers rvs-sweep', 'aria-label': 'Random routes vs the search at each exploration constant of the sweep' },
          h('thead', {}, h('tr', {}, ...SWEEP_HEADERS.map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, ...sweep.rows.map((r) => h('tr', { 'data-c': String(r.c), class: r.own ? 'highlight' : undefined }, ...r.cells.map((c, i) => h('td', { class: i === 0 ? undefined : 'num' }, c)))))),
        ...sweep.notes.map((note) => h('p', { class: 'card-note muted rvs-sweep-note' }, note)),
      );
    }
    if (!few && routeProbes.length > 0) {
      const datasets: ChartDataset<'line'>[] = [];
      const rows: HTMLElement[] = [];
      routeProbes.forEach((f) => {
        datasets.push(...this.curve(f.probe, f.points.map((p) => ({ x: p.b, y: p.rate, low: p.ci.lo, high: p.ci.hi })), probeColor(f.probe, colors.series), false));
        const last = f.points[f.points.length - 1];
        rows.push(h('tr', {}, h('td', {}, f.probe), h('td', { class: 'num' }, String(last.b)), ...proportionCells(last)));
      });
      const { box, canvas } = canvasBox('Share of questions reached within the first b attempts, random routes vs route search');
      body.push(box, numbersTable(['probe', 'budget', ...PROPORTION_HEADERS], rows));
      this.add(canvas, { type: 'line', data: { datasets }, options: this.lineOptions('b (generations per question)', 'reached') });
    }
    const note = view?.unmatched
      ? 'The two probes had different generation budgets: the comparison below is not at a matched budget.'
      : 'Paired over the questions both probes ran: equal generations per question; tokens and block applications are what each actually spent. Curve: share reached within the first b attempts, band: 95% Wilson interval.';
    return card(view?.unmatched ? 'Random routes vs search — UNMATCHED budgets' : 'Random routes vs search at matched budget', view ? `${view.heading}. ${note}` : note, ...body);
  }

  /**
   * A run of few questions: per question and probe, how many of the B attempts were right — counts,
   * not rates (storyView.ts says why).
   */
  private perProbeCard(colors: ThemeColors): HTMLElement | null {
    const [main] = this.runs;
    const rows = main.stats.perProbe;
    if (rows.length === 0) return null;
    const labels = rows.map((r) => `${r.id} · ${r.probe}`);
    const datasets: ChartDataset<'bar'>[] = [
      { label: 'right', data: rows.map((r) => r.right), backgroundColor: withAlpha(colors.realized, 0.6), borderColor: colors.realized, borderWidth: 1, stack: 'attempts' },
      { label: 'wrong', data: rows.map((r) => r.made - r.right), backgroundColor: withAlpha(colors.unreached, 0.35), borderColor: colors.unreached, borderWidth: 1, stack: 'attempts' },
      { label: 'not made (route space ran out)', data: rows.map((r) => r.budget - r.made), backgroundColor: withAlpha(colors.muted, 0.2), borderColor: colors.muted, borderWidth: 1, stack: 'attempts' },
    ];
    const { box, canvas } = canvasBox('Right and wrong attempts per question and probe; numbers in the table below', rows.length > 8);
    // A bar's height for every question and probe, so each gets its label (chart.js skips labels it has no room for).
    box.style.height = `${Math.max(240, rows.length * PER_PROBE_ROW_PX + 90)}px`;
    const table = numbersTable(['question', 'probe', 'right', 'of B', 'reachable'],
      rows.map((r) => h('tr', { 'data-id': r.id, 'data-probe': r.probe }, h('td', {}, r.id), h('td', {}, r.probe), h('td', { class: 'num' }, count(r.right)), h('td', { class: 'num' }, count(r.budget)), h('td', {}, r.right > 0 ? 'yes' : 'no'))));
    const element = card('Attempts per probe', `Each question's attempts under each probe: right, wrong, and not made. Counts over ${count(main.stats.n)} question${main.stats.n === 1 ? '' : 's'}; rates with intervals from ${RATE_MIN_QUESTIONS} questions on.`, box, table);
    const max = Math.max(1, ...rows.map((r) => r.budget));
    this.add(canvas, {
      type: 'bar',
      data: { labels, datasets },
      options: {
        indexAxis: 'y',
        maintainAspectRatio: false,
        responsive: true,
        scales: { x: { stacked: true, min: 0, max, ticks: { precision: 0 }, title: { display: true, text: 'attempts' } }, y: { stacked: true, grid: { display: false }, ticks: { autoSkip: false } } },
        plugins: { legend: { display: true, position: 'bottom' } },
      },
    });
    return element;
  }

  private repairCard(colors: ThemeColors): HTMLElement | null {
    const [main] = this.runs;
    const byBlock = main.stats.byBlock;
    if (byBlock.length === 0) return null;
    const identified = main.summary?.repair?.identifiedBlock;
    const labels = byBlock.map((b) => (b.block === identified ? `L${b.block} ★` : `L${b.block}`));
    const datasets = [
      this.barDataset('repair rate (failure set)', byBlock.map((b) => b.repair), colors.repair, false),
      this.barDataset('damage rate (realized)', byBlock.map((b) => b.damage), colors.damage, false),
    ];
    const rows = byBlock.map((b) =>
      h('tr', { class: b.block === identified ? 'highlight' : undefined },
        h('td', {}, labels[b.block] ?? `L${b.block}`), ...proportionCells(b.repair), ...proportionCells(b.damage)),
    );
    const { box, canvas } = canvasBox('Repair rate and damage rate when silencing each block\'s MLP, with 95% Wilson intervals');
    const element = card(
      'Repair and damage by block',
      `Silencing one block's MLP. Repair: share of the failure set that comes out right; damage: share of realized questions it breaks.${identified !== undefined ? ' ★ identified block (chosen on the selection half).' : ''}`,
      box,
      numbersTable(['block', 'repair', '95% CI', 'k/n', 'damage', '95% CI', 'k/n'], rows),
      ...repairNullSentences(identified, main.summary?.repair?.null).map((line) => h('p', { class: 'card-note repair-null' }, line)),
    );
    const options = this.barOptions(false, '% of questions', false);
    if (options?.plugins?.legend) options.plugins.legend.display = true;
    this.add(canvas, { type: 'bar', data: { labels, datasets }, options, plugins: [intervalWhiskers] });
    return element;
  }

  private heatmapCard(): HTMLElement | null {
    const [main] = this.runs;
    if (main.stats.heatmapRows.length === 0) return null;
    this.heatmap = new RepairHeatmap(this.onSelectQuestion);
    const element = card('Failure set × block repair map', `Rows: the ${count(main.stats.heatmapRows.length)} failure-set questions (most-repaired first); columns: the silenced block. Filled: that block repairs the question. Click a cell to open the question.`, this.heatmap.element);
    return element;
  }
}

/** How each probe's pass@k reads its attempts (the contract's passAtKKindOf). */
function passAtKCaption(curves: readonly { probe: string; kind: PassAtKKind }[]): string {
  const byKind = (kind: PassAtKKind) => [...new Set(curves.filter((c) => c.kind === kind).map((c) => c.probe))];
  const parts: string[] = [];
  const unbiased = byKind('unbiased');
  const approximate = byKind('approximate');
  const firstK = byKind('first-k');
  if (unbiased.length > 0) parts.push(`${unbiased.join(', ')}: unbiased estimator (Chen et al. 2021).`);
  if (approximate.length > 0) parts.push(`${approximate.join(', ')}: the same estimator, approximate (distinct routes drawn without replacement from a non-uniform space are not exchangeable draws).`);
  if (firstK.length > 0) parts.push(`${firstK.join(', ')}: solved within the first k attempts (its attempts are ordered).`);
  return parts.join(' ');
}
