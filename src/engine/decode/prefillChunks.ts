/**
 * How a long prompt is split into block calls.
 *
 * One block call's attention holds several [heads, new tokens, past capacity + new tokens] score
 * tensors at once (attentionGraph.ts: the scores, their concatenation, the masked scores, the
 * softmax, its split). A prompt run as one call from an empty cache makes them grow with the
 * square of its length: an 8,160-token prompt of the Qwen2.5-0.5B shape made 3.7 GB tensors and
 * a peak RSS of 18.5 GB for one sequence. So a prompt runs in one call only up to
 * `oneCallTokens`; a longer one runs its first `oneCallTokens` tokens as such a call and the rest
 * in chunks after them, each chunk's new tokens × (cache capacity + new tokens) at most the first
 * call's area, so no call's scores exceed those of a `oneCallTokens`-token prompt whatever the
 * prompt's length (a chunk never shorter than `minChunkTokens`, where the capacity alone would
 * make it tiny).
 *
 * Numerics: a prompt up to `oneCallTokens` runs exactly as before. A longer one sums a later
 * token's attention over the cache and its chunk in two parts instead of one, so its numbers may
 * differ in the last bits from the one-call prefill (the engine version says which: docs/design/engine.md).
 * The split depends only on the prompt's length and its cache's capacity, never on batch-mates.
 */

export interface PrefillChunking {
  /** Prompts of at most this many tokens run in one call. */
  oneCallTokens: number;
  /** The shortest chunk after the first, whatever the capacity. */
  minChunkTokens: number;
}

/** 2,048: longer than the few-shot prompts of the usual benchmarks, so their records do not move. */
export const DEFAULT_PREFILL_CHUNKING: PrefillChunking = { oneCallTokens: 2048, minChunkTokens: 64 };

/**
 * The token counts of the calls a `length`-token prompt runs in, whose cache has `capacity`
 * slots: [length] up to `oneCallTokens`, else `oneCallTokens` then equal chunks (the last shorter).
 */
export function prefillChunks(length: number, capacity: number, chunking: PrefillChunking = DEFAULT_PREFILL_CHUNKING): number[] {
  if (!Number.isInteger(length) || length < 1) throw new Error(`internal: a prompt of ${length} tokens`);
  const first = chunking.oneCallTokens;
  if (length <= first) return [length];
  if (capacity < length) throw new Error(`internal: a ${length}-token prompt in a cache of ${capacity} slots`);
  // The first call's scores: `first` rows over a one-slot placeholder past and `first` new slots.
  const area = first * (first + 1);
  // Largest c with c · (capacity + c) ≤ area.
  let fits = Math.floor((-capacity + Math.sqrt(capacity * capacity + 4 * area)) / 2);
  // The square root is rounded: settle on the exact integer.
  while (fits > 0 && fits * (capacity + fits) > area) fits--;
  while ((fits + 1) * (capacity + fits + 1) <= area) fits++;
  const chunk = Math.max(chunking.minChunkTokens, Math.min(first, fits));
  const out = [first];
  for (let at = first; at < length; at += chunk) out.push(Math.min(chunk, length - at));
  return out;
}
