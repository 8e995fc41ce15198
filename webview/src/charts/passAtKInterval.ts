/**
 * The 95% interval each pass@k point of the Charts tab shows: the run's own, never one the panel
 * makes up. A finished run's summary.json (over the questions the panel holds) gives its passAtKCi:
 * Wilson where every question's value at k is 0 or 1, a percentile bootstrap otherwise, none below
 * MIN_BOOTSTRAP_QUESTIONS questions. A run without one (going, or stopped) shows the same Wilson
 * interval where the values are 0 or 1 (the contract's rule), and elsewhere none, saying that the
 * bootstrap comes with the summary. The summary crosses postMessage from a file: a bound that is not
 * a number is no interval. DOM-free.
 */
import { MIN_BOOTSTRAP_QUESTIONS, type Interval, type RunSummary } from '../../../src/contract';

/** A point as the records give it: mean over the n questions that ran the probe, and Wilson's interval where every value is 0 or 1. */
export interface LivePassAtKPoint {
  k: number;
  mean: number;
  n: number;
  zeroOne?: Interval;
}

export interface PassAtKPoint {
  k: number;
  mean: number;
  n: number;
  ci: Interval | null;
  /** Where there is no interval: why, in the table's words. */
  missing?: string;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function storedInterval(value: unknown): Interval | null {
  const ci = value as Partial<Interval> | undefined;
  return ci && finite(ci.lo) && finite(ci.hi) && ci.lo <= ci.hi ? { lo: ci.lo, hi: ci.hi } : null;
}

/** Whether the summary's curve of `probe` is over the same questions as the panel's (a summary of other records says nothing of these). */
function summaryCovers(summary: RunSummary | undefined, probe: string, n: number): summary is RunSummary {
  return typeof summary?.passAtK?.[probe] === 'object' && summary.reachable?.[probe]?.n === n;
}

export function shownPassAtK(probe: string, live: readonly LivePassAtKPoint[], summary: RunSummary | undefined): PassAtKPoint[] {
  return live.map((p) => {
    const few = p.n < MIN_BOOTSTRAP_QUESTIONS;
    if (summaryCovers(summary, probe, p.n)) {
      const ci = storedInterval(summary.passAtKCi?.[probe]?.[String(p.k)]);
      return { k: p.k, mean: p.mean, n: p.n, ci, ...(ci ? {} : { missing: few ? `no interval below ${MIN_BOOTSTRAP_QUESTIONS} questions` : 'none in summary.json' }) };
    }
    const ci = p.zeroOne ?? null;
    return { k: p.k, mean: p.mean, n: p.n, ci, ...(ci ? {} : { missing: few ? `no interval below ${MIN_BOOTSTRAP_QUESTIONS} questions` : 'bootstrap interval with the finished run\'s summary' }) };
  });
}
