/**
 * The interval of a mean of per-question values in [0, 1] (pass@k for k > 1 is an average of
 * per-question probabilities, not a count of successes, so a Wilson interval does not apply).
 */
import { Z95 } from '../../../src/contract';

export interface MeanWithInterval {
  mean: number;
  low: number;
  high: number;
  n: number;
}

/** Mean with a normal-approximation 95% interval (mean ± 1.96 · sd / √n, sample sd), clamped to [0, 1]. */
export function meanInterval(values: ArrayLike<number>): MeanWithInterval {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, low: 0, high: 1, n: 0 };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i];
  const mean = sum / n;
  if (n === 1) return { mean, low: 0, high: 1, n };
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i] - mean) * (values[i] - mean);
  const half = (Z95 * Math.sqrt(squares / (n - 1))) / Math.sqrt(n);
  return { mean, low: Math.max(0, mean - half), high: Math.min(1, mean + half), n };
}
