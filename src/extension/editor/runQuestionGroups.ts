/**
 * A run's questions grouped for the Runs tree: by state (realized, reachable not realized, repaired
 * by a silenced block, unreached) and the repair failure set, each question with its dataset line.
 * Pure (no vscode, no file system).
 */
import type { QuestionRecord } from '../../contract';
import { questionLabel, type QuestionStateName } from './questionLabel';

export interface QuestionRef {
  id: string;
  line: number;
  /** The state in words (realized, reachable by routes, …). */
  label: string;
}

export interface QuestionGroups {
  byState: Record<QuestionStateName, QuestionRef[]>;
  /** Present when the run scanned repairs: reachable under the reference probes but not realized. */
  failureSet?: QuestionRef[];
}

export const STATE_TITLES: Record<QuestionStateName, string> = {
  realized: 'Realized',
  reachable: 'Reachable, not realized',
  repaired: 'Repaired by a silenced block',
  unreached: 'Unreached',
};

export function groupQuestions(records: readonly QuestionRecord[]): QuestionGroups {
  const byState: Record<QuestionStateName, QuestionRef[]> = { realized: [], reachable: [], repaired: [], unreached: [] };
  let failureSet: QuestionRef[] | undefined;
  for (const record of records) {
    const state = questionLabel(record);
    const ref = { id: record.id, line: record.line, label: state.label };
    byState[state.name].push(ref);
    if (record.repair) {
      failureSet ??= [];
      if (record.repair.inFailureSet) failureSet.push(ref);
    }
  }
  return { byState, ...(failureSet ? { failureSet } : {}) };
}
