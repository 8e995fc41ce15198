/**
 * The sample median with a distribution-free confidence interval from order statistics: with n
 * values sorted, [x_(j), x_(n+1−j)] covers the population median with probability at least
 * 1 − 2·P(Binomial(n, ½) ≤ j − 1), whatever the distribution (each value falls below the median
 * with probability ½). j is the largest for which that tail is at most (1 − level)/2; with too few
 * values for any j ≥ 1 there is no interval.
 */
export function medianInterval(values: readonly number[], level = 0.95): { median: number; n: number; ci: { lo: number; hi: number } | null } {
  const n = values.length;
  if (n === 0) throw new RangeError('medianInterval: no values');
  const x = [...values].sort((a, b) => a - b);
  const median = n % 2 === 1 ? x[(n - 1) / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  const tail = (1 - level) / 2;
  // P(Bin(n, ½) ≤ k) summed in order, each term from the last: C(n, k)/2^n, in log space (2^-n underflows past 1074).
  let logTerm = -n * Math.LN2;
  let cdf = Math.exp(logTerm);
  let j = 0;
  for (let k = 0; k < n && cdf <= tail; k++) {
    j = k + 1;
    logTerm += Math.log((n - k) / (k + 1));
    cdf += Math.exp(logTerm);
  }
  return { median, n, ci: j >= 1 && j <= n + 1 - j ? { lo: x[j - 1], hi: x[n - j] } : null };
}
