/**
 * What the Tables page shows, built from run and comparison folders with the CLI's own code
 * (src/audit: the tables, the trajectory, their formatted views), so the page and
 * `reach-audit table` / `reach-audit trajectory` print the same numbers. No vscode import: the
 * unit tests call it directly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type TableOptions, trajectory } from '../../audit/results';
import { tableSet, trajectoryViews, type TableView } from '../../audit/report';
import { COMPARISON_FILE, readComparison, loadTableSources, loadTrajectoryCheckpoints, readTrajectoryFile, TRAJECTORY_FILE, type CheckpointRef } from '../../audit/store';
import type { TableData, TablesHostMessage } from '../../contract';

export type TablesMessage = Extract<TablesHostMessage, { type: 'showTables' }>;
export type TrajectoryMessage = Extract<TablesHostMessage, { type: 'showTrajectory' }>;

const tableData = (v: TableView): TableData => ({ id: v.id, title: v.title, notes: v.notes, headers: v.headers, rows: v.rows, apart: v.apart });

/**
 * The three tables (training only when a comparison is among the folders), as `reach-audit table`
 * builds them with `--margin` and `--allow-unfinished`: an unfinished run is shown, marked and warned about.
 */
export function buildTablesMessage(folders: readonly string[], options: TableOptions = {}): TablesMessage {
  const warnings: string[] = [];
  const { runs, comparisons } = loadTableSources(folders, (w) => warnings.push(w), { allowUnfinished: true });
  const { views } = tableSet(runs, comparisons, options);
  return { type: 'showTables', sources: folders.map((f) => path.resolve(f)), tables: views.map(tableData), warnings };
}

/** A trajectory over checkpoint runs in training order, recomputed from their records. */
export function buildTrajectoryMessage(checkpoints: readonly CheckpointRef[], source: string): TrajectoryMessage {
  const warnings: string[] = [];
  const result = trajectory(loadTrajectoryCheckpoints(checkpoints, (w) => warnings.push(w), { allowUnfinished: true }), { alongK: true });
  return { type: 'showTrajectory', source, trajectory: result, tables: trajectoryViews(result).map(tableData), warnings };
}

export function trajectoryFromFile(file: string): TrajectoryMessage {
  return buildTrajectoryMessage(readTrajectoryFile(file), file);
}

/**
 * The comparison folders (…/.reach-audit/comparisons/<c>/, beside the runs' folder) whose two runs
 * are both among `runFolders`, so selecting a base and a tuned run brings their comparison.
 */
export function comparisonsOf(runFolders: readonly string[]): string[] {
  const selected = new Set(runFolders.map((f) => path.resolve(f)));
  const parents = new Set([...selected].map((f) => path.resolve(f, '..', '..', 'comparisons')));
  const found: string[] = [];
  for (const parent of parents) {
    let names: string[];
    try {
      names = fs.readdirSync(parent).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const folder = path.join(parent, name);
      if (!fs.existsSync(path.join(folder, COMPARISON_FILE))) continue;
      let stored;
      try {
        stored = readComparison(folder);
      } catch {
        continue; // a broken comparison file is not the selected runs' problem
      }
      if (stored && selected.has(path.resolve(stored.base.folder)) && selected.has(path.resolve(stored.tuned.folder))) found.push(folder);
    }
  }
  return found;
}

/** The trajectory.json of the folder that holds all of `runFolders` (runs written by `reach-audit trajectory`). */
export function trajectoryFileOf(runFolders: readonly string[]): string | undefined {
  const parents = new Set(runFolders.map((f) => path.dirname(path.resolve(f))));
  if (parents.size !== 1 || runFolders.length < 2) return undefined;
  const file = path.join([...parents][0], TRAJECTORY_FILE);
  return fs.existsSync(file) ? file : undefined;
}
