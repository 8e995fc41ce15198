/**
 * Runs outside the workspace's own `.reach-audit/runs`: a folder the user opened with Open Run
 * Folder… (a merged shard run, a colleague's run, another project's runs). What was opened may be
 * one run folder, a folder of run folders, or a project holding `.reach-audit/runs`; each is
 * listed as the Runs view lists the workspace's. Only reads JSON, as runListing.ts does.
 */
import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { listRuns, readRun, RUNS_FOLDER, type RunEntry } from './runListing';

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

async function isFolder(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** A folder a run was opened from is one of these. */
export type OpenedKind = 'run' | 'runs' | 'project' | 'none';

/** What an opened folder holds: a run (manifest.json), a project (.reach-audit/runs), run folders, or nothing the view lists. */
export async function openedKind(folder: string): Promise<OpenedKind> {
  if (await isFile(path.join(folder, 'manifest.json'))) return 'run';
  if (await isFolder(path.join(folder, RUNS_FOLDER))) return 'project';
  if (path.basename(folder) === '.reach-audit' && (await isFolder(path.join(folder, 'runs')))) return 'project';
  try {
    const dirents = await readdir(folder, { withFileTypes: true });
    for (const d of dirents) if (d.isDirectory() && (await isFile(path.join(folder, d.name, 'manifest.json')))) return 'runs';
  } catch {
    return 'none';
  }
  return 'none';
}

/** The runs an opened folder holds, newest first; a folder that is gone or holds none gives none. */
export async function listOpenedFolder(folder: string): Promise<RunEntry[]> {
  switch (await openedKind(folder)) {
    case 'run':
      return [await readRun(folder)];
    case 'project':
      return listRuns(path.basename(folder) === '.reach-audit' ? path.dirname(folder) : folder);
    case 'runs': {
      const dirents = await readdir(folder, { withFileTypes: true });
      const names = dirents.filter((d) => d.isDirectory()).map((d) => d.name);
      const runs: string[] = [];
      for (const n of names) if (await isFile(path.join(folder, n, 'manifest.json'))) runs.push(n);
      runs.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
      return Promise.all(runs.map((n) => readRun(path.join(folder, n))));
    }
    case 'none':
      return [];
  }
}
