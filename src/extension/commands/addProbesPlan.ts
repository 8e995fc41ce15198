/**
 * Add Probes to This Log…: what an audit on an imported log's outputs asks for. The deployment's
 * outputs come from the log (`realizedFrom`: the imported run's folder) and the probes run on the
 * model; the questions are the log's, chosen in the benchmark file the user picked — the whole
 * file, its first N questions, or the log's ids — so a log of part of a benchmark audits that part.
 * Pure: no vscode, no file system.
 */
import * as path from 'node:path';
import type { AuditRequestOptions } from '../../service';

/** How the log's questions are chosen in the dataset: all, the first N, or by id. */
export type LogSelection = Pick<AuditRequestOptions, 'limit' | 'ids'>;

/**
 * The selection that audits exactly the log's questions (`logIds`) in the dataset (`datasetIds`,
 * file order); `missing`: the log's questions the dataset lacks (another benchmark, or ids that differ).
 */
export function logSelection(datasetIds: readonly string[], logIds: readonly string[]): { selection: LogSelection } | { missing: string[] } {
  const inDataset = new Set(datasetIds);
  const missing = logIds.filter((id) => !inDataset.has(id));
  if (missing.length > 0 || logIds.length === 0) return { missing };
  const inLog = new Set(logIds);
  if (datasetIds.every((id) => inLog.has(id))) return { selection: {} };
  const first = datasetIds.slice(0, inLog.size);
  if (first.every((id) => inLog.has(id))) return { selection: { limit: inLog.size } };
  return { selection: { ids: datasetIds.filter((id) => inLog.has(id)) } };
}

/** The notice for a dataset that lacks some of the log's questions: how many, the first, and the fix. */
export function missingQuestionsText(missing: readonly string[], logCount: number, dataset: string): string {
  if (logCount === 0) return 'the imported run holds no question to probe.';
  const first = missing.slice(0, 3).map((id) => JSON.stringify(id)).join(', ');
  return (
    `${missing.length} of the log's ${logCount} questions are not in ${path.basename(dataset)} (first: ${first}${missing.length > 3 ? ', …' : ''}). ` +
    "Pick the benchmark file the log was made from: questions are matched by id (the row's id field, else its line)."
  );
}

/** The new run's name: the imported run's, marked as probed. */
export function probedRunName(importedName: string): string {
  return `${importedName.replace(/-imported$/, '')}-probed`;
}

/** The options of the audit: the settings' and the steps', the log's outputs, the questions, model and dataset. */
export function addProbesOptions(base: Partial<AuditRequestOptions>, importedRun: string, selection: LogSelection, model: string, data: string, name: string): AuditRequestOptions {
  const options: AuditRequestOptions = { ...base, model, data, realizedFrom: importedRun, name };
  // The log's questions, not a limit or ids left from the settings or an earlier pick.
  delete options.limit;
  delete options.ids;
  return { ...options, ...selection };
}
