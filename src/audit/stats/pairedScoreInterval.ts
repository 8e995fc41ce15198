/**
 * A 95% interval for the difference of two paired proportions that behaves when few questions
 * disagree: Newcombe's method 10 (Newcombe 1998, Stat Med 17:2635, "square-and-add" of the two
 * marginal Wilson score intervals with a correction for the pairing). The percentile bootstrap of
 * the paired difference is anti-conservative there: at 300 questions with 5 : 0 discordant its
 * interval excludes 0 while the exact McNemar p is 0.0625.
 */
import { Z95, wilsonInterval, type Interval } from '../../contract';

/** A paired 2×2 table: both yes, first yes only, second yes only, neither. */
export interface PairedCounts {
  both: number;
  onlyFirst: number;
  onlySecond: number;
  neither: number;
}

function checkCounts(t: PairedCounts): number {
  for (const [name, v] of Object.entries(t)) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`pairedScoreInterval: ${name} must be a non-negative integer, got ${v}`);
  }
  return t.both + t.onlyFirst + t.onlySecond + t.neither;
}

/**
 * The interval of first − second = (onlyFirst − onlySecond) / n. With no questions nothing is
 * known: [−1, 1]. φ is Newcombe's pairing correction: the phi coefficient of the 2×2 table with
 * its numerator shrunk towards 0 by n/2 (a continuity correction), and 0 when a margin is empty.
 */
export function pairedScoreInterval(t: PairedCounts, z: number = Z95): Interval {
  const n = checkCounts(t);
  if (n === 0) return { lo: -1, hi: 1 };
  const firstYes = t.both + t.onlyFirst;
  const secondYes = t.both + t.onlySecond;
  const p1 = firstYes / n;
  const p2 = secondYes / n;
  const w1 = wilsonInterval(firstYes, n, z);
  const w2 = wilsonInterval(secondYes, n, z);
  const margins = firstYes * (n - firstYes) * secondYes * (n - secondYes);
  let phi = 0;
  if (margins > 0) {
    const cross = t.both * t.neither - t.onlyFirst * t.onlySecond;
    const corrected = cross > n / 2 ? cross - n / 2 : cross < 0 ? cross : 0;
    phi = corrected / Math.sqrt(margins);
  }
  const delta = p1 - p2;
  const below1 = p1 - w1.lo;
  const above1 = w1.hi - p1;
  const below2 = p2 - w2.lo;
  const above2 = w2.hi - p2;
  // max(0, ·): the radicand is a sum of squares less a cross term bounded by them; rounding alone can dip it below 0.
  const lo = delta - Math.sqrt(Math.max(0, below1 * below1 - 2 * phi * below1 * above2 + above2 * above2));
  const hi = delta + Math.sqrt(Math.max(0, below2 * below2 - 2 * phi * below2 * above1 + above1 * above1));
  return { lo: Math.max(-1, lo), hi: Math.min(1, hi) };
}
