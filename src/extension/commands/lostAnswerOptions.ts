/**
 * Find Where This Answer Is Lost (editor context menu on a dataset line): the question's audit
 * with the depth probe on. Pure: the request's options and what to say when the record has no
 * depth results (the depth probe runs on failure-set questions only: reachable, not realized).
 */
import { DEFAULT_PROBES } from '../../service';
import type { QuestionRecord } from '../../contract';

/** Continuations per depth mark when neither the caller nor the settings name one: 5 marks × 4 = 20 generations. */
export const DEFAULT_DEPTH_BUDGET = 4;

export interface LostAnswerBase {
  probes?: string[];
  depthProbe?: number;
}

/** The audit's options with the depth probe on; the probes that define the failure set kept (the defaults when none). */
export function lostAnswerOptions<T extends LostAnswerBase>(base: T): T & { probes: string[]; depthProbe: number } {
  const probes = base.probes && base.probes.length > 0 ? base.probes : [...DEFAULT_PROBES];
  return { ...base, probes, depthProbe: base.depthProbe ?? DEFAULT_DEPTH_BUDGET };
}

/** Why a finished question has no depth results, in the user's words; undefined when it has them. */
export interface DepthOutcome extends Pick<QuestionRecord, 'id' | 'reachable' | 'depth' | 'skipped'> {
  realized?: { correct: boolean };
}

export function noDepthReason(record: DepthOutcome): string | undefined {
  if (record.depth) return undefined;
  if (record.skipped) return `Question ${record.id} was not audited: ${record.skipped.message}`;
  if (record.realized?.correct) return `The deployed model answers question ${record.id} correctly: no answer is lost.`;
  const reached = Object.entries(record.reachable ?? {}).filter(([, r]) => r).map(([p]) => p);
  if (reached.length === 0) return `No probe reached the answer to question ${record.id} within its budget, so there is no reachable answer to lose. A larger budget may reach it.`;
  return `Question ${record.id} is reachable (${reached.join(', ')}) but has no depth results: it is outside the failure set the reference probes define.`;
}
