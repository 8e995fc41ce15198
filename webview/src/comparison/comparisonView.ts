/**
 * The Comparison section of the Questions tab (checkpoint comparison, docs/design/comparison.md): the paired
 * differences (realized, reachable ceiling, each probe) with n, the 95% paired score interval,
 * the exact McNemar p, lost/gained and the verdict against the equivalence margin; the base → tuned transition table; and the newly realized
 * questions split into already-reachable-by-base vs newly-reachable with Wilson intervals; random
 * routes vs search on each checkpoint, decided on its gain set (gainSetRows.ts); and the ceilings along k
 * (tuned − base pass@k at every k, passAtKDeltaChart.ts). It is a tab of its own beside the
 * question table's: above the table it had only the height the table left (a box scrolled inside
 * another beside a dataset); its counts are filters of that table, so a click shows the questions
 * behind a number in the Questions tab.
 */
import { COUNTED_DELTA_NOTE, deltaClass, deltaRows, deltaText, intervalMethodText, NEWLY_LABELS, newlySplit, pValueText, transitionGrid, verdictRule, type DeltaRow } from './comparisonModel';
import { count, h, intervalText, replaceChildren } from '../common/element';
import { formatPercent as percent, type Comparison, RATE_MIN_QUESTIONS } from '../../../src/contract';
import { transitionTable } from './transitionTable';
import { GAIN_SET_HEADERS, type GainSetRow } from './gainSetRows';
import { passAtKDeltaBlock } from './passAtKDeltaChart';
import { passAtKDeltaCurves } from './passAtKDeltaText';
import { stackCells } from './stackedCells';
import { SWEEP_HEADERS, type SweepView } from '../charts/sweepRows';
import type { Chart } from 'chart.js';

export interface ComparisonCallbacks {
  /** A count was clicked: filter the table to its questions (the same key again clears it). */
  select(key: string): void;
}

export interface ComparisonLabels {
  base: string;
  tuned: string;
}

function block(title: string, note: string, ...body: HTMLElement[]): HTMLElement {
  return h('section', { class: 'compare-block' }, h('h3', {}, title), h('p', { class: 'card-note muted' }, note), ...body);
}

function deltaRow(row: DeltaRow): HTMLElement {
  const d = row.delta;
  const sign = deltaClass(d);
  const text = deltaText(d, percent);
  return h('tr', { 'data-key': row.key, class: text.counted ? 'counted' : undefined },
    h('th', { scope: 'row' }, row.label),
    h('td', { class: 'num' }, text.base),
    h('td', { class: 'num' }, text.tuned),
    h('td', { class: `num delta ${sign}` }, text.delta),
    h('td', { class: 'num', title: text.counted ? `No interval over fewer than ${RATE_MIN_QUESTIONS} questions` : undefined }, text.interval),
    h('td', { class: 'num' }, pValueText(d.mcnemarP)),
    h('td', { class: 'num' }, count(d.lost)),
    h('td', { class: 'num' }, count(d.gained)),
    h('td', { class: 'num' }, count(d.n)),
    h('td', { class: 'verdict', title: text.counted ? COUNTED_DELTA_NOTE : verdictRule(d.decision) }, text.verdict));
}

export class ComparisonView {
  readonly element = h('section', { class: 'compare', hidden: true, 'aria-label': 'Comparison of the checkpoints' });
  private readonly summary = h('h2', { class: 'compare-summary' });
  private readonly body = h('div', { class: 'compare-body' });
  private chart: Chart | undefined;

  constructor(private readonly callbacks: ComparisonCallbacks) {
    this.element.append(this.summary, this.body);
  }

  /** Whether a comparison is drawn (the section hides when there is none). */
  get shown(): boolean {
    return !this.element.hidden;
  }

