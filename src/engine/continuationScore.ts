/**
 * Teacher-forced scoring of a continuation: log p(c_j | prompt, c_<j) for each of its tokens, from
 * the last-position logits of prompt + c_<j (one sequence per j, all in one batched forward pass).
 * The log-softmax is summed in float64 from the row's maximum, as the definition reads.
 */
import type { ContinuationScore, Route, ScoreRequest } from './types';

export interface ForwardPass {
  numBlocks: number;
  forwardBatch(items: readonly { ids: readonly number[]; route?: Route }[]): Promise<Float32Array[]>;
}

/** log softmax(logits)[token] in float64. */
export function logProbOfToken(logits: Float32Array, token: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  return logits[token] - max - Math.log(sum);
}

export async function scoreContinuations(model: ForwardPass, requests: readonly ScoreRequest[]): Promise<ContinuationScore[]> {
  const items: { ids: number[]; route?: Route }[] = [];
  for (const r of requests) {
    for (let j = 0; j < r.continuationIds.length; j++) items.push({ ids: [...r.promptIds, ...r.continuationIds.slice(0, j)], ...(r.route ? { route: r.route } : {}) });
  }
  const logits = await model.forwardBatch(items);
  let k = 0;
  return requests.map((r) => {
    const logprobs: number[] = [];
    let processed = 0;
    for (let j = 0; j < r.continuationIds.length; j++, k++) {
      logprobs.push(logProbOfToken(logits[k], r.continuationIds[j]));
      processed += items[k].ids.length;
    }
    return { logprobs, blockApplications: processed * (r.route ? r.route.length : model.numBlocks) };
  });
}
