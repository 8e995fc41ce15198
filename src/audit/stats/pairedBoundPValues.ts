/**
 * One-sided tests of a paired difference against a bound (non-inferiority, "does not rise", each
 * half of an equivalence test), as p-values so that a table can Holm-adjust them over its rows like
 * its difference tests. Each p inverts Newcombe's paired score interval (pairedScoreInterval): it is
 * the one-sided level at which the interval's limit touches the bound, so p < 0.025 exactly when the
 * 95% interval clears it, and the unadjusted decision is the interval's own.
 */
import type { PairedCounts } from './pairedScoreInterval';
import { pairedScoreInterval } from './pairedScoreInterval';
import { normalCdf } from './normal';

/** The z at which the interval limit `side` of `counts` equals `bound` (the limit moves monotonically away from the estimate as z grows). */
function touchingZ(counts: PairedCounts, bound: number, side: 'lo' | 'hi'): number {
  let lo = 0;
  let hi = 40;
  const beyond = (z: number) => (side === 'lo' ? pairedScoreInterval(counts, z).lo > bound : pairedScoreInterval(counts, z).hi < bound);
  if (beyond(hi)) return hi;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (beyond(mid)) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

const estimateOf = (t: PairedCounts) => {
  const n = t.both + t.onlyFirst + t.onlySecond + t.neither;
  return n === 0 ? 0 : (t.onlyFirst - t.onlySecond) / n;
};

/** p of "first − second > bound" (H0: the difference is at most bound). */
export function pAbove(counts: PairedCounts, bound: number): number {
  if (counts.both + counts.onlyFirst + counts.onlySecond + counts.neither === 0) return 1;
  const estimate = estimateOf(counts);
  if (estimate > bound) return 1 - normalCdf(touchingZ(counts, bound, 'lo'));
  if (estimate < bound) return normalCdf(touchingZ(counts, bound, 'hi'));
  return 0.5;
}

/** p of "first − second < bound" (H0: the difference is at least bound). */
export function pBelow(counts: PairedCounts, bound: number): number {
  if (counts.both + counts.onlyFirst + counts.onlySecond + counts.neither === 0) return 1;
  return 1 - pAbove(counts, bound);
}

/** Two one-sided tests: p of "inside (−margin, +margin)", the larger of the two halves' p. */
export function pEquivalent(counts: PairedCounts, margin: number): number {
  return Math.max(pAbove(counts, -margin), pBelow(counts, margin));
}
