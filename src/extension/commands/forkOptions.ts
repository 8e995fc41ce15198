/**
 * Find Where the Answer Forks (editor context menu on a dataset line): the question's audit with the
 * fork probe on. Pure: the request's options and what to say when the record has no forks (the fork
 * probe runs on questions the deployment does not realize).
 */
import { DEFAULT_PROBES } from '../../service';
import type { QuestionRecord } from '../../contract';

/** Generations per question when neither the caller nor the settings name a fork budget: 2 positions per arm, 2 alternatives each. */
export const DEFAULT_FORK_BUDGET = 8;

export interface ForkBase {
  probes?: string[];
  forkProbe?: number;
}

/** The audit's options with the fork probe on; the probes kept (the defaults when none) so the pane shows reach beside the forks. */
export function forkOptions<T extends ForkBase>(base: T): T & { probes: string[]; forkProbe: number } {
  const probes = base.probes && base.probes.length > 0 ? base.probes : [...DEFAULT_PROBES];
  return { ...base, probes, forkProbe: base.forkProbe ?? DEFAULT_FORK_BUDGET };
}

export interface ForkOutcome extends Pick<QuestionRecord, 'id' | 'fork' | 'skipped'> {
  realized?: { correct: boolean };
}

/** Why a finished question has no forks, in the user's words; undefined when it has them. */
export function noForkReason(record: ForkOutcome): string | undefined {
  if (record.fork) return record.fork.forks.length === 0 ? `The deployed output of question ${record.id} has no position to fork at (too short, or no alternative token with text).` : undefined;
  if (record.skipped) return `Question ${record.id} was not audited: ${record.skipped.message}`;
  if (record.realized?.correct) return `The deployed model answers question ${record.id} correctly: there is no lost answer to fork toward. Its token record (entropy per token) is in the panel.`;
  return `Question ${record.id} has no fork results.`;
}
