/**
 * A checkpoint comparison on disk: `.reach-audit/comparisons/<time>-<name>/comparison.json` (or
 * --out) with the two run folders, both summaries and the comparison itself, so `report` can
 * render it again without recomputing the audits.
 */
import * as path from 'node:path';
import { InputError, lockFolder } from '../../common';
import { compareRecords, summarize } from '../results';
import { isObject, type RunRef, type RunSummary, type StoredComparison, type RunManifest } from '../../contract';
import { validateStoredComparison } from './runFileValidation';
import { comparisonMismatches } from './manifest';
import { checkRecordSet } from './recordSetCheck';
import { readJsonFile, readManifest, readRecords, readSummary, runTimeStamp, safeRunName, writeJson, prepareRunFolder } from './runStore';

export const COMPARISONS_FOLDER = path.join('.reach-audit', 'comparisons');
export const COMPARISON_FILE = 'comparison.json';

export function newComparisonFolder(workspace: string, name: string, date: Date): string {
  return path.join(workspace, COMPARISONS_FOLDER, `${runTimeStamp(date)}-${safeRunName(name)}`);
}

/** A finished run's manifest, records and summary (recomputed from records when summary.json is missing). */
export function loadRun(folder: string): { manifest: RunManifest; summary: RunSummary; records: ReturnType<typeof readRecords>; finished: boolean } {
  const manifest = readManifest(folder);
  const records = readRecords(folder);
  const stored = readSummary(folder, records.values);
  checkRecordSet(folder, manifest, records.values, stored !== undefined);
  return { manifest, records, summary: stored ?? summarize(records.values), finished: stored !== undefined };
}

export function compareRuns(baseFolder: string, tunedFolder: string, onWarning: (m: string) => void, options: { mixedBackends?: boolean; mixedWeights?: boolean; margin?: number } = {}): StoredComparison {
  const base = loadRun(baseFolder);
  const tuned = loadRun(tunedFolder);
  for (const w of [...base.records.warnings, ...tuned.records.warnings]) onWarning(w);
  for (const [label, run, folder] of [['base', base, baseFolder], ['tuned', tuned, tunedFolder]] as const) {
    if (!run.finished) onWarning(`the ${label} run ${folder} has not finished (${run.records.values.length} of ${run.manifest.dataset?.questions ?? '?'} questions); comparing the finished questions`);
  }
  const problems = comparisonMismatches(base.manifest, tuned.manifest, options);
  if (problems.length > 0) throw new InputError(`cannot compare ${baseFolder} with ${tunedFolder}: a checkpoint comparison needs the same settings —\n  ${problems.join('\n  ')}`);
  const comparison = compareRecords(base.records.values, tuned.records.values, { margin: options.margin });
  const ref = (folder: string, run: typeof base): RunRef => ({ folder: path.resolve(folder), name: run.manifest.name, model: run.manifest.model.path, summary: run.summary });
  return { kind: 'reach-audit-comparison', createdAt: new Date().toISOString(), base: ref(baseFolder, base), tuned: ref(tunedFolder, tuned), comparison };
}

export function writeComparison(folder: string, stored: StoredComparison): void {
  prepareRunFolder(folder);
  const lock = lockFolder(folder, { purpose: 'reach-audit compare', advice: 'wait for it to finish, or choose another --out' });
  try {
    writeJson(folder, COMPARISON_FILE, stored);
  } finally {
    lock.release();
  }
}

export function readComparison(folder: string): StoredComparison | undefined {
  const file = path.join(folder, COMPARISON_FILE);
  const value = readJsonFile(file);
  if (value === undefined) return undefined;
  if (!isObject(value) || value.kind !== 'reach-audit-comparison') throw new InputError(`${file}: not a Reach Audit comparison`);
  return validateStoredComparison(value, file);
}