  /** Draws the comparison, or hides the section when there is none. */
  show(compare: Comparison | undefined, labels: ComparisonLabels, selectedKey: string | undefined, gainSet: readonly GainSetRow[] = [], sweeps: readonly { checkpoint: string; view: SweepView }[] = []): void {
    const deltas = deltaRows(compare);
    const grid = transitionGrid(compare);
    const newly = newlySplit(compare);
    this.chart?.destroy();
    this.chart = undefined;
    if (!compare || (deltas.length === 0 && !grid && !newly)) {
      this.element.hidden = true;
      replaceChildren(this.body);
      return;
    }
    this.element.hidden = false;

    const n = typeof compare.n === 'number' ? compare.n : grid?.total;
    const unmatched = (compare.unmatched?.baseOnly?.length ?? 0) + (compare.unmatched?.tunedOnly?.length ?? 0);
    replaceChildren(
      this.summary,
      h('span', { class: 'compare-title' }, 'Comparison'),
      h('span', { class: 'muted' }, ` · base ${labels.base} → tuned ${labels.tuned}`),
      n !== undefined ? h('span', { class: 'muted' }, ` · n = ${count(n)} paired questions`) : null,
      unmatched > 0 ? h('span', { class: 'muted' }, ` · ${count(unmatched)} in only one run, left out`) : null,
    );

    const blocks: HTMLElement[] = [];
    if (deltas.length > 0) {
      blocks.push(block(
        'Paired differences (tuned − base)',
        deltas.every((r) => r.delta.n < RATE_MIN_QUESTIONS)
          ? `Questions of the paired ones on each checkpoint. ${COUNTED_DELTA_NOTE} The ceiling counts a question realized or reached by any probe.`
          : `Share of the paired questions on each checkpoint; 95% ${intervalMethodText(deltas[0].delta.ciMethod)} of the difference; exact McNemar test on the questions that changed; the verdict against the equivalence margin (better / worse / equivalent / inconclusive). The ceiling counts a question realized or reached by any probe.`,
        h('table', { class: 'mini-table compare-deltas', 'aria-label': 'Paired differences between the checkpoints' },
          h('thead', {}, h('tr', {}, ...['measure', 'base', 'tuned', 'Δ', '95% CI', 'McNemar p', 'lost', 'gained', 'n', 'verdict'].map((t, i) => h('th', { scope: 'col', class: i === 0 || i === 9 ? undefined : 'num' }, t)))),
          h('tbody', {}, ...deltas.map(deltaRow))),
      ));
    }
    if (grid) {
      blocks.push(block(
        'Transitions',
        'Each question’s state on the base checkpoint (rows) and the tuned one (columns). Click a count to show those questions in the table.',
        transitionTable(grid, selectedKey, (key) => this.callbacks.select(key)),
      ));
    }
    if (newly) {
      const rows = newly.parts.map(({ part, rate, key }) => {
        const button = h(
          'button',
          { type: 'button', class: 'transition-cell newly-cell', 'data-key': key, 'aria-pressed': key === selectedKey ? 'true' : 'false', disabled: rate.ids.length === 0, 'aria-label': `${count(rate.ids.length)} newly realized questions ${NEWLY_LABELS[part]}. Show them in the table.` },
          count(rate.ids.length),
        );
        button.addEventListener('click', () => this.callbacks.select(key));
        return h('tr', { 'data-key': key },
          h('th', { scope: 'row' }, NEWLY_LABELS[part]),
          h('td', { class: 'num' }, button),
          // A share over fewer than RATE_MIN_QUESTIONS is left to its count.
          h('td', { class: 'num' }, rate.n < RATE_MIN_QUESTIONS ? '—' : percent(rate.rate)),
          h('td', { class: 'num' }, rate.n < RATE_MIN_QUESTIONS ? '—' : intervalText(rate.ci.lo, rate.ci.hi)),
          h('td', { class: 'num' }, count(rate.n)));
      });
      blocks.push(block(
        `Newly realized (${count(newly.n)})`,
        'Realized by tuned, not by base: did training realize what base could already reach with a probe, or make it reachable? Share with its 95% Wilson interval.',
        h('table', { class: 'mini-table compare-newly', 'aria-label': 'Newly realized questions by what base could reach' },
          h('thead', {}, h('tr', {}, ...['part', 'questions', 'share', '95% CI', 'n'].map((t, i) => h('th', { scope: 'col', class: i === 0 ? undefined : 'num' }, t)))),
          h('tbody', {}, ...rows)),
      ));
    }
    if (gainSet.length > 0) {
      blocks.push(block(
        'Random routes vs search on each checkpoint',
        "Decided on the gain set: the questions that checkpoint's deployment does not realize, the only ones where a probe can add an answer (over all questions the realized ones, which both probes mostly reach, dilute the difference; that verdict is beside it). 95% Newcombe's paired score interval, exact McNemar test, verdict against the margin.",
        h('table', { class: 'mini-table compare-gain-set', 'aria-label': 'Random routes vs search on the gain set of each checkpoint' },
          h('thead', {}, h('tr', {}, ...GAIN_SET_HEADERS.map((t, i) => h('th', { scope: 'col', class: i === 0 || i >= 6 ? undefined : 'num' }, t)))),
          h('tbody', {}, ...gainSet.map((row) => h('tr', { 'data-checkpoint': row.checkpoint }, h('th', { scope: 'row' }, row.checkpoint), ...row.cells.map((c, i) => h('td', { class: i >= 5 ? 'verdict' : 'num' }, c)))))),
      ));
    }
    if (sweeps.length > 0) {
      blocks.push(block(
        'The search over its exploration constant c (--search-sweep), each checkpoint',
        'Per c (the probe\'s own marked) the search\'s reach and routes − search on the same questions, so a reader sees whether the verdict above depends on c.',
        h('table', { class: 'mini-table compare-sweep', 'aria-label': 'Random routes vs the search at each exploration constant of the sweep, each checkpoint' },
          h('thead', {}, h('tr', {}, ...['checkpoint', ...SWEEP_HEADERS].map((t, i) => h('th', { scope: 'col', class: i <= 1 ? undefined : 'num' }, t)))),
          h('tbody', {}, ...sweeps.flatMap(({ checkpoint, view }) => view.rows.map((r) => h('tr', { 'data-checkpoint': checkpoint, 'data-c': String(r.c) }, h('th', { scope: 'row' }, checkpoint), ...r.cells.map((c, i) => h('td', { class: i === 0 ? undefined : 'num' }, c))))))),
        ...sweeps.flatMap(({ checkpoint, view }) => view.notes.map((note) => h('p', { class: 'card-note muted compare-sweep-note', 'data-checkpoint': checkpoint }, `${checkpoint}: ${note}`))),
      ));
    }
    const curves = passAtKDeltaCurves(compare);
    // The section's under-20 rule holds here too: below it every difference is a count, so no curve of points.
    const fewPaired = curves.length > 0 && curves[0].n < RATE_MIN_QUESTIONS;
    if (fewPaired) {
      blocks.push(block('Ceilings along k (tuned − base pass@k)', `Fewer than ${RATE_MIN_QUESTIONS} paired questions (n = ${count(curves[0].n)}): the differences along k are not drawn; they start at ${RATE_MIN_QUESTIONS} questions, as every difference in this section.`));
    }
    const alongK = curves.length > 0 && !fewPaired ? passAtKDeltaBlock(curves) : undefined;
    if (alongK) {
      blocks.push(block(
        'Ceilings along k (tuned − base pass@k)',
        `At every k up to the budget, paired over n = ${count(curves[0].n)} questions: realized (the same at every k), each probe, and the reachable ceiling (realized, or reached within k by some probe: the ceiling above, within k). The ceiling at the budget alone cannot tell a lower ceiling from curves that cross. 95% intervals: Newcombe's paired score where every value is 0 or 1, a seeded paired bootstrap elsewhere, none below 20 questions; not adjusted over k.`,
        alongK.element,
      ));
    }
    replaceChildren(this.body, ...blocks);
    // Every table but the transitions' matrix (which fits) stacks its rows in a narrow panel.
    for (const table of this.body.querySelectorAll<HTMLTableElement>('table.mini-table:not(.transitions)')) stackCells(table);
    if (alongK) this.chart = alongK.draw();
  }

  /** Marks the count that filters the table (or none). */
  markSelected(key: string | undefined): void {
    for (const button of this.body.querySelectorAll<HTMLElement>('button[data-key]')) {
      button.setAttribute('aria-pressed', button.dataset.key === key ? 'true' : 'false');
    }
  }
}
