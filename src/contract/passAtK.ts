import { wilsonInterval, type Interval } from './interval';
import type { QuestionRecord } from './runRecord';
import type { PassAtKKind } from './runSummary';

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

/**
 * How pass@k reads a probe's attempts. Samples are exchangeable draws, so the unbiased estimator
 * applies; random routes are distinct routes drawn without replacement from a non-uniform space,
 * so the same estimator only approximates their pass@k; the search's attempts are ordered (each
 * one chosen knowing the rewards of those before it), so its pass@k is "solved within the first k
 * attempts".
 */
export function passAtKKindOf(probe: string): PassAtKKind {
  return probe === 'search' ? 'first-k' : probe === 'routes' ? 'approximate' : 'unbiased';
}

/** One question's pass@k for k = 1..budget, from its attempts' verdicts in order. */
export function questionPassAtK(correct: readonly boolean[], budget: number, kind: PassAtKKind): number[] {
  const n = correct.length;
  const c = correct.filter(Boolean).length;
  const out: number[] = [];
  for (let k = 1; k <= budget; k++) {
    if (kind === 'first-k') out.push(correct.slice(0, k).some(Boolean) ? 1 : 0);
    else if (k > n) out.push(c > 0 ? 1 : 0); // fewer attempts than k (route space used up): all of them are in every k-subset
    else out.push(passAtK(n, c, k));
  }
  return out;
}

/**
 * The pass@k rows of one probe: for each record that ran it, pass@k for k = 1..B (B the probe's
 * largest budget), read as passAtKKindOf says. The curve is the column means: summary.json's
 * passAtK and the panel's live curve are both computed from these rows, so they cannot disagree.
 */
export function passAtKRows(records: readonly QuestionRecord[], probe: string): { kind: PassAtKKind; budget: number; rows: number[][] } {
  const kind = passAtKKindOf(probe);
  const used = records.filter((r) => r.probes[probe]);
  // Attempts that stop at the first correct one say nothing of the other k-subsets: no curve at all.
  if (stopsAtFirstCorrect(records, probe)) return { kind, budget: 0, rows: [] };
  const budget = Math.max(0, ...used.map((r) => r.probes[probe].budget));
  return { kind, budget, rows: budget === 0 ? [] : used.map((r) => questionPassAtK(r.probes[probe].correct, budget, kind)) };
}

/**
 * Whether a probe's attempts stopped at each question's first correct one (`--until-reached`):
 * its pools are partial, so its pass@k and answer-blind picks are not computed, only reachability.
 */
export function stopsAtFirstCorrect(records: readonly QuestionRecord[], probe: string): boolean {
  return records.some((r) => r.probes[probe]?.untilReached === true);
}

/**
 * The interval summary.json gives pass@k at one k when every question's value there is 0 or 1
 * (pass@B, every k of a first-k curve): Wilson's, at any n. Undefined otherwise: the summary then
 * resamples the questions (a percentile bootstrap, from MIN_BOOTSTRAP_QUESTIONS questions on).
 */
export function zeroOnePassAtKInterval(values: readonly number[]): Interval | undefined {
  if (!values.every((v) => v === 0 || v === 1)) return undefined;
  return wilsonInterval(values.reduce<number>((s, v) => s + v, 0), values.length);
}
