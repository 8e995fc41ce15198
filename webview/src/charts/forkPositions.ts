/**
 * The Charts tab's saves against position (records' `fork`): for each quarter of the deployed
 * output and each arm (highest-entropy, random), the questions with a fork of that arm in that
 * quarter, and how many of them such a fork saves. The question is the unit (its forks are not
 * independent), so each share has a Wilson interval over questions; under RATE_MIN_QUESTIONS
 * forked questions, counts only. DOM-free.
 */
import { RATE_MIN_QUESTIONS, rateOf, type ForkArm, type QuestionRecord, type Rate } from '../../../src/contract';

export const FORK_ARMS: readonly ForkArm[] = ['entropy', 'random'];
export const QUARTER_LABELS = ['first ¼', 'second ¼', 'third ¼', 'last ¼'] as const;

export interface ForkPositions {
  /** Questions the fork probe ran on with a token record to place the forks in. */
  n: number;
  /** saves[arm][quarter]: questions with a fork of the arm in the quarter (n), and those such a fork saves. */
  saves: Record<ForkArm, Rate[]>;
  /** Questions whose earliest saving fork falls in each quarter. */
  earliest: number[];
  /** Whether the shares may be drawn (enough questions); otherwise counts only. */
  rates: boolean;
}

/** The quarter (0–3) of a position in an output of `length` tokens. */
export function quarterOf(position: number, length: number): number {
  if (!(length > 0)) return 0;
  return Math.max(0, Math.min(3, Math.floor((4 * position) / length)));
}

export function forkPositions(records: readonly QuestionRecord[]): ForkPositions | undefined {
  const tried: Record<ForkArm, number[]> = { entropy: [0, 0, 0, 0], random: [0, 0, 0, 0] };
  const saved: Record<ForkArm, number[]> = { entropy: [0, 0, 0, 0], random: [0, 0, 0, 0] };
  const earliest = [0, 0, 0, 0];
  let n = 0;
  for (const record of records) {
    const fork = record.fork;
    const length = record.deployedTokens?.steps?.length;
    if (!fork || !Array.isArray(fork.forks) || !length) continue;
    n++;
    for (const arm of FORK_ARMS) {
      const q = new Set<number>();
      const s = new Set<number>();
      for (const f of fork.forks) {
        if (!f.arms?.includes(arm)) continue;
        q.add(quarterOf(f.position, length));
        if (f.saves) s.add(quarterOf(f.position, length));
      }
      for (const k of q) tried[arm][k]++;
      for (const k of s) saved[arm][k]++;
    }
    const first = fork.earliest === null ? undefined : fork.forks[fork.earliest];
    if (first) earliest[quarterOf(first.position, length)]++;
  }
  if (n === 0) return undefined;
  const saves = { entropy: tried.entropy.map((t, k) => rateOf(saved.entropy[k], t)), random: tried.random.map((t, k) => rateOf(saved.random[k], t)) };
  return { n, saves, earliest, rates: n >= RATE_MIN_QUESTIONS };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/** The chart in words (or the counts, under the threshold). */
export function forkPositionsText(view: ForkPositions): string {
  const arm = (a: ForkArm) =>
    QUARTER_LABELS.map((label, k) => {
      const r = view.saves[a][k];
      if (r.n === 0) return `${label}: no fork`;
      return view.rates ? `${label} ${pct(r.rate)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}], ${r.successes} of ${r.n}` : `${label} ${r.successes} of ${r.n}`;
    }).join('; ');
  return `Questions saved by a fork, by where in the deployed output the fork is (${view.n} forked questions${view.rates ? '' : `, under ${RATE_MIN_QUESTIONS}: counts only`}). Highest-entropy positions: ${arm('entropy')}. Random positions: ${arm('random')}. Earliest saving fork in each quarter: ${view.earliest.join(', ')}.`;
}
