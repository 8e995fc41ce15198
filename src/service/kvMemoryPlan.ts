/**
 * --kv-memory before the run starts: the most KV cache one sequence of the run can come to hold
 * (the longest route it may run, its longest prompt and the token budget; engine kvMemory.ts), how
 * many such sequences the budget holds at once, and a refusal naming the figures when not even one
 * fits, so that no run stops part way for memory it was never going to have.
 */
import { InputError, memorySizeText } from '../common';
import { sequenceKvNeed, type ModelConfig, type TextGenerator } from '../engine/index';
import { isRouteProbe, promptIds } from '../audit/probes';
import type { Question } from '../audit/dataset';
import type { KvMemoryPlan, RunSettings } from '../contract';

/** The longest route the run can submit: the identity, a route probe's or search's bound, a global route. */
export function longestRoute(settings: Pick<RunSettings, 'probes' | 'routeSpace' | 'globalRoutes'>, numBlocks: number): number {
  const probed = settings.probes.some((p) => isRouteProbe(p.name)) ? (settings.routeSpace.maxLength ?? numBlocks) : 0;
  return Math.max(numBlocks, probed, ...settings.globalRoutes.routes.map((r) => r.length));
}

/** The longest prompt of the questions, no longer than the context leaves beside the budget (a longer one is cut or skipped). */
export function longestPrompt(model: TextGenerator, settings: Pick<RunSettings, 'deployment'>, questions: readonly Question[]): number {
  let most = 0;
  for (const q of questions) most = Math.max(most, promptIds(settings.deployment, q, model).length);
  const room = model.context ? model.context.maxPositions - settings.deployment.maxNewTokens : Infinity;
  return Math.max(0, Math.min(most, room));
}

export function planKvMemory(config: Pick<ModelConfig, 'numKvHeads' | 'headDim'>, budgetBytes: number, run: { routeLength: number; numBlocks: number; promptTokens: number; maxNewTokens: number; maxBatch: number }): KvMemoryPlan {
  const need = sequenceKvNeed(config, run.routeLength, run.promptTokens + run.maxNewTokens);
  const plan: KvMemoryPlan = {
    budgetBytes,
    perSequenceBytes: need.bytes,
    routeLength: need.routeLength,
    kvHeads: need.kvHeads,
    headSize: need.headSize,
    promptTokens: run.promptTokens,
    maxNewTokens: run.maxNewTokens,
    slots: need.slots,
    atOnce: Math.min(run.maxBatch, Math.floor(budgetBytes / need.bytes)),
  };
  if (plan.atOnce < 1) {
    throw new InputError(
      `--kv-memory ${memorySizeText(budgetBytes)}: one sequence of this run can need ${memorySizeText(need.bytes)} of KV cache (${needFactors(plan)}), more than the whole budget: ` +
        `raise --kv-memory to at least ${memorySizeText(need.bytes)}, or lower --max-new-tokens${run.routeLength > run.numBlocks ? ' or --max-route-length' : ''}`,
    );
  }
  return plan;
}

/** "28 route positions × 2 KV heads × 128 × 2 (keys, values) × 4 bytes × 4096 slots for 180 prompt + 3000 new tokens". */
function needFactors(p: KvMemoryPlan): string {
  return `${p.routeLength} route positions × ${p.kvHeads} KV heads × ${p.headSize} × 2 (keys, values) × 4 bytes × ${p.slots} slots for ${p.promptTokens} prompt + ${p.maxNewTokens} new tokens`;
}

/** The line stated before the run: the need, its factors, and how many sequences the budget runs at once. */
export function kvMemoryText(p: KvMemoryPlan, maxBatch: number): string {
  return `KV memory: up to ${memorySizeText(p.perSequenceBytes)} per sequence (${needFactors(p)}); the ${memorySizeText(p.budgetBytes)} budget runs ${p.atOnce} at once` +
    `${p.atOnce < maxBatch ? ` instead of ${maxBatch}` : ''}; the model's weights and working buffers come on top`;
}
