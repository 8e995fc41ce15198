/**
 * The checkpoint comparison as the panel shows it, DOM-free: the paired differences in reading
 * order, the 3×3 transition table (base state → tuned state, with row and column totals), and the
 * question sets a click selects (a transition cell, or one part of the newly realized split) with
 * the words of the filter chip. The comparison crosses postMessage from a comparison.json on disk
 * (possibly an older one), so every part is read defensively: a malformed part is left out rather
 * than shown wrong.
 */
import { decisionOf, isObject, storedVerdictText, type Comparison, type PairedDelta, type QuestionState, type RateWithIds, ofText, RATE_MIN_QUESTIONS } from '../../../src/contract';

/** Best first: the order of the table's rows and columns. */
export const COMPARED_STATES: readonly QuestionState[] = ['realized', 'reachable', 'unreached'];

/** Column and row headings: in a comparison, "reachable" means reachable but not realized. */
export const STATE_HEADINGS: Record<QuestionState, string> = {
  realized: 'realized',
  reachable: 'reachable, not realized',
  unreached: 'unreached',
};

export interface DeltaRow {
  /** Stable key (`realized`, `ceiling`, `probe:<name>`). */
  key: string;
  label: string;
  delta: PairedDelta;
}

export interface TransitionCell {
  from: QuestionState;
  to: QuestionState;
  ids: string[];
  /** The selection key a click on this cell applies. */
  key: string;
}

export interface TransitionGrid {
  rows: { from: QuestionState; cells: TransitionCell[]; total: number }[];
  /** Per tuned state, in COMPARED_STATES order. */
  columnTotals: number[];
  total: number;
}

/** A set of questions the table can be filtered to, with the chip's words. */
export interface CompareSelection {
  key: string;
  label: string;
  ids: string[];
}

export type NewlyPart = 'alreadyReachable' | 'newlyReachable';
export const NEWLY_PARTS: readonly NewlyPart[] = ['alreadyReachable', 'newlyReachable'];
export const NEWLY_LABELS: Record<NewlyPart, string> = {
  alreadyReachable: 'already reachable by base',
  newlyReachable: 'newly reachable',
};

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Question ids as the table keys them (records may carry numeric ids; rows use String(id)). */
function idsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map((id) => String(id)) : undefined;
}

export function isPairedDelta(value: unknown): value is PairedDelta {
  if (!isObject(value) || !isObject(value.ci)) return false;
  return [value.base, value.tuned, value.delta, value.ci.lo, value.ci.hi, value.mcnemarP, value.lost, value.gained, value.n].every(finite);
}

function isComparedRate(value: unknown): value is RateWithIds {
  return isObject(value) && isObject(value.ci) && [value.n, value.successes, value.rate, value.ci.lo, value.ci.hi].every(finite) && Array.isArray(value.ids);
}

/** Realized, the reachable ceiling, then each probe: the rows of the differences table. */
export function deltaRows(compare: Comparison | undefined): DeltaRow[] {
  if (!isObject(compare)) return [];
  const rows: DeltaRow[] = [];
  if (isPairedDelta(compare.realized)) rows.push({ key: 'realized', label: 'Realized', delta: compare.realized });
  if (isPairedDelta(compare.reachableCeiling)) rows.push({ key: 'ceiling', label: 'Reachable ceiling (realized or any probe)', delta: compare.reachableCeiling });
  if (isObject(compare.reachable)) {
    for (const [probe, delta] of Object.entries(compare.reachable)) if (isPairedDelta(delta)) rows.push({ key: `probe:${probe}`, label: `Reachable · ${probe}`, delta });
  }
  return rows;
}

export function transitionKey(from: QuestionState, to: QuestionState): string {
  return `transition:${from}>${to}`;
}

export function newlyKey(part: NewlyPart): string {
  return `newly:${part}`;
}

/** The transition table, or undefined when the comparison has none (or a malformed one). */
export function transitionGrid(compare: Comparison | undefined): TransitionGrid | undefined {
  if (!isObject(compare) || !isObject(compare.transitions)) return undefined;
  const transitions = compare.transitions;
  const rows: TransitionGrid['rows'] = [];
  for (const from of COMPARED_STATES) {
    const row = transitions[from];
    if (!isObject(row)) return undefined;
    const cells: TransitionCell[] = [];
    for (const to of COMPARED_STATES) {
      const ids = idsOf(row[to]);
      if (!ids) return undefined;
      cells.push({ from, to, ids, key: transitionKey(from, to) });
    }
    rows.push({ from, cells, total: cells.reduce((s, c) => s + c.ids.length, 0) });
  }
  const columnTotals = COMPARED_STATES.map((_, j) => rows.reduce((s, r) => s + r.cells[j].ids.length, 0));
  return { rows, columnTotals, total: rows.reduce((s, r) => s + r.total, 0) };
}

/** The newly realized split, or undefined when the comparison has none (or a malformed one). */
export function newlySplit(compare: Comparison | undefined): { n: number; parts: { part: NewlyPart; rate: RateWithIds; key: string }[] } | undefined {
  if (!isObject(compare) || !isObject(compare.newlyRealized)) return undefined;
  const newly = compare.newlyRealized;
  if (!finite(newly.n)) return undefined;
  const parts: { part: NewlyPart; rate: RateWithIds; key: string }[] = [];
  for (const part of NEWLY_PARTS) {
    const rate = newly[part];
    if (!isComparedRate(rate)) return undefined;
    parts.push({ part, rate: { ...rate, ids: rate.ids.map(String) }, key: newlyKey(part) });
  }
  return { n: newly.n, parts };
}

