/**
 * One comparison job, as both front ends run it (`reach-audit compare` and the engine service the
 * extension uses): with models to audit, both audits are checked and their run folders chosen
 * before either starts, so bad input for the tuned side fails before any model work on the base
 * side; then the two runs (audited by the caller: the CLI in engine processes side by side or one
 * after the other, the service one after the other) are compared and the comparison is written.
 */
import * as path from 'node:path';
import type { StoredComparison } from '../contract';
import { compareRuns, newComparisonFolder, writeComparison } from '../audit/store';

export type ComparisonSide = 'base' | 'tuned';

/** One side of a comparison of two models: its run name, and its run folder when the comparison has one (out/base, out/tuned). */
export interface SidePlan {
  label: ComparisonSide;
  modelDir: string;
  name: string;
  folder: string | undefined;
}

/**
 * Prepares both sides with `prepare` (the caller's audit-job preparation: every check that does
 * not need the model, the run folder chosen), base first, tuned second, before either runs.
 */
export function prepareComparisonSides<T>(
  plan: { name: string; out?: string; baseModel: string; tunedModel: string },
  prepare: (side: SidePlan) => T,
): Record<ComparisonSide, T> {
  const side = (label: ComparisonSide, modelDir: string): SidePlan => ({
    label,
    modelDir,
    name: `${plan.name}-${label}`,
    folder: plan.out ? path.join(plan.out, label) : undefined,
  });
  const base = prepare(side('base', plan.baseModel));
  const tuned = prepare(side('tuned', plan.tunedModel));
  return { base, tuned };
}

export interface ComparisonWrite {
  baseFolder: string;
  tunedFolder: string;
  /** The comparison folder; default a new one under `workspace`'s .reach-audit/comparisons. */
  out?: string;
  workspace: string;
  name: string;
  warn(message: string): void;
  mixedBackends?: boolean;
  mixedWeights?: boolean;
  margin?: number;
}

/** Compares two run folders and writes comparison.json; returns the folder it went to and what it holds. */
export function writeComparisonOf(job: ComparisonWrite): { folder: string; stored: StoredComparison } {
  const stored = compareRuns(job.baseFolder, job.tunedFolder, job.warn, { mixedBackends: job.mixedBackends, mixedWeights: job.mixedWeights, margin: job.margin });
  const folder = job.out ?? newComparisonFolder(job.workspace, job.name, new Date());
  writeComparison(folder, stored);
  return { folder, stored };
}
