/**
 * Teacher-forced scoring of a continuation: log p(c_j | prompt, c_<j) for each of its tokens, from
 * the last-position logits of prompt + c_<j (one sequence per j, all in one batched forward pass),
 * normalized as generation normalizes its log-probabilities (logSumExp.ts), so a score and a
 * generated token's log-probability are the same quantity.
 */
import type { ContinuationScore, Route, ScoreRequest } from '../types';

export interface ForwardPass {
  numBlocks: number;
  forwardBatch(items: readonly { ids: readonly number[]; route?: Route }[]): Promise<Float32Array[]>;
  /** log Σ exp of each row of `logits` ([rows, vocab]). */
  logSumExp(logits: Float32Array, vocab: number): Promise<Float64Array>;
}

export async function scoreContinuations(model: ForwardPass, requests: readonly ScoreRequest[]): Promise<ContinuationScore[]> {
  const items: { ids: number[]; route?: Route }[] = [];
  for (const r of requests) {
    for (let j = 0; j < r.continuationIds.length; j++) items.push({ ids: [...r.promptIds, ...r.continuationIds.slice(0, j)], ...(r.route ? { route: r.route } : {}) });
  }
  if (items.length === 0) return requests.map(() => ({ logprobs: [], blockApplications: 0 }));
  const rows = await model.forwardBatch(items);
  const V = rows[0].length;
  const logits = new Float32Array(rows.length * V);
  rows.forEach((row, k) => logits.set(row, k * V));
  const lse = await model.logSumExp(logits, V);
  let k = 0;
  return requests.map((r) => {
    const logprobs: number[] = [];
    let processed = 0;
    for (let j = 0; j < r.continuationIds.length; j++, k++) {
      logprobs.push(rows[k][r.continuationIds[j]] - lse[k]);
      processed += items[k].ids.length;
    }
    return { logprobs, blockApplications: processed * (r.route ? r.route.length : model.numBlocks) };
  });
}
