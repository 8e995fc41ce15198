/**
 * The audit panel's header status while a run is going ("Running · 72 / 300"). The engine's
 * progress events and the records it streams both move it on; it never goes back (events and
 * records arrive in either order) and never counts fewer questions than the panel holds (a
 * resumed run starts at the ones it kept). Pure: no vscode.
 */
import type { RunStatus } from '../../contract';

export interface PanelStatus {
  status: RunStatus;
  done: number;
  total: number;
  message?: string;
}

/**
 * The status once `done` questions (of `total`, when the event gives it) are finished; undefined
 * when nothing changes (no status, a run that is no longer running, or no step forward).
 */
export function advancedStatus(status: PanelStatus | undefined, done: number, total?: number): PanelStatus | undefined {
  if (!status || status.status !== 'running') return undefined;
  const nextTotal = Math.max(total ?? status.total, done);
  const nextDone = Math.max(status.done, done);
  if (nextDone === status.done && nextTotal === status.total) return undefined;
  return { ...status, done: nextDone, total: nextTotal };
}
