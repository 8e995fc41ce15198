/**
 * Percentile bootstrap over questions for statistics other than a difference of means: a ratio
 * of sums (the share of a probe's gain that answer-blind selection keeps) and the means of several
 * per-question columns at once (a pass@k curve, one column per k). Questions are resampled with
 * replacement, one index set per resample shared by every column, so paired quantities stay
 * paired. The index stream is the paired bootstrap's (bootstrap.ts), keyed by the caller's seed.
 */
import { quantileSorted, type PairedBootstrapOptions } from './bootstrap';
import { seededUint32 } from './prng';

export interface BootstrapInterval {
  estimate: number;
  lo: number;
  hi: number;
}

export interface RatioInterval {
  /** sum(numerator) / sum(denominator); null unless the denominator sums to more than 0. */
  estimate: number | null;
  lo: number | null;
  hi: number | null;
  /** Resamples whose denominator summed to 0 or less, left out of the interval (the share is undefined there). */
  undefinedResamples: number;
  resamples: number;
}

function settings(options: PairedBootstrapOptions): { resamples: number; alpha: number } {
  const resamples = options.resamples ?? 10000;
  const confidence = options.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`bootstrap: resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`bootstrap: confidence must be in (0, 1), got ${confidence}`);
  return { resamples, alpha: 1 - confidence };
}

function checkFinite(values: readonly number[], what: string): void {
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) throw new RangeError(`bootstrap: ${what} at index ${i} is not a finite number`);
  });
}

/** Draws resampled question indices: `draw()` gives one index in [0, n). */
function indexStream(seed: number, n: number): () => number {
  const next = seededUint32(seed, 'paired-bootstrap');
  const scale = n / 4294967296;
  return () => Math.floor(next() * scale);
}

/**
 * Percentile interval of sum(num[S]) / sum(den[S]) over resampled question multisets S, a ratio
 * that is only read as a share of a positive quantity (a gain): resamples whose denominator is not
 * positive are left out and counted. The pairs (num[i], den[i]) belong to one question and are
 * resampled together.
 */
export function bootstrapRatio(num: readonly number[], den: readonly number[], options: PairedBootstrapOptions): RatioInterval {
  const { resamples, alpha } = settings(options);
  if (num.length !== den.length) throw new RangeError(`bootstrapRatio: numerator and denominator differ in length (${num.length} vs ${den.length})`);
  checkFinite(num, 'numerator');
  checkFinite(den, 'denominator');
  const n = num.length;
  const sumNum = num.reduce((s, x) => s + x, 0);
  const sumDen = den.reduce((s, x) => s + x, 0);
  if (n === 0 || !(sumDen > 0)) return { estimate: null, lo: null, hi: null, undefinedResamples: resamples, resamples };
  const draw = indexStream(options.seed, n);
  const ratios = new Float64Array(resamples);
  let kept = 0;
  for (let r = 0; r < resamples; r++) {
    let a = 0;
    let b = 0;
    for (let i = 0; i < n; i++) {
      const j = draw();
      a += num[j];
      b += den[j];
    }
    if (b > 0) ratios[kept++] = a / b;
  }
  const estimate = sumNum / sumDen;
  if (kept === 0) return { estimate, lo: null, hi: null, undefinedResamples: resamples, resamples };
  const sorted = ratios.subarray(0, kept).sort();
  return { estimate, lo: quantileSorted(sorted, alpha / 2), hi: quantileSorted(sorted, 1 - alpha / 2), undefinedResamples: resamples - kept, resamples };
}

/**
 * Percentile intervals of the column means of `rows` (rows[i][c] = question i's value in column c),
 * every column resampled with the same question indices.
 */
export function bootstrapColumnMeans(rows: readonly (readonly number[])[], options: PairedBootstrapOptions): BootstrapInterval[] {
  const { resamples, alpha } = settings(options);
  const n = rows.length;
  if (n === 0) return [];
  const columns = rows[0].length;
  rows.forEach((row, i) => {
    if (row.length !== columns) throw new RangeError(`bootstrapColumnMeans: row ${i} has ${row.length} values, row 0 has ${columns}`);
    checkFinite(row, `row ${i}`);
  });
  const flat = new Float64Array(n * columns);
  rows.forEach((row, i) => flat.set(row, i * columns));
  const means = new Float64Array(columns);
  for (let i = 0; i < n; i++) for (let c = 0; c < columns; c++) means[c] += flat[i * columns + c];
  for (let c = 0; c < columns; c++) means[c] /= n;
  const draws = Array.from({ length: columns }, () => new Float64Array(resamples));
  const draw = indexStream(options.seed, n);
  const sums = new Float64Array(columns);
  for (let r = 0; r < resamples; r++) {
    sums.fill(0);
    for (let i = 0; i < n; i++) {
      const base = draw() * columns;
      for (let c = 0; c < columns; c++) sums[c] += flat[base + c];
    }
    for (let c = 0; c < columns; c++) draws[c][r] = sums[c] / n;
  }
  return draws.map((d, c) => {
    d.sort();
    return { estimate: means[c], lo: quantileSorted(d, alpha / 2), hi: quantileSorted(d, 1 - alpha / 2) };
  });
}
