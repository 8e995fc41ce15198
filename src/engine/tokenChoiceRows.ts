/**
 * One decode step's token choices for a block of rows, as both TokenChoicePool's threads run them:
 * each row's uniform draw is taken from its sequence's PRNG beforehand (on the main thread, one per
 * sampled token, as chooseToken would take it), so the choice is a pure function of the row.
 */
import { type UniformSource, chooseToken } from './sampling';
import type { Decoding } from './types';

export interface ChoiceRow {
  decoding: Pick<Decoding, 'temperature' | 'topP'>;
  /** The sequence's uniform draw for this token; null when greedy (nothing is drawn). */
  u: number | null;
}

export interface ChoiceJob {
  id: number;
  buffer: SharedArrayBuffer;
  vocab: number;
  rows: ChoiceRow[];
}

export type ChoiceReply = { id: number; tokens: number[] } | { id: number; error: string };

/** The tokens of rows i = 0.. of `logits` ([rows, vocab]), each with its decoding and draw. */
export function chooseRows(logits: Float32Array, vocab: number, rows: readonly ChoiceRow[]): number[] {
  return rows.map((row, i) => {
    const draw: UniformSource | null = row.u === null ? null : { nextFloat: () => row.u as number };
    return chooseToken(logits.subarray(i * vocab, (i + 1) * vocab), { ...row.decoding, seed: 0 }, draw);
  });
}
