/**
 * Wilson score interval for a binomial proportion (Wilson 1927), 95% by default.
 * The panel computes intervals for numbers it derives from records itself (live runs, per-block
 * rates); it cannot import src/audit, so this is the same textbook formula kept here.
 */

/** Two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

export interface Proportion {
  successes: number;
  n: number;
  rate: number;
  low: number;
  high: number;
}

/** Rate and Wilson interval for `successes` out of `n`. n = 0 gives rate NaN and interval [0, 1]. */
export function wilson(successes: number, n: number, z: number = Z95): Proportion {
  if (n <= 0) return { successes: 0, n: 0, rate: Number.NaN, low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // Clamp only rounding noise: at p = 0 the low end is exactly 0, at p = 1 the high end is exactly 1.
  return {
    successes,
    n,
    rate: p,
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === n ? 1 : Math.min(1, centre + half),
  };
}
