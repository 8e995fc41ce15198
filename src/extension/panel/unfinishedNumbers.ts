/**
 * The paired numbers of a run that has no summary.json yet (stopped, or still going): routes vs
 * search over the finished questions, as the audit's summary computes them, so the panel's chart
 * shows the comparison the run has instead of "no paired comparison". Pure: no vscode.
 */
import { chanceSummary, compareProbes } from '../../audit/results';
import type { QuestionRecord, UnfinishedNumbers } from '../../contract';

/** Undefined when the run has a summary (its own numbers stand) or no finished question ran both probes. */
export function unfinishedNumbers(records: readonly QuestionRecord[], hasSummary: boolean): UnfinishedNumbers | undefined {
  if (hasSummary || records.length === 0) return undefined;
  const routesVsSearch = compareProbes(records, 'routes', 'search');
  if (!routesVsSearch) return undefined;
  const chance = chanceSummary(records, ['routes', 'search']);
  return { n: records.length, routesVsSearch, ...(chance ? { chance } : {}) };
}
