/**
 * What one sequence's KV caches can come to hold, as the engine allocates them (kvCache.ts): one
 * cache per route position (a repeated block keeps a second cache, a skipped block none), each of
 * KV heads × slots × head size, keys and values, in the cache's precision (float32 by default, 2
 * bytes a value under `--kv-cache f16`, kvPrecision.ts) whatever the checkpoint's dtype. The
 * head size is the cache's (padded to a multiple of 8, blockGraph.ts) and the slots are the
 * power-of-two capacity that holds the prompt and the whole token budget: the figure is the most
 * the sequence holds, so admitting sequences while these sum within a budget keeps their caches in it.
 */
import type { ModelConfig } from '../checkpoint/config';
import { cacheHeadSize } from '../graphs/blockGraph';
import { capacityFor } from './kvCache';
import { type KvPrecision, kvBytesPerValue } from './kvPrecision';

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
  /** Bytes per stored value: 4 (f32) or 2 (f16). */
  bytesPerValue: number;
}

export function sequenceKvNeed(config: Pick<ModelConfig, 'numKvHeads' | 'headDim'>, routeLength: number, tokens: number, precision: KvPrecision = 'f32'): KvNeed {
  const headSize = cacheHeadSize(config.headDim);
  const slots = capacityFor(tokens);
  const bytesPerValue = kvBytesPerValue(precision);
  const bytes = routeLength * config.numKvHeads * headSize * 2 * bytesPerValue * slots;
  return { bytes, routeLength, kvHeads: config.numKvHeads, headSize, tokens, slots, bytesPerValue };
}
