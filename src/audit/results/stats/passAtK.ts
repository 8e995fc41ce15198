/**
 * Unbiased pass@k (Chen et al. 2021): the probability that at least one of k candidates drawn
 * without replacement from n, of which c are correct, is correct: 1 - C(n-c, k) / C(n, k).
 * Computed in the product form 1 - prod_{i=n-c+1}^{n} (1 - k/i), which never forms the huge binomials.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`passAtK: n must be a positive integer, got ${n}`);
  if (!Number.isInteger(c) || c < 0 || c > n) throw new RangeError(`passAtK: c must be an integer in [0, ${n}], got ${c}`);
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`passAtK: k must be an integer in [1, ${n}], got ${k}`);
  if (c === 0) return 0;
  if (n - c < k) return 1; // every k-subset contains a correct candidate
  // The product is accumulated as a sum of log1p terms and finished with expm1, so a small
  // pass@k (one correct among hundreds) keeps full relative precision instead of cancelling in 1 - x.
  let logAllWrong = 0;
  for (let i = n - c + 1; i <= n; i++) logAllWrong += Math.log1p(-k / i);
  return -Math.expm1(logAllWrong);
}

/** pass@k for k = 1..n, the curve the audit plots per probe. */
export function passAtKCurve(n: number, c: number): number[] {
  const curve: number[] = [];
  for (let k = 1; k <= n; k++) curve.push(passAtK(n, c, k));
  return curve;
}
