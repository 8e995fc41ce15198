/**
 * What one sequence's KV caches can come to hold, as the engine allocates them (kvCache.ts): one
 * cache per route position (a repeated block keeps a second cache, a skipped block none), each of
 * KV heads × slots × head size, keys and values, in float32 whatever the checkpoint's dtype. The
 * head size is the cache's (padded to a multiple of 8, blockGraph.ts) and the slots are the
 * power-of-two capacity that holds the prompt and the whole token budget: the figure is the most
 * the sequence holds, so admitting sequences while these sum within a budget keeps their caches in it.
 */
import type { ModelConfig } from '../checkpoint/config';
import { cacheHeadSize } from '../graphs/blockGraph';
import { capacityFor } from './kvCache';

/** The caches are float32. */
export const KV_BYTES_PER_ELEMENT = 4;

/** The factors of one sequence's KV need, so that the figure can be stated with its reasons. */
export interface KvNeed {
  bytes: number;
  /** Route positions: one cache each. */
  routeLength: number;
  kvHeads: number;
  /** The cache's head size (the model's, padded to a multiple of 8). */
  headSize: number;
  /** Prompt + budget tokens, and the slots allocated for them (a power of two, at least 16). */
  tokens: number;
  slots: number;
}

export function sequenceKvNeed(config: Pick<ModelConfig, 'numKvHeads' | 'headDim'>, routeLength: number, tokens: number): KvNeed {
  const headSize = cacheHeadSize(config.headDim);
  const slots = capacityFor(tokens);
  const bytes = routeLength * config.numKvHeads * headSize * 2 * KV_BYTES_PER_ELEMENT * slots;
  return { bytes, routeLength, kvHeads: config.numKvHeads, headSize, tokens, slots };
}
