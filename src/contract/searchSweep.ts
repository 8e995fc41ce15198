/**
 * The route search over its exploration sweep (--search-sweep; docs/design/probes.md "Exploration sweep")
 * as every page reads it: the search's reach at its own c and at each sweep c, each paired with
 * random routes on the same questions. The audit computes it from the records
 * (src/audit/results/searchSweepTable.ts); the Tables page, `reach-audit table` and the panel's
 * routes-vs-search card show it.
 */
import type { Interval, Rate } from './interval';

export interface SweepPointRow {
  c: number;
  /** True for the search probe's own constant (its full-budget records). */
  own: boolean;
  search: Rate;
  /** routes − search at this c, paired on the same questions (Newcombe's paired score interval). */
  difference: { delta: number } & Interval;
  onlyRoutes: number;
  onlySearch: number;
  /** Exact McNemar p, unadjusted. */
  mcnemarP: number;
}

/** One run's sweep. */
export interface SearchSweepNumbers {
  /** Questions that ran both route probes and the sweep. */
  n: number;
  budget: number;
  routes: Rate;
  /** By c, ascending. */
  points: SweepPointRow[];
  /** Generations the sweep spent on new routes, and route evaluations it reused instead. */
  generations: number;
  reused: number;
  evaluated: number;
  /** Whether routes − search keeps one sign over the sweep (every interval on the same side of 0 or every one across it). */
  signStable: boolean;
}
