/**
 * The detail pane of one question: the question, the deployed output with its extracted answer and
 * the rule that matched, every probe attempt (route strip, answer, correctness, log-prob, output
 * on demand), where the answer forks (fork probe), where the answer is lost (depth probe), the answer-blind picks and the repair row. All text goes in as text.
 */
import { h, replaceChildren, type Child } from '../common/element';
import { type Attempt, type MechanismRecord, type ProbeResult, repairLine } from '../../../src/contract';
import type { QuestionRow } from './questionRow';
import { depthSection } from './depthSection';
import { forkSection } from './forkSection';
import { routeStrip } from './routeStrip';
import { stateChips } from './stateChips';
import { whyNotRealizedSection } from './whyNotRealized';

export interface DetailActions {
  reveal: (row: QuestionRow) => void;
  open: (row: QuestionRow) => void;
  /** Clears the table's filter and search so the question shown is in it again, selected. */
  showInTable: (row: QuestionRow) => void;
}

export interface DetailContext {
  numBlocks: number;
  /** The same question in the base checkpoint's run, when comparing. */
  baseRow?: QuestionRow;
  baseLabel?: string;
  /** The question's account in the run's mechanism.jsonl (`reach-audit explain`), when it has one. */
  mechanism?: MechanismRecord;
  /** The pool route learned-route chose for the question (an index into its global-route pool), from summary.json. */
  learnedRoute?: { index: number; folds: number };
}

function mark(correct: boolean | undefined): HTMLElement {
  return correct
    ? h('span', { class: 'mark mark-correct', title: 'correct' }, '✓', h('span', { class: 'sr-only' }, ' correct'))
    : h('span', { class: 'mark mark-wrong', title: 'wrong' }, '✗', h('span', { class: 'sr-only' }, ' wrong'));
}

function answerText(answer: string | null | undefined): string {
  return answer === null || answer === undefined || answer === '' ? '∅ (no answer extracted)' : String(answer);
}

function button(label: string, title: string, onClick: () => void, appearance = 'secondary'): HTMLElement {
  const b = h('vscode-button', { appearance, title }, label);
  b.addEventListener('click', onClick);
  return b;
}

function fact(term: string, ...value: Child[]): HTMLElement[] {
  return [h('dt', {}, term), h('dd', {}, ...value)];
}

function attemptRow(probe: string, attempt: Attempt, index: number, numBlocks: number): HTMLElement {
  const logprob = typeof attempt.logprob === 'number' && Number.isFinite(attempt.logprob) ? attempt.logprob.toFixed(3) : '–';
  const how = Array.isArray(attempt.route)
    ? routeStrip(attempt.route, numBlocks)
    : h('span', { class: 'muted' }, attempt.seed !== undefined ? `seed ${attempt.seed}` : probe);
  const summary = h(
    'summary',
    { class: `attempt ${attempt.correct ? 'attempt-correct' : ''}` },
    h('span', { class: 'attempt-n' }, `#${index + 1}`),
    h('span', { class: 'attempt-how' }, how),
    h('span', { class: 'attempt-answer', title: answerText(attempt.answer) }, answerText(attempt.answer)),
    mark(attempt.correct),
    h('span', { class: 'attempt-logprob', title: 'mean token log-prob' }, logprob),
  );
  const details = h('details', { class: 'attempt-details' }, summary);
  // The output is built on first open: 48 attempts × long outputs is too much DOM up front.
  details.addEventListener('toggle', () => {
    if (details.open && details.childElementCount === 1) {
      details.appendChild(
        h('div', { class: 'attempt-output' },
          attempt.rule ? h('div', { class: 'muted' }, `rule: ${attempt.rule}${attempt.thought === 'unfinished' ? ' · cut while thinking' : ''}${attempt.truncated ? ' · truncated' : ''}`) : null,
          h('pre', { class: 'text' }, attempt.output ?? '')),
      );
    }
  });
  return details;
}

function probeSection(probe: string, result: ProbeResult, reachable: boolean | undefined, numBlocks: number): HTMLElement {
  const attempts = Array.isArray(result.attempts) ? result.attempts : [];
  const correct = attempts.filter((a) => a?.correct === true).length;
  const section = h(
    'div',
    { class: 'probe' },
    h(
      'h4',
      {},
      probe,
      h('span', { class: 'muted' }, ` · budget ${result.budget ?? attempts.length} · ${correct}/${attempts.length} correct · `),
      h('span', { class: reachable ? 'reach-yes' : 'reach-no' }, reachable ? 'reachable' : 'not reached'),
    ),
    h('div', { class: 'attempt attempt-head', 'aria-hidden': 'true' }, h('span', {}, '#'), h('span', {}, probe === 'sample' ? 'seed' : 'route'), h('span', {}, 'answer'), h('span', {}, ''), h('span', { class: 'attempt-logprob' }, 'log p')),
  );
  attempts.forEach((a, i) => section.appendChild(attemptRow(probe, a, i, numBlocks)));
  return section;
}

