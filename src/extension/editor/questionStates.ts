/**
 * One question's state in words, from its record (docs/design.md section 1): realized, reachable by which
 * probes, repaired by which silenced block, or unreached. Pure, for CodeLens, hovers and the tree.
 */
import type { AuditRecord } from '../../../webview/src/protocol';

export type QuestionStateName = 'realized' | 'reachable' | 'repaired' | 'unreached';

export interface QuestionState {
  name: QuestionStateName;
  reachableBy: string[];
  repairedBy: number[];
  /** Short text for a CodeLens or a tree row. */
  label: string;
}

function trueKeys(map: Record<string, boolean> | undefined): string[] {
  return Object.entries(map ?? {})
    .filter(([, v]) => v === true)
    .map(([k]) => k);
}

export function questionStateOf(record: AuditRecord): QuestionState {
  const reachableBy = trueKeys(record.reachable);
  const repairedBy = record.repair && record.realized?.correct !== true
    ? trueKeys(record.repair.correctBySilencedBlock).map(Number).filter(Number.isInteger).sort((a, b) => a - b)
    : [];
  if (record.realized?.correct === true) return { name: 'realized', reachableBy, repairedBy, label: 'realized' };
  if (repairedBy.length > 0) {
    const blocks = repairedBy.length > 4 ? `${repairedBy.slice(0, 4).join(', ')} …` : repairedBy.join(', ');
    const reach = reachableBy.length ? `reachable by ${reachableBy.join(', ')}; ` : '';
    return { name: 'repaired', reachableBy, repairedBy, label: `${reach}repaired by block${repairedBy.length > 1 ? 's' : ''} ${blocks}` };
  }
  if (reachableBy.length > 0) return { name: 'reachable', reachableBy, repairedBy, label: `reachable by ${reachableBy.join(', ')}` };
  return { name: 'unreached', reachableBy, repairedBy, label: 'unreached' };
}

/** Per-probe attempt counts for a hover: `routes: 3/16 correct`. */
export function probeTallies(record: AuditRecord): string[] {
  return Object.entries(record.probes ?? {}).map(([probe, result]) => {
    const correct = (result?.correct ?? []).filter((c) => c === true).length;
    const total = result?.correct?.length ?? result?.budget ?? 0;
    return `${probe}: ${correct}/${total} attempts correct`;
  });
}
