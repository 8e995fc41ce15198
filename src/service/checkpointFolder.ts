/**
 * What one poll reads of a watched training run's folder: the checkpoint folders in it, a
 * snapshot of each one's files, and whether its weights read, through the engine's own
 * safetensors reader (the headers parse; a sharded folder's index names shards that are there and
 * hold its tensors). The I/O edge of the watch; the decisions are checkpointReadiness.ts's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError, openWeights, readModelConfig } from '../engine/index';
import type { FolderSnapshot, WeightsCheck } from './checkpointReadiness';

/** Hugging Face's Trainer writes a checkpoint into tmp-checkpoint-N and renames it when complete. */
const STAGING_PREFIX = 'tmp-';

/** The sub-folders of `dir` that may be checkpoints (hidden and staging folders left out). */
export function candidateFolders(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new InputError(`${dir}: cannot read the watched folder (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return entries
    .filter((e) => !e.name.startsWith('.') && !e.name.startsWith(STAGING_PREFIX))
    .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDirectory(path.join(dir, e.name))))
    .map((e) => e.name);
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The folder's top-level files now; undefined when the folder is gone. */
export function snapshotFolder(folder: string): FolderSnapshot | undefined {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const files = [];
  const special: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) continue;
    try {
      const s = fs.statSync(path.join(folder, e.name));
      if (s.isFile()) files.push({ name: e.name, size: s.size, mtimeMs: s.mtimeMs });
      else if (!s.isDirectory()) special.push(e.name);
    } catch {
      // A file removed between the listing and its stat: the next poll sees the folder as it is then.
    }
  }
  files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return special.length > 0 ? { files, special: special.sort() } : { files };
}

/** config.json and the weights' headers read as the engine reads them at load. */
export function checkCheckpointWeights(folder: string): WeightsCheck {
  try {
    readModelConfig(folder);
    openWeights(folder).close();
    return { ok: true };
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * After an audit failed: why, if the checkpoint went away under it (the trainer's rotation deletes
 * old checkpoints) — undefined when it is still there and reads, so the failure is the audit's own.
 */
export function checkpointGoneWhy(folder: string): string | undefined {
  if (!fs.existsSync(folder)) return DELETED_DURING_AUDIT;
  const check = checkCheckpointWeights(folder);
  return check.ok ? undefined : `${DELETED_DURING_AUDIT} (${check.problem})`;
}

export const DELETED_DURING_AUDIT = 'deleted during its audit';