function repairSection(row: QuestionRow, numBlocks: number): HTMLElement | null {
  const repair = row.record.repair;
  if (!repair || !repair.correctBySilencedBlock) return null;
  const realized = row.record.realized?.correct === true;
  const map = repair.correctBySilencedBlock;
  const blocks = Object.keys(map).map(Number).filter(Number.isInteger);
  const total = Math.max(numBlocks, blocks.length === 0 ? 0 : Math.max(...blocks) + 1);
  // The story's own sentence (contract/questionStory.ts), so the detail pane and the one-question
  // story say the same of the scan: a question the scan skipped reads "Not scanned", not "no block repairs it".
  const label = `${repairLine({ inFailureSet: repair.inFailureSet === true, realized, scanned: blocks.length, repairedBy: row.repairedBy, damagedBy: row.damagedBy })}.`;
  if (blocks.length === 0) {
    return h('section', { class: 'detail-section' }, h('h3', {}, 'Repair scan ', h('span', { class: 'muted' }, '(not scanned)')), h('p', { class: 'muted repair-line' }, label));
  }
  const strip = h('div', { class: 'repair-strip', role: 'img', 'aria-label': label });
  for (let block = 0; block < total; block++) {
    const value = map[String(block)];
    const kind = value === undefined ? 'none' : realized ? (value ? 'kept' : 'broken') : value ? 'repaired' : 'unrepaired';
    strip.appendChild(h('span', { class: `repair-cell repair-${kind}`, title: `block ${block}: ${kind === 'none' ? 'not scanned' : kind}`, 'aria-hidden': 'true' }, String(block)));
  }
  return h(
    'section',
    { class: 'detail-section' },
    h('h3', {}, 'Repair scan ', h('span', { class: 'muted' }, repair.inFailureSet ? '(in the failure set)' : realized ? '(collateral damage check)' : '(not in the failure set)')),
    strip,
    h('p', { class: 'muted repair-line' }, label),
  );
}

function blindSection(row: QuestionRow): HTMLElement | null {
  const blind = row.record.blind;
  if (!blind || Object.keys(blind).length === 0) return null;
  const table = h('table', { class: 'mini-table' }, h('thead', {}, h('tr', {}, h('th', {}, 'probe'), h('th', {}, 'selector'), h('th', {}, 'answer'), h('th', {}, ''))));
  const body = h('tbody');
  for (const [probe, selectors] of Object.entries(blind)) {
    for (const [selector, pick] of Object.entries(selectors ?? {})) {
      body.appendChild(h('tr', {}, h('td', {}, probe), h('td', {}, selector), h('td', {}, answerText(pick?.answer)), h('td', {}, mark(pick?.correct === true))));
    }
  }
  table.appendChild(body);
  return h('section', { class: 'detail-section' }, h('h3', {}, 'Answer-blind selection'), table);
}

/** The route learned-route took for this question, with the answer it gave; model text goes in as text only. */
function learnedRouteSection(row: QuestionRow, chosen: DetailContext['learnedRoute'], numBlocks: number): HTMLElement | null {
  if (!chosen) return null;
  const attempt = row.record.globalRoutes?.attempts?.[chosen.index];
  if (!attempt) return null;
  const route = Array.isArray(attempt.route) ? routeStrip(attempt.route, numBlocks) : h('span', { class: 'muted' }, 'route not recorded');
  return h(
    'section',
    { class: 'detail-section learned-route' },
    h('h3', {}, 'Learned route ', h('span', { class: 'muted' }, `(pool route #${chosen.index + 1}, chosen by a router fit on the other ${chosen.folds - 1} folds)`)),
    route,
    h('dl', { class: 'facts' }, ...fact('Answer', h('span', { class: 'answer' }, answerText(attempt.answer)), ' ', mark(attempt.correct === true))),
    h('pre', { class: 'text output' }, attempt.output ?? ''),
  );
}

export class DetailPane {
  readonly element: HTMLElement;

