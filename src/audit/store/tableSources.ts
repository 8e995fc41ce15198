/**
 * Reading the runs and comparisons the cross-run tables are built from (the CLI's `table` and
 * `trajectory`, the extension's Build Tables): every run once, every comparison's pair checked as
 * `compare` checks it. Failures name the folder; warnings (a torn last line, an unfinished run)
 * go to the caller.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { distinctRunLabels, type ComparisonForTables, type LabelSource, type RunForTables, type TrajectoryCheckpoint } from '../results';
import { loadRun, readComparison } from './comparisonStore';
import { comparisonMismatches } from './manifest';
import { readManifest } from './runStore';

/** The file `reach-audit trajectory` writes beside its checkpoint runs. */
export const TRAJECTORY_FILE = 'trajectory.json';
/** Where `reach-audit trajectory` puts a trajectory by default (relative to the working folder). */
export const TRAJECTORIES_FOLDER = path.join('.reach-audit', 'trajectories');

/** A folder that is not a run or a comparison, or a comparison whose runs no longer match. */
export class TableSourceError extends Error {}

export interface SourceOptions {
  /** Use runs that have not finished (their finished questions; rows are marked). Refused otherwise. */
  allowUnfinished?: boolean;
}

export function loadRunForTables(folder: string, warn: (message: string) => void, options: SourceOptions = {}): RunForTables {
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new TableSourceError(`${folder}: no such run folder`);
  const run = loadRun(folder);
  for (const w of run.records.warnings) warn(w);
  const progress = `${run.records.values.length} of ${run.manifest.dataset?.questions ?? '?'} questions`;
  if (!run.finished && !options.allowUnfinished) {
    throw new TableSourceError(`${folder} has not finished (${progress}); finish it with --resume, or pass --allow-unfinished to use its finished questions (its rows are then marked unfinished)`);
  }
  if (!run.finished) warn(`${folder} has not finished (${progress}); using the finished questions, its rows marked unfinished`);
  return {
    folder: path.resolve(folder),
    model: path.basename(run.manifest.model.path),
    dataset: path.basename(run.manifest.dataset.path),
    seed: run.manifest.seeds.run,
    records: run.records.values,
    finished: run.finished,
    // Absent in runs made before the route space was recorded: their random routes used the default, 4 edits.
    randomRouteEdits: run.manifest.routeSpace?.maxEdits ?? 4,
    searchReward: run.manifest.search?.reward ?? 'correct',
    searchC: run.manifest.search?.c,
    searchLambda: run.manifest.search?.lambda,
  };
}

/** Run folders and comparison folders: every run once, every pair checked. */
export function loadTableSources(folders: readonly string[], warn: (message: string) => void, options: SourceOptions = {}): { runs: RunForTables[]; comparisons: ComparisonForTables[] } {
  const runs = new Map<string, RunForTables>();
  const labelSources = new Map<string, LabelSource>();
  const comparisons: ComparisonForTables[] = [];
  const problems: string[] = [];
  const run = (folder: string) => {
    const key = path.resolve(folder);
    if (!runs.has(key)) {
      runs.set(key, loadRunForTables(folder, warn, options));
      const manifest = readManifest(folder);
      labelSources.set(key, { folder: key, modelPath: manifest.model.path, datasetPath: manifest.dataset.path });
    }
    return runs.get(key)!;
  };
  for (const folder of folders) {
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new TableSourceError(`${folder}: no such run or comparison folder`);
    const stored = readComparison(folder);
    if (!stored) {
      run(folder);
      continue;
    }
    const base = run(stored.base.folder);
    const tuned = run(stored.tuned.folder);
    // The pair as it is on disk now, checked as compare checks it.
    const mismatches = comparisonMismatches(loadRun(base.folder).manifest, loadRun(tuned.folder).manifest);
    if (mismatches.length > 0) problems.push(`${folder}: its runs do not match —\n    ${mismatches.join('\n    ')}`);
    comparisons.push({ folder: path.resolve(folder), dataset: base.dataset, base, tuned });
  }
  if (problems.length > 0) throw new TableSourceError(`cannot build the tables:\n  ${problems.join('\n  ')}`);
  // Two different runs must not read the same label ("base / arith-test.jsonl" twice).
  const all = [...runs.values()];
  distinctRunLabels(all.map((r) => labelSources.get(r.folder)!)).forEach((label, i) => Object.assign(all[i], label));
  for (const c of comparisons) c.dataset = c.base.dataset;
  return { runs: [...runs.values()], comparisons };
}

export interface CheckpointRef {
  label: string;
  folder: string;
}

/** Checkpoint runs in training order, checked to share their settings (as `compare` checks a pair). */
export function loadTrajectoryCheckpoints(checkpoints: readonly CheckpointRef[], warn: (message: string) => void, options: SourceOptions = {}): TrajectoryCheckpoint[] {
  // One checkpoint is a trajectory so far: what a watched training run has after its first audit.
  if (checkpoints.length === 0) throw new TableSourceError('a trajectory needs at least one checkpoint');
  const loaded = checkpoints.map((c) => ({ ...c, run: loadRunForTables(c.folder, warn, options) }));
  const first = loadRun(loaded[0].run.folder).manifest;
  const problems = loaded.slice(1).flatMap((c) => comparisonMismatches(first, loadRun(c.run.folder).manifest).map((p) => `${c.folder}: ${p}`));
  if (problems.length > 0) throw new TableSourceError(`cannot build a trajectory from runs with different settings —\n  ${problems.join('\n  ')}`);
  return loaded.map((c) => ({ label: c.label, folder: c.run.folder, records: c.run.records }));
}

/**
 * The checkpoints a trajectory.json names, in order. Only labels and folders are taken from it:
 * the numbers are recomputed from the runs' records, so an edited or stale file cannot show
 * numbers the runs do not have.
 */
export function readTrajectoryFile(file: string): CheckpointRef[] {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new TableSourceError(`${file}: cannot be read as JSON (${(err as Error).message})`);
  }
  const v = value as { kind?: unknown; points?: unknown } | null;
  if (typeof v !== 'object' || v === null || v.kind !== 'reach-audit-trajectory' || !Array.isArray(v.points)) {
    throw new TableSourceError(`${file}: not a trajectory (expected kind "reach-audit-trajectory" and a points array, as reach-audit trajectory writes)`);
  }
  return v.points.map((p: unknown, i: number) => {
    const point = p as { label?: unknown; folder?: unknown } | null;
    if (typeof point?.label !== 'string' || typeof point.folder !== 'string') throw new TableSourceError(`${file}: points[${i}]: expected a label and a folder (strings)`);
    // A relative folder is relative to the trajectory's own folder.
    return { label: point.label, folder: path.resolve(path.dirname(file), point.folder) };
  });
}
