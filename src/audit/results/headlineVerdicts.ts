/**
 * What a table's headline counts, decided once per row. Each row's tests (the difference, the
 * equivalence test, and the one-sided claim the headline is about) are Holm-adjusted over the
 * table's rows, each test its own family, so a claim for the paper (equivalent, non-inferior, the
 * ceiling not rising) needs family-wise evidence. A veto against the claim (a *worse* row, a
 * significantly rising ceiling) is decided on its own, unadjusted p: adjusting a veto would make it
 * weaker as rows are added, so a table with more flat rows could count a row that alone says "no".
 * Unadjusted vetoes are conservative against the claim. One function per table then decides the
 * row, and the headline only counts its answers: a row that says "worse" can never be counted as
 * non-inferior, nor a ceiling that rose as one that did not.
 */
import type { PairedDecision } from '../../contract';
import { ALPHA, holmAdjust, type PairedCounts, pAbove, pBelow, pEquivalent, ONE_SIDED_ALPHA, pairedDecision, questionsToClear, wholeQuestions, type DecisionScope, type PairedEvidence } from '../stats';

/** yes / no decided by the data, or inconclusive with roughly how many questions would decide it. */
export interface Claim {
  holds: 'yes' | 'no' | 'inconclusive';
  questionsNeeded: number | null;
  /** Inconclusive with no sample size: why more questions at the observed difference would not decide it. */
  why?: string;
}

/** One row's paired comparison (first − second) before adjustment. */
export interface RowComparison {
  counts: PairedCounts;
  estimate: number;
  lo: number;
  hi: number;
  mcnemarP: number;
}

/** A row's tests, Holm-adjusted over the table's rows (one family per test). */
export interface AdjustedTests {
  /** Exact McNemar, two-sided: decides better / worse. */
  difference: number;
  /** Two one-sided tests against ±margin: decides equivalent. */
  equivalence: number;
  /** One-sided test of first − second > −margin (non-inferiority of the first). */
  aboveMinusMargin: number;
  /** One-sided test of first − second < +margin (the first does not rise by the margin). */
  belowMargin: number;
}

const countsN = (c: PairedCounts) => c.both + c.onlyFirst + c.onlySecond + c.neither;

/** Every test of every row, each family Holm-adjusted over the rows. */
export function adjustOverRows(rows: readonly RowComparison[], margin: number): AdjustedTests[] {
  const difference = holmAdjust(rows.map((r) => r.mcnemarP));
  const equivalence = holmAdjust(rows.map((r) => pEquivalent(r.counts, margin)));
  const above = holmAdjust(rows.map((r) => pAbove(r.counts, -margin)));
  const below = holmAdjust(rows.map((r) => pBelow(r.counts, margin)));
  return rows.map((_, i) => ({ difference: difference[i], equivalence: equivalence[i], aboveMinusMargin: above[i], belowMargin: below[i] }));
}

/** The evidence a decision reads: the interval, with the adjusted difference and equivalence p. */
export function adjustedEvidence(r: RowComparison, tests: AdjustedTests): PairedEvidence {
  return { estimate: r.estimate, lo: r.lo, hi: r.hi, p: tests.difference, n: countsN(r.counts), discordant: r.counts.onlyFirst + r.counts.onlySecond, equivalenceP: tests.equivalence };
}

/** A veto, decided on the row's unadjusted exact McNemar p: first − second shown below 0 ('down') or above it ('up'). */
export function vetoed(r: RowComparison, direction: 'up' | 'down'): boolean {
  return r.mcnemarP < ALPHA && (direction === 'up' ? r.lo > 0 : r.hi < 0);
}

/** The decision with a veto applied: the vetoing direction replaces whatever the adjusted tests said. */
function withVeto(d: PairedDecision, r: RowComparison, direction: 'up' | 'down'): PairedDecision {
  return vetoed(r, direction) ? { ...d, verdict: direction === 'up' ? 'better' : 'worse', questionsNeeded: null } : d;
}

/** routes − search, as the headline counts it. */
export type RoutesVsSearchVerdict = 'routes better' | 'search better' | 'equivalent' | 'routes non-inferior' | 'inconclusive';