  /** Scrolls the section `selector` of the question shown to the top of the pane, once it is drawn. */
  reveal(selector: string): void {
    // Two frames: the selection draws the detail in the next one.
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const section = this.element.querySelector(selector);
      if (section instanceof HTMLElement) this.element.scrollTop += section.getBoundingClientRect().top - this.element.getBoundingClientRect().top;
    }));
  }
  private current: QuestionRow | undefined;

  constructor(private readonly actions: DetailActions) {
    this.element = h('section', { class: 'detail', 'aria-label': 'Question detail', tabindex: -1 });
    this.showEmpty();
  }

  get shown(): QuestionRow | undefined {
    return this.current;
  }

  /**
   * Whether the table's filter or search hides the question shown: said at the pane's top, with a
   * way back, so the pane never reads as one of the rows the table lists.
   */
  markHidden(hidden: boolean): void {
    const row = this.current;
    const note = this.element.querySelector(':scope > .detail-hidden');
    if (!row || !hidden) {
      note?.remove();
      return;
    }
    if (note) return;
    this.element.prepend(h('div', { class: 'detail-hidden', role: 'status' },
      h('span', {}, 'Not in the table: the current filter or search hides this question.'),
      button('Show in Table', 'Clear the filter and search, and select this question in the table', () => this.actions.showInTable(row))));
  }

  showEmpty(): void {
    this.current = undefined;
    replaceChildren(this.element, h('div', { class: 'detail-empty muted' }, 'Select a question to see its text, deployed output, probe attempts and repair scan.'));
  }

  show(row: QuestionRow, context: DetailContext): void {
    this.current = row;
    const record = row.record;
    const realized = record.realized ?? { output: '', answer: null, correct: false };
    const chips = h('div', { class: 'chips' });
    for (const c of stateChips(row, false)) chips.appendChild(c);

    const header = h(
      'header',
      { class: 'detail-header' },
      h('div', { class: 'detail-title' }, h('h2', {}, `Question ${row.id}`), h('span', { class: 'muted' }, Number.isFinite(record.line) ? `line ${record.line}` : '')),
      h('div', { class: 'detail-actions' },
        button('Reveal in dataset', 'Show this question in the dataset file', () => this.actions.reveal(row), 'primary'),
        button('Open record', 'Open this question\'s record (JSON)', () => this.actions.open(row))),
      chips,
    );

    const question = h('section', { class: 'detail-section' }, h('h3', {}, 'Question'), h('pre', { class: 'text question-text' }, row.text));

    const facts = h('dl', { class: 'facts' },
      ...fact('Gold', h('span', { class: 'answer' }, answerText(record.gold))),
      ...fact('Deployed answer', h('span', { class: 'answer' }, answerText(realized.answer)), ' ', mark(realized.correct)),
      ...fact('Rule', realized.rule ? realized.rule : h('span', { class: 'muted' }, realized.answer === null ? 'no rule matched' : 'not recorded')),
      ...fact('Truncated', realized.truncated ? h('span', { class: 'chip chip-truncated' }, 'hit the token limit') : 'no'),
      ...(realized.thought ? fact('Thought', realized.thought === 'unfinished' ? h('span', { class: 'chip chip-thinking' }, 'cut while thinking: no answer read') : 'closed; the answer was read after it') : []),
    );
    const deployed = h('section', { class: 'detail-section' }, h('h3', {}, 'Deployed output'), facts, h('pre', { class: 'text output' }, realized.output ?? ''));

    const probes = h('section', { class: 'detail-section' }, h('h3', {}, 'Probe attempts'));
    const probeEntries = Object.entries(record.probes ?? {});
    if (probeEntries.length === 0) probes.appendChild(h('p', { class: 'muted' }, 'No probe results in this record.'));
    for (const [probe, result] of probeEntries) if (result) probes.appendChild(probeSection(probe, result, record.reachable?.[probe], context.numBlocks));

    let base: HTMLElement | null = null;
    if (context.baseRow) {
      const baseChips = h('div', { class: 'chips' });
      for (const c of stateChips(context.baseRow, false)) baseChips.appendChild(c);
      base = h('section', { class: 'detail-section' },
        h('h3', {}, `In ${context.baseLabel ?? 'the base checkpoint'}`),
        baseChips,
        h('dl', { class: 'facts' }, ...fact('Deployed answer', h('span', { class: 'answer' }, answerText(context.baseRow.record.realized?.answer)), ' ', mark(context.baseRow.record.realized?.correct))));
    }

    replaceChildren(this.element, header, question, deployed, forkSection(record.deployedTokens, record.fork, record.foreclosure), depthSection(record.depth, realized.output ?? '', record.foreclosure), probes, blindSection(row), learnedRouteSection(row, context.learnedRoute, context.numBlocks), whyNotRealizedSection(context.mechanism, record), repairSection(row, context.numBlocks), base);
    this.element.scrollTop = 0;
  }
}
