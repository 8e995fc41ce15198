/**
 * What one record says about its question (docs/design/probes.md), derived in one place for the audit's
 * summary, the comparison, the editor, the CSV export and the panel.
 */
import type { QuestionRecord } from './runRecord';

/** realized, else reachable by some probe, else unreached. */
export type QuestionState = 'realized' | 'reachable' | 'unreached';
export const QUESTION_STATES: readonly QuestionState[] = ['realized', 'reachable', 'unreached'];

/** The probes that found the gold answer, in the record's order. */
export function reachableBy(record: QuestionRecord): string[] {
  return Object.entries(record.reachable).filter(([, reached]) => reached === true).map(([probe]) => probe);
}

export function questionState(record: QuestionRecord): QuestionState {
  if (record.realized.correct) return 'realized';
  return Object.values(record.reachable).some((reached) => reached === true) ? 'reachable' : 'unreached';
}

/** Blocks in ascending order whose entry in correctBySilencedBlock equals `value`. */
function blocksWhere(record: QuestionRecord, value: boolean): number[] {
  const blocks: number[] = [];
  for (const [key, correct] of Object.entries(record.repair?.correctBySilencedBlock ?? {})) {
    const block = Number(key);
    if (correct === value && Number.isInteger(block)) blocks.push(block);
  }
  return blocks.sort((a, b) => a - b);
}

/**
 * Blocks whose silenced MLP makes the gold answer come out. Only an unrealized question can be
 * repaired: a realized one's `true` entries mean it survived the silencing, not that it was fixed.
 */
export function repairedBy(record: QuestionRecord): number[] {
  return record.realized.correct ? [] : blocksWhere(record, true);
}

/** Blocks whose silenced MLP breaks a realized question (collateral damage); none for an unrealized one. */
export function damagedBy(record: QuestionRecord): number[] {
  return record.realized.correct ? blocksWhere(record, false) : [];
}
