/**
 * What every calibration row is made of: a measured rate (coverage of an interval, size or power of
 * a test) under a known truth, with its Monte-Carlo standard error (0 where the rate is an exact sum
 * over every possible table), and the band it must stay in.
 */
import { seededRandom } from '../../src/audit/stats';

export type RowKind = 'coverage' | 'size' | 'power' | 'assumption';

export interface CalibrationRow {
  /** The method as the surfaces name it. */
  method: string;
  /** The truth simulated. */
  truth: string;
  n: string;
  kind: RowKind;
  measured: number;
  /** Monte-Carlo standard error of `measured`; 0 for an exact enumeration. */
  se: number;
  /** Simulated data sets (0: exact enumeration). */
  runs: number;
  /** The band in words, and whether the row is inside it (power and assumption rows are reported, not held to a band). */
  band: string;
  pass: boolean;
}

export const mcSe = (rate: number, runs: number) => (runs === 0 ? 0 : Math.sqrt(Math.max(rate * (1 - rate), 1e-4) / runs));

/** Coverage at least `target`, less 3 Monte-Carlo standard errors at the nominal level. */
export function coverageRow(base: Omit<CalibrationRow, 'kind' | 'se' | 'band' | 'pass'>, target: number, nominal = 0.95): CalibrationRow {
  const slack = base.runs === 0 ? 0 : 3 * Math.sqrt((nominal * (1 - nominal)) / base.runs);
  return { ...base, kind: 'coverage', se: mcSe(base.measured, base.runs), band: `≥ ${(100 * target).toFixed(0)}%${slack > 0 ? ' − 3 SE' : ''}`, pass: base.measured >= target - slack };
}

/** Size at most α (+ `extra` for an asymptotic test), plus 3 Monte-Carlo standard errors at α. */
export function sizeRow(base: Omit<CalibrationRow, 'kind' | 'se' | 'band' | 'pass'>, alpha: number, extra = 0): CalibrationRow {
  const slack = base.runs === 0 ? 0 : 3 * Math.sqrt((alpha * (1 - alpha)) / base.runs);
  const bound = alpha + extra;
  return { ...base, kind: 'size', se: mcSe(base.measured, base.runs), band: `≤ ${(100 * bound).toFixed(1)}%${slack > 0 ? ' + 3 SE' : ''}`, pass: base.measured <= bound + slack + 1e-12 };
}

export function reportedRow(base: Omit<CalibrationRow, 'se' | 'band' | 'pass'>, band: string): CalibrationRow {
  return { ...base, se: mcSe(base.measured, base.runs), band, pass: true };
}

/** A seeded uniform stream for one row. */
export const streamFor = (...keys: (string | number)[]) => seededRandom(49, 'calibration', ...keys);

export function binomialDraw(random: () => number, n: number, p: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (random() < p) k++;
  return k;
}

/** Binomial probabilities P(X = k), k = 0..n. */
export function binomialPmf(n: number, p: number): number[] {
  const out: number[] = [];
  let logC = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logC += Math.log((n - k + 1) / k);
    out.push(Math.exp(logC + (k > 0 ? k * Math.log(p) : 0) + (n - k > 0 ? (n - k) * Math.log(1 - p) : 0)));
  }
  return out;
}

/** Every 2×2 paired table of n questions with its multinomial probability (those below 1e-12 left out). */
export function* pairedTables(n: number, cells: { both: number; onlyFirst: number; onlySecond: number; neither: number }) {
  const logFact = [0];
  for (let i = 1; i <= n; i++) logFact.push(logFact[i - 1] + Math.log(i));
  const lp = (x: number, k: number) => (k === 0 ? 0 : k * Math.log(x));
  for (let a = 0; a <= n; a++) {
    for (let b = 0; a + b <= n; b++) {
      for (let c = 0; a + b + c <= n; c++) {
        const d = n - a - b - c;
        const logP = logFact[n] - logFact[a] - logFact[b] - logFact[c] - logFact[d] + lp(cells.both, a) + lp(cells.onlyFirst, b) + lp(cells.onlySecond, c) + lp(cells.neither, d);
        const p = Math.exp(logP);
        if (p >= 1e-12) yield { table: { both: a, onlyFirst: b, onlySecond: c, neither: d }, p };
      }
    }
  }
}
