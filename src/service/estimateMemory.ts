/**
 * The memory figure the estimate states beside its time (auditEstimate.ts): the weights as the
 * engine holds them, and the KV cache the run's sequences can hold at once. Under a KV budget that
 * is the plan's need × the sequences the budget admits at once; without one (--kv-memory off), the
 * same need × --max-batch.
 */
import { loadedWeightBytes, sequenceKvNeed, type KvPrecision, type ModelConfig, type WeightPrecision } from '../engine/index';
import type { EstimateMemory } from '../audit/runner';
import type { KvMemoryPlan } from '../contract';

/** The run's shape that decides one sequence's largest KV need (kvMemoryPlan.ts). */
export interface KvRunShape {
  routeLength: number;
  promptTokens: number;
  maxNewTokens: number;
  maxBatch: number;
  /** The local engine's KV cache storage (f32 when absent). */
  kvCache?: KvPrecision;
}

export function estimateMemory(config: ModelConfig, weights: WeightPrecision, plan: KvMemoryPlan | undefined, run: KvRunShape): EstimateMemory {
  const kv = plan
    ? { kvPerSequenceBytes: plan.perSequenceBytes, atOnce: plan.atOnce }
    : { kvPerSequenceBytes: sequenceKvNeed(config, run.routeLength, run.promptTokens + run.maxNewTokens, run.kvCache).bytes, atOnce: run.maxBatch };
  return { weightBytes: loadedWeightBytes(config, weights), weights, ...kv };
}
