/**
 * The checkpoint comparison of two synthetic runs (syntheticRun.ts), computed by the audit's own
 * compareRecords, as `reach-audit compare` writes it. Node-only (the paired bootstrap's PRNG uses
 * node:crypto), so it is not in the browser bundle of syntheticRun.ts.
 */
import { compareRecords } from '../../src/audit/results/compare';
import type { Comparison, RunData } from '../../src/contract';

export function makeSyntheticComparison(base: RunData, tuned: RunData): Comparison {
  return compareRecords(base.records, tuned.records);
}
