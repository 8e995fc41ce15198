/**
 * When a checkpoint folder that a trainer is writing counts as complete: its files (names, sizes,
 * modification times) unchanged between two polls, then config.json and the weights' headers read
 * (the safetensors header of each file parses, and a sharded folder's index names only shards that
 * are there and hold the tensors it says). The decision is pure; the header check is passed in,
 * since it reads the disk (the engine's own reader, see checkpointFolder.ts).
 */

export interface FolderFile {
  name: string;
  size: number;
  mtimeMs: number;
}

/** What one poll saw of a folder: its top-level files, sorted by name. */
export interface FolderSnapshot {
  files: readonly FolderFile[];
  /** Entries that are neither files nor folders (a FIFO, a link to a device): such a folder is never ready. */
  special?: readonly string[];
}

/** The header check's answer: nothing wrong, or what is (a missing shard, a truncated header…). */
export type WeightsCheck = { ok: true } | { ok: false; problem: string };

export type Readiness =
  /** No config.json and no weights file: not (yet) a model folder; not shown. */
  | { state: 'not-a-checkpoint' }
  /** A model folder still being written, or whose weights do not read yet; `why` says which. */
  | { state: 'writing'; why: string }
  | { state: 'ready' };

const CONFIG = 'config.json';
const isWeightsFile = (name: string) => name.endsWith('.safetensors') || name === 'model.safetensors.index.json';

/** The two polls saw the same files with the same sizes and times. */
export function sameSnapshot(a: FolderSnapshot, b: FolderSnapshot): boolean {
  if (a.files.length !== b.files.length) return false;
  return a.files.every((f, i) => {
    const g = b.files[i];
    return f.name === g.name && f.size === g.size && f.mtimeMs === g.mtimeMs;
  });
}

/**
 * The folder's state now, given the previous poll's snapshot (undefined on its first sighting).
 * `checkWeights` runs only for a folder whose files held still, so headers are not read while
 * they are being written.
 */
export function readiness(previous: FolderSnapshot | undefined, current: FolderSnapshot, checkWeights: () => WeightsCheck): Readiness {
  const names = current.files.map((f) => f.name);
  if (!names.includes(CONFIG) && !names.some(isWeightsFile)) return { state: 'not-a-checkpoint' };
  if (!previous || !sameSnapshot(previous, current)) return { state: 'writing', why: previous ? 'files still changing' : 'checking that its files hold still' };
  // Checked before any file is read: a FIFO would block the reader, a link to /dev/zero never end.
  if (current.special && current.special.length > 0) return { state: 'writing', why: `${current.special[0]} is not a regular file` };
  if (!names.includes(CONFIG)) return { state: 'writing', why: `no ${CONFIG} yet` };
  if (!names.some(isWeightsFile)) return { state: 'writing', why: 'no weights file yet' };
  const check = checkWeights();
  return check.ok ? { state: 'ready' } : { state: 'writing', why: check.problem };
}