export interface RoutesVsSearchDecision {
  decision: PairedDecision;
  verdict: RoutesVsSearchVerdict;
  /** Routes non-inferior to search: yes for routes better, equivalent or non-inferior; no for search better. */
  nonInferior: Claim;
}

/**
 * Decides one routes-vs-search row (routes first) from its adjusted tests. `scope`: the table's
 * rows (the Holm family) and the row's questions in all, so "questions to decide" are whole
 * questions at the family's level.
 */
export function decideRoutesVsSearch(r: RowComparison, tests: AdjustedTests, margin: number, scope: DecisionScope = {}): RoutesVsSearchDecision {
  const evidence = adjustedEvidence(r, tests);
  // "search better" vetoes non-inferiority, so it is decided unadjusted.
  const decision = withVeto(pairedDecision(evidence, margin, scope), r, 'down');
  if (decision.verdict === 'worse') return { decision, verdict: 'search better', nonInferior: { holds: 'no', questionsNeeded: null } };
  if (decision.verdict === 'better') return { decision, verdict: 'routes better', nonInferior: { holds: 'yes', questionsNeeded: null } };
  if (decision.verdict === 'equivalent') return { decision, verdict: 'equivalent', nonInferior: { holds: 'yes', questionsNeeded: null } };
  if (tests.aboveMinusMargin < ONE_SIDED_ALPHA) return { decision, verdict: 'routes non-inferior', nonInferior: { holds: 'yes', questionsNeeded: null } };
  const nonInferior: Claim =
    r.estimate > -margin
      ? { holds: 'inconclusive', questionsNeeded: wholeQuestions(Math.max(evidence.n + 1, questionsToClear(evidence, r.estimate + margin, 'one-sided', scope.familySize) ?? 0), evidence, scope) }
      : { holds: 'inconclusive', questionsNeeded: null, why: 'the observed difference is beyond −margin' };
  return { decision, verdict: 'inconclusive', nonInferior };
}

export interface TrainingDecision {
  realized: PairedDecision;
  ceiling: PairedDecision;
  /** Realized up while the ceiling does not rise. */
  claim: Claim;
}

/** Decides one training row (tuned − base for realized and for the ceiling) from its adjusted tests; `familySize`: the table's rows. */
export function decideTraining(realized: RowComparison, realizedTests: AdjustedTests, ceiling: RowComparison, ceilingTests: AdjustedTests, margin: number, familySize = 1): TrainingDecision {
  const realizedEvidence = adjustedEvidence(realized, realizedTests);
  const ceilingEvidence = adjustedEvidence(ceiling, ceilingTests);
  const scope = { familySize };
  // Realized down and the ceiling up veto the claim, so they are decided unadjusted.
  const r = withVeto(pairedDecision(realizedEvidence, margin, scope), realized, 'down');
  const c = withVeto(pairedDecision(ceilingEvidence, margin, scope), ceiling, 'up');
  const out = (claim: Claim): TrainingDecision => ({ realized: r, ceiling: c, claim });
  if (r.verdict === 'worse' || r.verdict === 'equivalent' || c.verdict === 'better') return out({ holds: 'no', questionsNeeded: null });
  const up = r.verdict === 'better';
  const flat = ceilingTests.belowMargin < ONE_SIDED_ALPHA;
  if (up && flat) return out({ holds: 'yes', questionsNeeded: null });
  const forUp = up ? 0 : realized.estimate > 0 ? questionsToClear(realizedEvidence, realized.estimate, 'one-sided', familySize) : null;
  const forFlat = flat ? 0 : ceiling.estimate < margin ? questionsToClear(ceilingEvidence, margin - ceiling.estimate, 'one-sided', familySize) : null;
  if (forUp === null) return out({ holds: 'inconclusive', questionsNeeded: null, why: 'realized did not rise in this sample' });
  if (forFlat === null) return out({ holds: 'inconclusive', questionsNeeded: null, why: 'the observed ceiling rise is beyond +margin' });
  return out({ holds: 'inconclusive', questionsNeeded: Math.max(realizedEvidence.n + 1, forUp, forFlat) });
}
