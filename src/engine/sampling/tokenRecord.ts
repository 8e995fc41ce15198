/**
 * What the model's next-token distribution looked like where a token was chosen: its entropy and
 * its k most likely tokens with their log-probabilities, from the same logits row the token was
 * chosen from (temperature 1: the raw logits' softmax, whatever the decoding). The fork probe reads
 * it to find where the deployed output could have gone another way.
 *
 * Computed in float64 from the float32 logits, in index order, so it depends on the row alone
 * (never on the batch, the thread or the call), and a token costs one more pass over the row only
 * when its request asked for the record.
 */
import { InputError } from '../../common';
import type { TokenStep } from '../types';

/** The most alternatives a token record keeps per token: it is stored per generated token, so it stays small. */
export const MAX_TOKEN_RECORD_K = 8;

export function checkTokenRecordK(k: unknown, what: string): void {
  if (k === undefined) return;
  if (!Number.isInteger(k) || (k as number) < 1 || (k as number) > MAX_TOKEN_RECORD_K) {
    throw new InputError(`${what}: expected a whole number of alternatives from 1 to ${MAX_TOKEN_RECORD_K}, got ${String(k)}`);
  }
}

/**
 * Entropy (nats) of softmax(row) and its k most likely tokens, most likely first (ties: the lower
 * id first, as argmax breaks them), each with log softmax(row)[token].
 */
export function tokenStep(row: ArrayLike<number>, k: number): TokenStep {
  const n = row.length;
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (row[i] > max) max = row[i];
  // Σ e_i and Σ e_i·(x_i − max) with e_i = exp(x_i − max): H = log Σe − Σ e·(x − max) / Σe.
  let sum = 0;
  let weighted = 0;
  for (let i = 0; i < n; i++) {
    const d = row[i] - max;
    const e = Math.exp(d);
    sum += e;
    weighted += e * d;
  }
  const logSum = Math.log(sum);
  const lse = max + logSum;
  // Floating error can leave −1e-17 for a one-hot row; entropy is never below 0.
  const entropy = Math.max(0, logSum - weighted / sum);
  const best: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = row[i];
    if (best.length === k && x <= row[best[k - 1]]) continue;
    let at = best.length;
    // Strictly greater moves ahead: an equal logit keeps the lower id first.
    while (at > 0 && x > row[best[at - 1]]) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return { entropy, top: best.map((t) => [t, row[t] - lse]) };
}
