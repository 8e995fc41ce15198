/** A confidence interval [lo, hi] for a rate or a difference. */
export interface Interval {
  lo: number;
  hi: number;
}

/** z for a two-sided 95% normal interval (qnorm(0.975)). */
export const Z95 = 1.959963984540054;
