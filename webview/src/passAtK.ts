/**
 * Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), in the numerically stable product
 * form 1 - prod_{i=n-c+1}^{n} (1 - k/i). Used for live runs and per-question curves; the finished
 * run's summary.json carries the same numbers from src/audit.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k <= 0 || n <= 0 || k > n) return Number.NaN;
  if (n - c < k) return 1;
  let product = 1;
  for (let i = n - c + 1; i <= n; i++) product *= 1 - k / i;
  return 1 - product;
}

export interface MeanWithInterval {
  mean: number;
  low: number;
  high: number;
  n: number;
}

/**
 * Mean of per-question values in [0, 1] with a normal-approximation 95% interval
 * (mean ± 1.96 · sd / √n, sample sd), clamped to [0, 1]. pass@k for k > 1 is an average of
 * per-question probabilities, not a count of successes, so a Wilson interval does not apply.
 */
export function meanInterval(values: ArrayLike<number>): MeanWithInterval {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, low: 0, high: 1, n: 0 };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i];
  const mean = sum / n;
  if (n === 1) return { mean, low: 0, high: 1, n };
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i] - mean) * (values[i] - mean);
  const half = (1.959963984540054 * Math.sqrt(squares / (n - 1))) / Math.sqrt(n);
  return { mean, low: Math.max(0, mean - half), high: Math.min(1, mean + half), n };
}
