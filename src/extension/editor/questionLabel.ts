/**
 * One question's state in words, from its record, for hovers, the cursor line and the Runs tree. The
 * derivations are the contract's; this adds the editor's fourth state, "repaired", for an
 * unrealized question that a silenced block fixes. Pure.
 */
import { questionState, reachableBy as probesReaching, repairedBy as blocksRepairing, type QuestionRecord } from '../../contract';

export type QuestionStateName = 'realized' | 'reachable' | 'repaired' | 'unreached';

export interface QuestionLabel {
  name: QuestionStateName;
  reachableBy: string[];
  repairedBy: number[];
  /** Short text for the cursor line or a tree row. */
  label: string;
}

export function questionLabel(record: QuestionRecord): QuestionLabel {
  const reachableBy = probesReaching(record);
  const repairedBy = blocksRepairing(record);
  const state = questionState(record);
  if (state === 'realized') return { name: 'realized', reachableBy, repairedBy, label: 'realized' };
  if (repairedBy.length > 0) {
    const blocks = repairedBy.length > 4 ? `${repairedBy.slice(0, 4).join(', ')} …` : repairedBy.join(', ');
    const reach = reachableBy.length ? `reachable by ${reachableBy.join(', ')}; ` : '';
    return { name: 'repaired', reachableBy, repairedBy, label: `${reach}repaired by block${repairedBy.length > 1 ? 's' : ''} ${blocks}` };
  }
  if (state === 'reachable') return { name: 'reachable', reachableBy, repairedBy, label: `reachable by ${reachableBy.join(', ')}` };
  // No probe ran on it (an imported log without repeats): nothing says it is unreachable.
  if (Object.keys(record.probes).length === 0 && Object.keys(record.reachable).length === 0) return { name: 'unreached', reachableBy, repairedBy, label: 'not probed' };
  return { name: 'unreached', reachableBy, repairedBy, label: 'unreached' };
}

/** Per-probe attempt counts for a hover: `routes: 3/16 attempts correct`. */
export function probeTallies(record: QuestionRecord): string[] {
  return Object.entries(record.probes).map(([probe, result]) => `${probe}: ${result.correct.filter(Boolean).length}/${result.correct.length} attempts correct`);
}
