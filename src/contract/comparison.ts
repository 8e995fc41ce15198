/**
 * comparison.json of `reach-audit compare`: two runs of the same questions under the same
 * deployment, probes, budgets and seeds. Realized Δ and reachable-ceiling Δ with Newcombe's paired
 * score intervals, exact McNemar tests and verdicts against the margin, the transition table between
 * states, and the newly realized questions split into already-reachable-by-base vs newly-reachable.
 */
import type { Interval, Rate } from './interval';
import type { DifferenceIntervalMethod, PairedDecision } from './pairedDecision';
import type { PassAtKDeltaCurve } from './passAtKDelta';
import type { QuestionState } from './questionState';
import type { RunSummary } from './runSummary';

/** One paired yes/no measure on both checkpoints: tuned − base with a paired score interval. */
export interface PairedDelta {
  /** Share of the paired questions, base checkpoint. */
  base: number;
  tuned: number;
  /** tuned − base. */
  delta: number;
  /** 95% interval of the difference: Newcombe's paired score interval (a percentile bootstrap in files without ciMethod). */
  ci: Interval;
  /** Absent in files written before the score interval: their ci is a bootstrap one. */
  ciMethod?: DifferenceIntervalMethod;
  /** better / worse / equivalent within ±margin / inconclusive; absent in older files. */
  decision?: PairedDecision;
  /** Exact McNemar p-value on the discordant pairs. */
  mcnemarP: number;
  /** Base yes, tuned no. */
  lost: number;
  /** Base no, tuned yes. */
  gained: number;
  n: number;
}

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
  /** Ceilings along k: Δpass@k at every k ≤ B for realized, each probe with full pools and the ceiling; absent in older files (and empty without such a probe). */
  passAtKDeltas?: PassAtKDeltaCurve[];
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
