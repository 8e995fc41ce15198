/**
 * A Runs view row's context value, which the menus' `when` clauses in package.json read:
 * `reachAudit.run` (finished, or going now) or `reachAudit.unfinishedRun` (Resume continues it),
 * then `.imported` for a run made from a harness log (Add Probes to This Log…), then `.outside` for
 * a folder opened with Open Run Folder… (Remove from Runs View). Pure.
 */
import type { RunEntry } from './runListing';

export function runContextValue(run: Pick<RunEntry, 'finished' | 'imported' | 'outside'>, live: boolean): string {
  return `${run.finished || live ? 'reachAudit.run' : 'reachAudit.unfinishedRun'}${run.imported ? '.imported' : ''}${run.outside ? '.outside' : ''}`;
}
