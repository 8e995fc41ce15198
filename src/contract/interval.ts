/**
 * Rates with their n and Wilson 95% interval (Wilson 1927), the shape every reported rate takes:
 * unlike the Wald interval it stays inside [0, 1] and behaves at 0/n and n/n.
 */

/** A confidence interval [lo, hi] for a rate or a difference. */
export interface Interval {
  lo: number;
  hi: number;
}

/** z for a two-sided 95% normal interval (qnorm(0.975)). */
export const Z95 = 1.959963984540054;

/**
 * Fewest questions a percentile bootstrap interval is computed from: below it the resampled
 * distribution has too few distinct values to give its tails (at 6 questions it can exclude 0 beside
 * an exact p of 1), so the interval is left out and said to be. Per-question 0/1 values get a Wilson
 * (score) interval at any n instead.
 */
export const MIN_BOOTSTRAP_QUESTIONS = 20;

/** A rate with its n and Wilson interval. */
export interface Rate {
  n: number;
  successes: number;
  /** successes / n; 0 when n is 0 (the interval [0, 1] says that nothing is known). */
  rate: number;
  ci: Interval;
}

function checkCounts(successes: number, n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`wilsonInterval: n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n) {
    throw new RangeError(`wilsonInterval: successes must be an integer in [0, ${n}], got ${successes}`);
  }
}

/**
 * (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = successes/n.
 * With no observations nothing is known: [0, 1].
 */
export function wilsonInterval(successes: number, n: number, z: number = Z95): Interval {
  checkCounts(successes, n);
  if (n === 0) return { lo: 0, hi: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0/n and n/n the bound is exactly 0 or 1; say so instead of leaving rounding residue.
  return {
    lo: successes === 0 ? 0 : Math.max(0, center - half),
    hi: successes === n ? 1 : Math.min(1, center + half),
  };
}

export function rateOf(successes: number, n: number, z: number = Z95): Rate {
  return { n, successes, rate: n === 0 ? 0 : successes / n, ci: wilsonInterval(successes, n, z) };
}
