/**
 * Audit Checkpoint Folders…: the pure part. Checkpoint folders picked in any order are put in
 * training order as the CLI's watch puts them (the last number in the folder's name), labelled by
 * their names (with the parent's where two share a name), and turned into the command line of
 * `reach-audit trajectory --model A --model B … --data FILE` and the folder it writes into, named
 * from the dataset and the checkpoints, so picking the same folders again reuses the finished ones.
 * No vscode import.
 */
import * as path from 'node:path';
import { inTrainingOrder } from '../../service';

/** The folders in training order (by the last number in each folder's name; ties by name). */
export function trainingOrder(folders: readonly string[]): string[] {
  const byName = new Map<string, string[]>();
  for (const f of folders) byName.set(path.basename(f), [...(byName.get(path.basename(f)) ?? []), f]);
  return inTrainingOrder(byName.keys()).flatMap((name) => [...(byName.get(name) ?? [])].sort());
}

/** A label per folder: its name, or parent/name where two folders share a name. */
export function checkpointLabels(folders: readonly string[]): string[] {
  const names = folders.map((f) => path.basename(f));
  return folders.map((f, i) => (names.indexOf(names[i]) !== names.lastIndexOf(names[i]) ? `${path.basename(path.dirname(f))}/${names[i]}` : names[i]));
}

/** The order as one line: "checkpoint-200 → checkpoint-1000 → final". */
export function orderText(folders: readonly string[]): string {
  return checkpointLabels(folders).join(' → ');
}

/** A name safe for a folder: what the CLI keeps of a run name. */
const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

/** `<workspace>/.reach-audit/trajectories/<data>-<first>-to-<last>-<n>` (the same folders and dataset: the same folder). */
export function trajectoryOutFolder(workspace: string, data: string, folders: readonly string[]): string {
  const labels = checkpointLabels(folders).map((l) => l.replace(/\//g, '-'));
  const dataName = path.basename(data).replace(/\.(jsonl|json|parquet)$/i, '');
  return path.join(workspace, '.reach-audit', 'trajectories', safe(`${dataName}-${labels[0]}-to-${labels[labels.length - 1]}-${folders.length}`));
}

/** Why these folders cannot be audited as one trajectory, or undefined. `isCheckpoint`: the folder holds config.json. */
export function foldersProblem(folders: readonly string[], isCheckpoint: (folder: string) => boolean): string | undefined {
  const notModels = folders.filter((f) => !isCheckpoint(f));
  if (notModels.length > 0) return `${notModels.map((f) => path.basename(f)).join(', ')} ${notModels.length === 1 ? 'is not a checkpoint folder' : 'are not checkpoint folders'} (no config.json): pick the folders a trainer writes (checkpoint-500, …), each holding config.json and its weights.`;
  if (new Set(folders.map((f) => path.resolve(f))).size < 2) return 'a trajectory needs at least two checkpoint folders: pick two or more (Ctrl or Shift while clicking picks several).';
  if (checkpointLabels(folders).some((l) => l.includes(','))) return 'a checkpoint folder\'s name holds a comma, which the command line\'s --labels cannot carry: rename the folder.';
  return undefined;
}

/** The CLI's arguments: `trajectory --model … --data FILE [audit flags] --out OUT`, with --labels where the names alone would not tell checkpoints apart. */
export function trajectoryArgs(folders: readonly string[], data: string, flags: readonly string[], out: string): string[] {
  const labels = checkpointLabels(folders);
  const named = labels.some((l, i) => l !== path.basename(folders[i]));
  return ['trajectory', ...folders.flatMap((f) => ['--model', f]), '--data', data, ...flags, ...(named ? ['--labels', labels.join(',')] : []), '--out', out];
}
