/**
 * Silence MLP Blocks for This Question scans a question only when there is something to see: a
 * failure-set question (a reference probe reaches the answer the deployment misses) for repair, a
 * realized one for damage. Pure: whether the run in view already shows the question out of reach
 * (so the probes need not run again to learn it), and why a finished question was not scanned.
 */
import * as path from 'node:path';
import type { QuestionRecord } from '../../contract';

export type RepairOutcome = Pick<QuestionRecord, 'id' | 'reachable' | 'repair' | 'skipped' | 'probes'> & { realized?: { correct: boolean } };

/** The probes a record ran, as `name:budget`. */
function probesRun(record: Pick<QuestionRecord, 'probes'>): string[] {
  return Object.entries(record.probes ?? {}).map(([name, r]) => `${name}:${r?.budget ?? '?'}`);
}

/**
 * True when `record` (from a run of `recordModel`) is out of reach under every probe of `planned`
 * with at least the planned budget, on the same model: running those probes again would only
 * learn that once more, and the scan would not run.
 */
export function alreadyUnreached(record: RepairOutcome, recordModel: string | undefined, model: string, planned: readonly string[]): boolean {
  if (record.skipped || record.realized?.correct !== false) return false;
  if (!recordModel || path.resolve(recordModel) !== path.resolve(model)) return false;
  if (Object.values(record.reachable ?? {}).some((r) => r === true)) return false;
  if (planned.length === 0) return false;
  return planned.every((spec) => {
    const [name, budget] = spec.split(':');
    const ran = record.probes?.[name];
    return ran !== undefined && (budget === undefined || ran.budget >= Number(budget));
  });
}

/** What the notice says when the run in view already shows the question out of reach. */
export function alreadyUnreachedText(record: RepairOutcome, runDir: string): string {
  return `Question ${String(record.id)} is unreached in ${path.basename(runDir)}: no probe (${probesRun(record).join(', ')}) found its answer, so no silenced block can be shown to repair it. The scan runs on questions a probe reaches and the deployment misses (and on realized ones, for damage).`;
}

/** Why a finished Silence MLP Blocks run did not scan its question; undefined when it did. */
export function noRepairReason(record: RepairOutcome): string | undefined {
  if (record.repair && (record.repair.inFailureSet || record.repair.realized)) return undefined;
  const id = String(record.id);
  if (record.skipped) return `Question ${id} was not audited: ${record.skipped.message}`;
  const reached = Object.entries(record.reachable ?? {}).filter(([, r]) => r === true).map(([p]) => p);
  if (reached.length === 0) {
    return `Question ${id} was not scanned: no probe (${probesRun(record).join(', ')}) reached its answer, so no silenced block can be shown to repair it. A larger budget may reach it.`;
  }
  return `Question ${id} was not scanned: it is reachable (${reached.join(', ')}) but not by the reference probes that define the failure set.`;
}
