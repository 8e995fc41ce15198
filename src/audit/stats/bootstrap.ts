/**
 * Paired bootstrap for a difference of means (docs/design/statistics.md "Statistics"): resample question indices
 * with replacement, the same indices for both arms, so the pairing (same question, two probes or
 * two checkpoints) is kept; the interval is the percentile interval of the resampled deltas.
 */
import { seededUint32 } from './prng';

export interface PairedBootstrapOptions {
  seed: number;
  /** Default 10,000. */
  resamples?: number;
  /** Default 0.95. */
  confidence?: number;
}

export interface PairedDifference {
  /** mean(b) - mean(a) on the observed data; NaN (with a NaN interval) when there are no pairs. */
  delta: number;
  lo: number;
  hi: number;
}

/** Linear interpolation between order statistics (Hyndman–Fan type 7, R's default). */
export function quantileSorted(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function pairedBootstrap(a: readonly number[], b: readonly number[], options: PairedBootstrapOptions): PairedDifference {
  const resamples = options.resamples ?? 10000;
  const confidence = options.confidence ?? 0.95;
  if (a.length !== b.length) throw new RangeError(`pairedBootstrap: arms differ in length (${a.length} vs ${b.length}); pairs need the same questions`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`pairedBootstrap: resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`pairedBootstrap: confidence must be in (0, 1), got ${confidence}`);
  const n = a.length;
  if (n === 0) return { delta: Number.NaN, lo: Number.NaN, hi: Number.NaN }; // no pairs, no estimate

  const d = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    d[i] = b[i] - a[i];
    if (!Number.isFinite(d[i])) throw new RangeError(`pairedBootstrap: value at index ${i} is not a finite number`);
    sum += d[i];
  }
  // One 32-bit draw per index (scaled, not modulo): the bias is below n / 2^32, and it halves the
  // cost of 10,000 resamples over thousands of questions.
  const next = seededUint32(options.seed, 'paired-bootstrap');
  const scale = n / 4294967296;
  const deltas = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(next() * scale)];
    deltas[r] = s / n;
  }
  deltas.sort();
  const alpha = 1 - confidence;
  return { delta: sum / n, lo: quantileSorted(deltas, alpha / 2), hi: quantileSorted(deltas, 1 - alpha / 2) };
}
