/**
 * Show as Trajectory on runs selected in the Runs view: the runs in training order (the last
 * number in their model folder's name, as the CLI's watch orders checkpoints), each labelled by
 * its model folder's name, or by its run name where two runs audited folders of one name. No vscode import.
 */
import * as path from 'node:path';
import { compareCheckpointNames } from '../../service';

export interface SelectedRun {
  folder: string;
  name: string;
  model?: string;
}

/** `{ runs, labels }` for Show Training Trajectory, or the problem (fewer than two runs). */
export function runsAsTrajectory(selected: readonly SelectedRun[]): { runs: string[]; labels: string[] } | { problem: string } {
  const unique = [...new Map(selected.map((r) => [path.resolve(r.folder), r])).values()];
  if (unique.length < 2) return { problem: 'a trajectory needs two or more runs: select the runs of a training run\'s checkpoints in the Runs view (Ctrl or Shift while clicking), then Show as Trajectory.' };
  const modelName = (r: SelectedRun) => (r.model ? path.basename(r.model) : r.name);
  const names = unique.map(modelName);
  const labelOf = (r: SelectedRun) => (names.filter((n) => n === modelName(r)).length > 1 ? r.name : modelName(r));
  const ordered = [...unique].sort((a, b) => compareCheckpointNames(modelName(a), modelName(b)) || compareCheckpointNames(a.name, b.name));
  const labels = ordered.map(labelOf);
  // Two runs of one model under one name: their folders tell them apart.
  const told = labels.map((l, i) => (labels.indexOf(l) !== labels.lastIndexOf(l) ? path.basename(ordered[i].folder) : l));
  return { runs: ordered.map((r) => r.folder), labels: told };
}
