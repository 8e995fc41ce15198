/**
 * A training trajectory: checkpoints in training order, each audited with the same settings. Per
 * checkpoint the realized rate, each probe's reachable rate and the any-probe ceiling (Wilson
 * intervals), pass@1 vs pass@k of the sampling probe (bootstrap intervals, as summary.json's
 * passAtKCi), between consecutive checkpoints how many questions moved between the three
 * states, and each checkpoint's pass@k against the first's at every k. `reach-audit trajectory` writes it (trajectory.json) and the Tables page receives it.
 */
import type { Interval, Rate } from './interval';
import type { PassAtKDeltaCurve } from './passAtKDelta';
import type { QuestionState } from './questionState';

export interface TrajectoryPoint {
  label: string;
  folder: string;
  n: number;
  realized: Rate;
  reachable: Record<string, Rate>;
  /** Realized, or reachable by any probe. */
  ceiling: Rate;
  /** Realized questions no probe reached (inside the ceiling through the deployment alone). */
  realizedNotReached: number;
  /** pass@1 of the pass@k probe (summary.json's passAtK[probe]['1']); null without the probe. */
  passAt1: number | null;
  /** Its 95% interval (summary.json's passAtKCi: Wilson where every question's value is 0 or 1, else a percentile bootstrap); null with passAt1 or below 20 questions. */
  passAt1Ci: Interval | null;
  /** pass@k at k = the trajectory's passAtKMax; null where this checkpoint's budget is smaller. */
  passAtK: number | null;
  passAtKCi: Interval | null;
  /** The n behind pass@1 and pass@k: the questions of this checkpoint that ran the probe. */
  passAtKN: number;
}

export type FlowKey = `${QuestionState}->${QuestionState}`;

export interface TrajectoryFlow {
  from: string;
  to: string;
  /** Questions present in both checkpoints. */
  n: number;
  counts: Record<FlowKey, number>;
  /** The question ids of each move, for "show the questions that moved at this step". */
  ids: Record<FlowKey, string[]>;
}

/** One checkpoint's pass@k against the first checkpoint's at every k, paired by question id (comparison.json's passAtKDeltas). */
export interface TrajectoryPassAtKDelta {
  /** The checkpoint (tuned side) and the first checkpoint (base side). */
  label: string;
  base: string;
  /** Realized, each probe, the ceiling; empty when the two share no probe with full pools. */
  curves: PassAtKDeltaCurve[];
}

export interface TrajectoryResult {
  probes: string[];
  /** Generations per question behind the ceiling: the probes' budgets together. */
  ceilingBudget: number;
  passAtKProbe: string | null;
  passAtKMax: number;
  points: TrajectoryPoint[];
  flows: TrajectoryFlow[];
  /** Per checkpoint after the first: Δpass@k against the first; computed for the Trajectory tab only (absent in trajectory.json). */
  passAtKDeltas?: TrajectoryPassAtKDelta[];
}

/**
 * trajectory.json. Readers take only its labels and folders and recompute the numbers from the
 * runs, so files written before a field was added stay readable.
 */
export interface StoredTrajectory extends TrajectoryResult {
  kind: 'reach-audit-trajectory';
  createdAt: string;
}
