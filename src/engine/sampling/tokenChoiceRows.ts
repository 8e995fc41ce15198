/**
 * One decode step's token choices for a block of rows, as both TokenChoicePool's threads run them:
 * each row's uniform draw is taken from its sequence's PRNG beforehand (on the main thread, one per
 * sampled token, as chooseToken would take it), so the choice is a pure function of the row.
 */
import { type UniformSource, chooseToken } from './sampling';
import type { Decoding } from '../types';

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

/**
 * Rough cost of choosing a row, in argmaxes of a row (measured at a 152k vocabulary: an argmax
 * 0.13–0.22 ms, a draw at top-p 1 1.7–2.3 ms, at top-p < 1 2–20 ms).
 */
function rowCost(row: ChoiceRow): number {
  if (row.u === null) return 1;
  return row.decoding.topP < 1 ? 40 : 13;
}

/**
 * How many leading rows the worker thread takes so both threads finish together. This thread
 * also runs the step's log-sum-exp (logSumExp.ts), about one argmax per row.
 */
export function workerShare(rows: readonly ChoiceRow[]): number {
  let total = rows.length;
  for (const row of rows) total += rowCost(row);
  let best = 0;
  let bestLonger = total;
  let theirs = 0;
  for (let k = 1; k <= rows.length; k++) {
    theirs += rowCost(rows[k - 1]);
    const longer = Math.max(theirs, total - theirs);
    if (longer < bestLonger) [best, bestLonger] = [k, longer];
  }
  return best;
}
