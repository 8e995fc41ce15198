/**
 * The checkpoint comparison of two synthetic runs (syntheticRun.ts), computed by the audit's own
 * compareRecords and passAtKDeltas, as `reach-audit compare` writes it. Node-only (the paired bootstrap's PRNG uses
 * node:crypto), so it is not in the browser bundle of syntheticRun.ts.
 */
import { compareRecords } from '../../src/audit/results/compare';
import { passAtKDeltas } from '../../src/audit/results/passAtKDelta';
import type { Comparison, RunData } from '../../src/contract';

export function makeSyntheticComparison(base: RunData, tuned: RunData): Comparison {
  // With the ceilings along k, as compareRuns stores them.
  return { ...compareRecords(base.records, tuned.records), passAtKDeltas: passAtKDeltas(base.records, tuned.records) };
}
