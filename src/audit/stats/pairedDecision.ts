/**
 * Four-way decisions on a paired difference of proportions (first − second, e.g. tuned − base or
 * routes − search) against a stated equivalence margin m, so that a verdict can come out either
 * way and "no significant difference" is never read as "the same":
 * - better / worse: the exact McNemar p (Holm-adjusted where the difference is one of a table's
 *   rows) is below α and the score interval (pairedScoreInterval) lies on that side of 0. Both are
 *   required because the asymptotic interval alone excludes 0 at 5 : 0 discordant (exact p 0.0625);
 * - equivalent: two one-sided tests, each at 2.5%: the 95% interval lies inside (−m, +m), or, in
 *   a table, the TOST p (stats/pairedBoundPValues.ts) Holm-adjusted over its rows is below 2.5%;
 * - inconclusive: neither. Its rough sample size says how many questions a decision would take.
 */
import type { PairedDecision, PairedDelta, PairedVerdict } from '../../contract';
import { Z95 } from '../../contract';
import { normalCdf } from './normal';

/** Default equivalence margin: 5 percentage points. */
export const DEFAULT_MARGIN = 0.05;
/** Significance level of the directional tests. */
export const ALPHA = 0.05;
/** One-sided level of each half of an equivalence or non-inferiority test (the 95% interval's side). */
export const ONE_SIDED_ALPHA = ALPHA / 2;
/** z of 80% power (qnorm(0.8)), for the sample size of a test in one direction. */
const Z_POWER = 0.8416212335729143;
/**
 * z of 80% power for two one-sided tests (qnorm(0.9)): equivalence needs both halves to clear their
 * bounds; at a true difference near 0 each fails with probability β/2 (Chow, Shao & Wang 2008, §3.2).
 */
const Z_POWER_EQUIVALENCE = 1.2815515655446004;

export interface PairedEvidence {
  /** first − second, on the paired questions. */
  estimate: number;
  /** Its 95% interval. */
  lo: number;
  hi: number;
  /** The p-value that decides a direction (exact McNemar, Holm-adjusted in a table). */
  p: number;
  /** Paired questions, and those on which the two sides disagree. */
  n: number;
  discordant: number;
  /** Set in a table: the equivalence test's p (TOST), Holm-adjusted over the table's rows; it then decides "equivalent". */
  equivalenceP?: number;
}

/** The evidence of a stored paired difference; `p` replaces its exact McNemar p (a table's Holm-adjusted one). */
export function evidenceOf(d: PairedDelta, p: number = d.mcnemarP): PairedEvidence {
  return { estimate: d.delta, lo: d.ci.lo, hi: d.ci.hi, p, n: d.n, discordant: d.lost + d.gained };
}

/**
 * Where a decision's sample size is read: the Holm family its tests belong to (m rows), and the
 * questions the paired ones were drawn from (all questions, where the decision is on the gain set).
 */
export interface DecisionScope {
  /** Rows of the table whose Holm adjustment the decision's tests go through (default 1). */
  familySize?: number;
  /** All questions, where the evidence is over a subset of them (the gain set); default: the evidence's n. */
  totalN?: number;
}

/** Upper quantile of the standard normal at one-sided level a, by bisection on Φ (a < 0.5). */
function upperQuantile(a: number): number {
  let lo = 0;
  let hi = 40;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (1 - normalCdf(mid) > a) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * z of each one-sided half (α/2) at the level Holm's first step asks of a family of m: α/(2m),
 * the Bonferroni bound, which every row's adjusted p must clear to be sure of a decision.
 */
function zForFamily(familySize: number): number {
  return familySize <= 1 ? Z95 : upperQuantile(ONE_SIDED_ALPHA / familySize);
}

/**
 * A count of the evidence's paired questions as whole questions: divided by the share of all
 * questions they are (the gain set's share), rounded up, and at least one more than were audited.
 */
export function wholeQuestions(count: number, e: PairedEvidence, scope: DecisionScope = {}): number {
  const total = scope.totalN ?? e.n;
  if (total === e.n || e.n === 0) return count;
  return Math.max(total + 1, Math.ceil((count * total) / e.n));
}

export function checkMargin(margin: number): number {
  if (!(Number.isFinite(margin) && margin > 0 && margin < 1)) throw new RangeError(`margin must be a proportion in (0, 1), got ${margin}`);
  return margin;
}

/**
 * Paired questions needed, roughly, for a 95% interval to clear a bound `distance` away from the
 * observed difference with 80% power, if the observed difference and discordance held: the normal
 * approximation n = (z₁₋α' + z₀.₈)² · (ψ − δ²) / distance², ψ the discordant share (Connor 1987's
 * McNemar sample size with its null variance replaced by the alternative's), α' = 0.025 alone and
 * 0.025/m in a Holm family of m rows (the level its first step asks); for equivalence z₀.₉ replaces
 * z₀.₈ (two one-sided tests must both pass). With no discordant question yet, one is assumed, since
 * ψ = 0 would promise a decision at n = 0. Null when the bound is on the wrong side of the estimate
 * (no sample size reaches it). The count is of the evidence's paired questions: wholeQuestions
 * turns a gain-set count into questions.
 */
export function questionsToClear(e: PairedEvidence, distance: number, power: 'one-sided' | 'equivalence' = 'one-sided', familySize = 1): number | null {
  if (!(distance > 0) || e.n === 0) return null;
  const discordance = Math.max(e.discordant, 1) / e.n;
  const variance = Math.max(discordance - e.estimate * e.estimate, 1 / (e.n * e.n));
  const zPower = power === 'equivalence' ? Z_POWER_EQUIVALENCE : Z_POWER;
  return Math.ceil(((zForFamily(familySize) + zPower) ** 2 * variance) / (distance * distance));
}

export function pairedVerdict(e: PairedEvidence, margin: number): PairedVerdict {
  checkMargin(margin);
  if (e.p < ALPHA && e.lo > 0) return 'better';
  if (e.p < ALPHA && e.hi < 0) return 'worse';
  if (e.equivalenceP !== undefined ? e.equivalenceP < ONE_SIDED_ALPHA : e.lo > -margin && e.hi < margin) return 'equivalent';
  return 'inconclusive';
}

/**
 * The verdict, its margin, and for an inconclusive one the questions a decision would roughly take:
 * whole questions (a gain-set count scaled by the gain set's share) at the level of the decision's
 * Holm family.
 */
export function pairedDecision(e: PairedEvidence, margin: number = DEFAULT_MARGIN, scope: DecisionScope = {}): PairedDecision {
  const verdict = pairedVerdict(e, margin);
  let questionsNeeded: number | null = null;
  if (verdict === 'inconclusive') {
    const m = scope.familySize ?? 1;
    // The nearer decision: a direction (clear 0) or equivalence (clear the nearer margin).
    const toDirection = e.estimate !== 0 ? questionsToClear(e, Math.abs(e.estimate), 'one-sided', m) : null;
    const toEquivalence = Math.abs(e.estimate) < margin ? questionsToClear(e, margin - Math.abs(e.estimate), 'equivalence', m) : null;
    const candidates = [toDirection, toEquivalence].filter((x): x is number => x !== null);
    questionsNeeded = candidates.length > 0 ? wholeQuestions(Math.max(e.n + 1, Math.min(...candidates)), e, scope) : null;
  }
  return { verdict, margin, questionsNeeded };
}
