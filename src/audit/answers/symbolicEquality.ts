/**
 * Symbolic equality of two LaTeX answers through a computer-algebra library (@cortex-js/compute-
 * engine, MIT): `\sqrt{3}/2` = `\frac{\sqrt{3}}{2}`, `\sqrt{117}` = `3\sqrt{13}`, `-2+\pi` = `\pi-2`,
 * `(x+1)^2` = `x^2+2x+1`. Two answers are equal when both parse and their canonical forms are the
 * same, or the library simplifies their difference to exactly 0. Not the library's `isEqual`,
 * which compares constants numerically within a tolerance (it calls 1/10^12 equal to 0).
 *
 * A CAS can blow up on adversarial input, so every comparison is bounded: inputs longer than
 * MAX_INPUT characters are not compared, and the library's own deadline stops one after WALL_MS;
 * either way the answers count as not equal and the reason is returned. To keep the verdict off
 * the clock, the slow step (simplifying the difference) runs only when it can change the answer:
 * two constants are first evaluated in machine floats, and only values that agree there are
 * proved equal exactly; a constant never equals an expression with free variables. So answers
 * that differ — nearly all that reach this — are decided in milliseconds whatever the load (the
 * tests time pathological ones), and the deadline is a guard against a hang.
 */
import type * as ComputerAlgebra from '@cortex-js/compute-engine';
import type { ComputeEngine } from '@cortex-js/compute-engine';

/** Longest answer (in characters, each side) handed to the library. */
export const MAX_INPUT = 120;
/** Wall-clock bound of one comparison, in milliseconds. */
export const WALL_MS = 1000;

export interface SymbolicVerdict {
  equal: boolean;
  /**
   * Why the library did not decide: `cas-input-too-long`, `cas-decimal`, `cas-unparsed`,
   * `cas-timeout`, `cas-error`, or `cas-unavailable` (the library could not be loaded: a bundle
   * without dist/computeEngine.js beside it, see esbuild.js).
   */
  note?: string;
}

let library: typeof ComputerAlgebra | undefined;
let engines: { exact: ComputeEngine; float: ComputeEngine } | undefined;
/**
 * The library is required, not imported, so that it loads on the first comparison; the bundles
 * keep it in a file of its own for the same reason (esbuild.js). Constructing the engine loads
 * its dictionaries (~150 ms), also once.
 */
function ce(): { exact: ComputeEngine; float: ComputeEngine } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (above)
  library ??= require('@cortex-js/compute-engine') as typeof ComputerAlgebra;
  if (!engines) {
    // The cheap numeric test runs in float64 (bignum precision would make evaluating 99999^99999
    // the slow step it is there to avoid); the proof keeps the default precision, under which
    // simplification stays exact (in float64 it leaves 7.75 of \sqrt{2}^{100} - 2^{50}).
    const float = new library.ComputeEngine();
    float.precision = 'machine';
    engines = { exact: new library.ComputeEngine(), float };
  }
  return engines;
}

// The same pairs recur (a grade's three readings, every attempt of a question): remembered, bounded.
const MEMO_LIMIT = 20_000;
const memo = new Map<string, SymbolicVerdict>();

/** A number in E notation with an exponent of three or more digits. */
const LARGE_EXPONENT = /\d[eE][+-]?\d{3,}/;

/** Float values that may be the same exact value (rounding apart); infinities and NaN only as themselves. */
function close(a: number, b: number): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function compare(a: string, b: string): SymbolicVerdict {
  if (a.length > MAX_INPUT || b.length > MAX_INPUT) return { equal: false, note: 'cas-input-too-long' };
  // A decimal is an exact rational (compared as one before this); the library would round it
  // against irrationals (0.7853981634 = π/4), which is not the same answer.
  if (/\d\.\d/.test(a) || /\d\.\d/.test(b)) return { equal: false, note: 'cas-decimal' };
  // The library reads 5E556124 as a number with that exponent and builds it as a bignum, synchronously,
  // before its deadline can stop it (the fuzz found 32 s on one such answer); no benchmark answer has one.
  if (LARGE_EXPONENT.test(a) || LARGE_EXPONENT.test(b)) return { equal: false, note: 'cas-large-exponent' };
  let exact: ComputeEngine;
  let float: ComputeEngine;
  let isNumber: typeof ComputerAlgebra.isNumber;
  try {
    ({ exact, float } = ce());
    isNumber = library!.isNumber;
  } catch {
    return { equal: false, note: 'cas-unavailable' };
  }
  try {
    const deadline = { ms: WALL_MS, label: 'reach-audit:answer-equality' };
    const screened = float.withTimeLimit(deadline, () => {
      const x = float.parse(a);
      const y = float.parse(b);
      if (!x.isValid || !y.isValid) return { equal: false, note: 'cas-unparsed' };
      const nx = x.N();
      const ny = y.N();
      // A constant never equals an expression with free variables; two constants apart in float64 differ.
      if (isNumber(nx) !== isNumber(ny)) return { equal: false };
      if (isNumber(nx) && (!close(nx.re, ny.re) || !close(nx.im, ny.im))) return { equal: false };
      return undefined;
    });
    if (screened) return screened;
    return exact.withTimeLimit(deadline, () => {
      const x = exact.parse(a);
      const y = exact.parse(b);
      if (x.isSame(y)) return { equal: true };
      return { equal: exact.box(['Subtract', x, y]).simplify().isSame(0) };
    });
  } catch (err) {
    return { equal: false, note: library && err instanceof library.CancellationError ? 'cas-timeout' : 'cas-error' };
  }
}

/** Whether two LaTeX answers (normalized, units set apart) are the same value; bounded, see above. */
export function symbolicEqual(a: string, b: string): SymbolicVerdict {
  const key = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
  const known = memo.get(key);
  if (known) return known;
  const verdict = compare(a, b);
  // A timeout depends on the machine's load: not remembered, so it is tried again.
  if (verdict.note !== 'cas-timeout') {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, verdict);
  }
  return verdict;
}
