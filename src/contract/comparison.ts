/**
 * comparison.json of `reach-audit compare`: two runs of the same questions under the same
 * deployment, probes, budgets and seeds. Realized Δ and reachable-ceiling Δ with Newcombe's paired
 * score intervals, exact McNemar tests and verdicts against the margin, the transition table between
 * states, and the newly realized questions split into already-reachable-by-base vs newly-reachable.
 */
import type { Rate } from './interval';
import type { PairedDelta } from './pairedDecision';
import type { PassAtKDeltaCurve } from './passAtKDelta';
import type { QuestionState } from './questionState';
import type { RunSummary } from './runSummary';

/** A share of the newly realized questions with its Wilson interval, and which questions. */
export type RateWithIds = Rate & { ids: string[] };

export interface Comparison {
  /** Questions present in both runs (every number is over these). */
  n: number;
  /** Questions present in only one of the runs (left out of every number). */
  unmatched: { baseOnly: string[]; tunedOnly: string[] };
  realized: PairedDelta;
  /** The reachable ceiling: realized, or reachable by any probe. */
  reachableCeiling: PairedDelta;
  /** Questions inside the ceiling only because the deployment answers them (no probe reached them); absent in older files. */
  realizedNotReached?: { base: number; tuned: number };
  reachable: Record<string, PairedDelta>;
  /** transitions[base state][tuned state] = question ids. */
  transitions: Record<QuestionState, Record<QuestionState, string[]>>;
  newlyRealized: {
    n: number;
    /** Already reachable by the base model: training realized what was reachable. */
    alreadyReachable: RateWithIds;
    /** Unreached by the base model: training made them reachable. */
    newlyReachable: RateWithIds;
  };
  /** --foreclosure-window in both runs: where the windows moved; absent otherwise. */
  foreclosure?: ForeclosureMoves;
  /** Ceilings along k: Δpass@k at every k ≤ B for realized, each probe with full pools and the ceiling; absent in older files (and empty without such a probe). */
  passAtKDeltas?: PassAtKDeltaCurve[];
}

/**
 * Base → tuned foreclosure windows on the paired questions both runs bracketed: windows decided in
 * both, placed later / earlier / the same in the tuned output (the window's midpoint as a share of
 * the output), decided in one run only; `p`: the exact two-sided sign test on later vs earlier, from
 * 20 questions with a window in both (null under 20: counts only).
 */
export interface ForeclosureMoves {
  bracketed: number;
  n: number;
  later: number;
  earlier: number;
  same: number;
  onlyBase: number;
  onlyTuned: number;
  p: number | null;
}

/** One side of a stored comparison: its run folder, name, model path and summary. */
export interface RunRef {
  folder: string;
  name: string;
  model: string;
  summary: RunSummary;
}

/** comparison.json as `reach-audit compare` writes it. */
export interface StoredComparison {
  kind: 'reach-audit-comparison';
  createdAt: string;
  base: RunRef;
  tuned: RunRef;
  comparison: Comparison;
}
