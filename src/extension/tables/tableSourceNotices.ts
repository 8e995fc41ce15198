/**
 * What Build Tables and Show Training Trajectory say about where their numbers come from when no
 * picker asked, so tables are never built from an unseen choice: tables built from the Runs view's
 * selection name it and offer the other runs; no trajectory yet offers Audit Checkpoint Folders…
 * and Watch Training Run… rather than only the command line.
 */
import * as path from 'node:path';

/** The button that picks the runs and comparisons of the tables. */
export const PICK_SOURCES = 'Pick Runs and Comparisons…';

/** After Build Tables took the Runs view's selection: which folders, and how many others the workspace has. */
export function selectionNotice(used: readonly string[], others: number): { text: string; actions: string[] } {
  const names = used.map((f) => path.basename(f)).join(', ');
  const what = `${used.length} folder${used.length === 1 ? '' : 's'} selected in the Runs view (${names})`;
  if (others === 0) return { text: `Reach Audit: tables built from the ${what}; the workspace has no other runs or comparisons.`, actions: [] };
  return {
    text: `Reach Audit: tables built from the ${what}; ${others} other run${others === 1 ? '' : 's'} and comparison${others === 1 ? '' : 's'} in this workspace are left out — ${PICK_SOURCES} builds from others.`,
    actions: [PICK_SOURCES],
  };
}

/** The button that starts a watch of a training run. */
export const WATCH_TRAINING_RUN = 'Watch Training Run…';
/** The button that opens a terminal with the bundled CLI. */
export const OPEN_TERMINAL = 'Open Terminal';
/** The button that audits checkpoint folders picked in VS Code into a trajectory. */
export const AUDIT_CHECKPOINT_FOLDERS = 'Audit Checkpoint Folders…';

/** Show Training Trajectory with no trajectory.json in the workspace: what writes one. */
export function noTrajectoryNotice(cliHint: string): { text: string; actions: string[] } {
  return {
    text:
      'Reach Audit: no trajectory in this workspace yet (no checkpoint of a training run has been audited). ' +
      `${AUDIT_CHECKPOINT_FOLDERS} audits checkpoint folders you pick (two or more, put in training order) and draws their trajectory; ` +
      `${WATCH_TRAINING_RUN} audits each checkpoint of a training run's folder as it is written and draws the trajectory as they finish; ` +
      `or run reach-audit trajectory --model CKPT --model CKPT … --data FILE ${cliHint}.`,
    actions: [AUDIT_CHECKPOINT_FOLDERS, WATCH_TRAINING_RUN, OPEN_TERMINAL],
  };
}
