/**
 * A checkpoint comparison on disk: `.reach-audit/comparisons/<time>-<name>/comparison.json` (or
 * --out) with the two run folders, both summaries and the comparison itself, so `report` can
 * render it again without recomputing the audits.
 */
import * as path from 'node:path';
import { InputError, lockFolder } from '../../common';
import { compareRecords, passAtKDeltas, summarize } from '../results';
import { isObject, numericsDifferences, type NumericsPlatform, type RunRef, type RunSummary, type StoredComparison, type RunManifest } from '../../contract';
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
  const numerics = numericsNote(base.manifest, tuned.manifest);
  if (numerics) onWarning(numerics);
  const problems = comparisonMismatches(base.manifest, tuned.manifest, options);
  if (problems.length > 0) throw new InputError(`cannot compare ${baseFolder} with ${tunedFolder}: a checkpoint comparison needs the same settings —\n  ${problems.join('\n  ')}`);
  // Ceilings along k are stored with the comparison (not computed by compareRecords, which every trajectory step calls: their bootstraps are needed once, here).
  const comparison = { ...compareRecords(base.records.values, tuned.records.values, { margin: options.margin }), passAtKDeltas: passAtKDeltas(base.records.values, tuned.records.values) };
  const ref = (folder: string, run: typeof base): RunRef => ({ folder: path.resolve(folder), name: run.manifest.name, model: run.manifest.model.path, summary: run.summary });
  return { kind: 'reach-audit-comparison', createdAt: new Date().toISOString(), base: ref(baseFolder, base), tuned: ref(tunedFolder, tuned), comparison };
}

/**
 * Two runs computed on machines whose kernels differ: part of any per-question difference may be
 * the machines', not the checkpoints'. Said, not refused (the difference is usually far smaller than training's).
 */
function numericsNote(base: RunManifest, tuned: RunManifest): string | undefined {
  const all = (m: RunManifest) => [m.engine.numerics, ...(m.engine.numericsAlso ?? [])].filter((p): p is NumericsPlatform => p !== undefined);
  const [a, b] = [all(base), all(tuned)];
  if (a.length === 0 || b.length === 0) return undefined;
  const pairs = a.flatMap((x) => b.map((y) => numericsDifferences(x, y))).filter((d) => d.length > 0);
  if (pairs.length === 0) return undefined;
  return `the base and tuned runs were computed with different kernels (${pairs[0].join(', ')}): a question can decode differently for that reason alone, so a few of the paired changes may be the machines', not training's`;
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