/** What a selection key stands for in this comparison; undefined when it names nothing here. */
export function resolveSelection(compare: Comparison | undefined, key: string | undefined): CompareSelection | undefined {
  if (!key) return undefined;
  const transition = /^transition:(\w+)>(\w+)$/.exec(key);
  if (transition) {
    const cell = transitionGrid(compare)?.rows.find((r) => r.from === transition[1])?.cells.find((c) => c.to === transition[2]);
    return cell ? { key, label: `base ${cell.from} → tuned ${cell.to} (${cell.ids.length.toLocaleString('en-US')})`, ids: cell.ids } : undefined;
  }
  const newly = /^newly:(\w+)$/.exec(key);
  if (newly) {
    const part = newlySplit(compare)?.parts.find((p) => p.part === newly[1]);
    return part ? { key, label: `newly realized, ${NEWLY_LABELS[part.part]} (${part.rate.ids.length.toLocaleString('en-US')})`, ids: part.rate.ids } : undefined;
  }
  return undefined;
}

/** `+14.7 pts` / `−13.3 pts` (a true minus sign, so signs line up in a column). */
export function signedPoints(delta: number): string {
  const points = delta * 100;
  const rounded = Math.abs(points).toFixed(1);
  // −0.04 points reads as "+0.0", not "−0.0".
  return `${points < 0 && rounded !== '0.0' ? '−' : '+'}${rounded} pts`;
}

/**
 * A paired difference as the comparison table and the headline read it. Over fewer than
 * RATE_MIN_QUESTIONS paired questions it is counts — "3 of 8", "−1 question" — with no interval
 * and no verdict (docs/design/vscode-experience.md: rates and 95% intervals from 20 questions on; an
 * interval over 8 spans tens of points). The exact McNemar p on the changed questions stands, as
 * in the routes-vs-search card.
 */
export interface DeltaText {
  counted: boolean;
  base: string;
  tuned: string;
  delta: string;
  interval: string;
  verdict: string;
}

/** "+2 questions", "−1 question", "±0 questions". */
export function questionsDelta(k: number): string {
  const sign = k > 0 ? '+' : k < 0 ? '−' : '±';
  return `${sign}${Math.abs(k)} question${Math.abs(k) === 1 ? '' : 's'}`;
}

export function deltaText(d: PairedDelta, percent: (x: number) => string): DeltaText {
  if (d.n < RATE_MIN_QUESTIONS) {
    return {
      counted: true,
      base: ofText(Math.round(d.base * d.n), d.n),
      tuned: ofText(Math.round(d.tuned * d.n), d.n),
      delta: questionsDelta(d.gained - d.lost),
      interval: '—',
      verdict: `counted (under ${RATE_MIN_QUESTIONS})`,
    };
  }
  return { counted: false, base: percent(d.base), tuned: percent(d.tuned), delta: signedPoints(d.delta), interval: pointsInterval(d.ci), verdict: storedVerdictText(d.decision) };
}

/**
 * The colour class of a difference: only a decided one (better / worse against the margin) is drawn
 * in green or red; an inconclusive, equivalent or counted difference stays plain, so colour never
 * claims what the verdict does not.
 */
export function deltaClass(d: PairedDelta): 'delta-up' | 'delta-down' | '' {
  if (d.n < RATE_MIN_QUESTIONS) return '';
  const verdict = decisionOf(d.decision)?.verdict;
  return verdict === 'better' ? 'delta-up' : verdict === 'worse' ? 'delta-down' : '';
}

/** The sentence under a comparison whose differences are counted. */
export const COUNTED_DELTA_NOTE = `Fewer than ${RATE_MIN_QUESTIONS} paired questions: each difference is counted (questions gained − lost), without an interval or a verdict, which start at ${RATE_MIN_QUESTIONS} questions; the exact McNemar p on the questions that changed stands.`;

/** `[+1.7, +14.0] pts`: a paired interval of a difference, in percentage points. */
export function pointsInterval(ci: { lo: number; hi: number }): string {
  return `[${signedPoints(ci.lo).replace(' pts', '')}, ${signedPoints(ci.hi).replace(' pts', '')}] pts`;
}

/** Two significant digits; tiny values as an upper bound rather than 1e-7 noise. */
export function pValueText(p: number): string {
  if (!Number.isFinite(p)) return '–';
  if (p < 0.001) return '< 0.001';
  return p >= 0.995 ? '1' : p.toPrecision(2);
}

/** `p = 0.015` / `p < 0.001`. */
export function pValueClause(p: number): string {
  const text = pValueText(p);
  return text.startsWith('<') ? `p ${text}` : `p = ${text}`;
}


/** How the verdict was reached, for a tooltip. */
export function verdictRule(value: unknown): string {
  const d = decisionOf(value);
  if (!d) return 'No verdict: written before verdicts were stored (run compare or the audit again for one)';
  const m = `${+(100 * d.margin).toFixed(2)} pts`;
  return `better / worse: exact McNemar p < 0.05 and the 95% interval on that side of 0; equivalent: the 95% interval inside ±${m}; otherwise inconclusive${d.questionsNeeded !== null ? ` (about ${d.questionsNeeded.toLocaleString('en-US')} questions in all would decide it at 80% power, if the observed difference and discordance held: a gain-set decision's count is scaled by the gain set's share of the questions, and a table row's is at its Holm family's level)` : ''}`;
}

/** Which interval a stored difference carries: Newcombe's score interval, or a bootstrap in older files. */
export function intervalMethodText(method: unknown): string {
  return method === 'newcombe-score' ? "Newcombe's paired score interval" : 'paired bootstrap interval (10,000 resamples; written before the score interval)';
}
