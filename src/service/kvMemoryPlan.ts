/**
 * The KV budget before the run starts (--kv-memory SIZE, by default a share of the memory available,
 * `off` for none): the most KV cache one sequence of the run can come to hold
 * (the longest route it may run, its longest prompt and the token budget; engine kvMemory.ts), how
 * many such sequences the budget holds at once, and a refusal naming the figures when not even one
 * fits, so that no run stops part way for memory it was never going to have.
 */
import { InputError, memorySizeText } from '../common';
import { sequenceKvNeed, type KvPrecision, type ModelConfig, type TextGenerator } from '../engine/index';
import { fitQuestionPrompt, isRouteProbe, type FittedPrompts } from '../audit/probes';
import type { Question } from '../audit/dataset';
import type { KvMemoryPlan, RunSettings } from '../contract';

/** The longest route the run can submit: the identity, a route probe's or search's bound, a global route. */
export function longestRoute(settings: Pick<RunSettings, 'probes' | 'routeSpace' | 'globalRoutes'>, numBlocks: number): number {
  const probed = settings.probes.some((p) => isRouteProbe(p.name)) ? (settings.routeSpace.maxLength ?? numBlocks) : 0;
  return Math.max(numBlocks, probed, ...settings.globalRoutes.routes.map((r) => r.length));
}

/**
 * The longest prompt the run will prefill: each question's prompt fitted into the context as the run
 * fits it (fitQuestionPrompt), so a question skipped from its length alone is neither tokenized nor
 * counted (a 50 MB question would spend minutes in the tokenizer here), and a prompt cut from the
 * left counts at its cut length. Nothing can need more than the context leaves beside the budget,
 * so the scan stops once a prompt reaches that. `keep`: the fits are kept there for the run, which
 * then does not fit the prompts again (fittedPrompts.ts).
 */
export function longestPrompt(model: TextGenerator, settings: Pick<RunSettings, 'deployment'>, questions: readonly Question[], keep?: FittedPrompts): number {
  const room = model.context ? model.context.maxPositions - settings.deployment.maxNewTokens : Infinity;
  let most = 0;
  for (const q of questions) {
    if (most >= room) break;
    const fit = keep ? keep.fit(q) : fitQuestionPrompt(settings.deployment, q, model);
    if ('ids' in fit) most = Math.max(most, fit.ids.length);
  }
  return Math.max(0, Math.min(most, room));
}

/**
 * The default budget's share of the memory available once the model is loaded. A half, because
 * the two ways to be wrong cost differently: too small only runs fewer sequences at once (slower,
 * the same records), too large lets the system kill the audit; and what the budget leaves on top
 * (gathered buffers, prompt buffers shared by forks, the prefix store, the garbage collector's
 * slack) grows with it, as do the machine's other programs during a long run.
 */
export const DEFAULT_KV_SHARE = 0.5;

/** The run's KV budget: --kv-memory SIZE, or the default share of the memory available. */
export type KvBudget = { bytes: number; from: 'flag' } | { bytes: number; from: 'default'; share: number; availableBytes: number };

/**
 * The budget for --kv-memory as read (bytes, 'off', or absent for the default); null: no budget.
 * `available` is asked only for the default, once the weights are loaded: they are then already out
 * of the figure, so nothing is subtracted for them (subtracting them again would count them twice).
 */
export function kvBudget(given: number | 'off' | undefined, available: () => number): KvBudget | null {
  if (given === 'off') return null;
  if (given !== undefined) return { bytes: given, from: 'flag' };
  const availableBytes = Math.max(1, Math.floor(available()));
  return { bytes: Math.max(1, Math.floor(availableBytes * DEFAULT_KV_SHARE)), from: 'default', share: DEFAULT_KV_SHARE, availableBytes };
}

export function planKvMemory(config: Pick<ModelConfig, 'numKvHeads' | 'headDim'>, budget: KvBudget, run: { routeLength: number; numBlocks: number; promptTokens: number; maxNewTokens: number; maxBatch: number; kvCache?: KvPrecision }): KvMemoryPlan {
  const need = sequenceKvNeed(config, run.routeLength, run.promptTokens + run.maxNewTokens, run.kvCache);
  const plan: KvMemoryPlan = {
    budgetBytes: budget.bytes,
    budgetFrom: budget.from,
    ...(budget.from === 'default' ? { availableBytes: budget.availableBytes, share: budget.share } : {}),
    perSequenceBytes: need.bytes,
    routeLength: need.routeLength,
    kvHeads: need.kvHeads,
    headSize: need.headSize,
    promptTokens: run.promptTokens,
    maxNewTokens: run.maxNewTokens,
    slots: need.slots,
    // Written only for f16, so the default's manifests read as before.
    ...(need.bytesPerValue !== 4 ? { bytesPerValue: need.bytesPerValue } : {}),
    atOnce: Math.min(run.maxBatch, Math.floor(budget.bytes / need.bytes)),
  };
  if (plan.atOnce < 1) {
    const lower = `lower --max-new-tokens${run.routeLength > run.numBlocks ? ' or --max-route-length' : ''}`;
    const needText = `one sequence of this run can need ${memorySizeText(need.bytes)} of KV cache (${needFactors(plan)}), more than the whole budget`;
    throw new InputError(
      budget.from === 'flag'
        ? `--kv-memory ${memorySizeText(budget.bytes)}: ${needText}: raise --kv-memory to at least ${memorySizeText(need.bytes)}, or ${lower}`
        : `the default KV budget, ${budgetText(plan)}: ${needText}: ${lower}, free memory, or set the budget yourself with --kv-memory SIZE (at least ${memorySizeText(need.bytes)}) or --kv-memory off (no budget: --max-batch alone)`,
    );
  }
  return plan;
}

/** "1 MiB", or for the default "10 GiB (half of the 20 GiB available once the model loaded)". */
function budgetText(p: KvMemoryPlan): string {
  if (p.budgetFrom === 'flag' || p.availableBytes === undefined) return memorySizeText(p.budgetBytes);
  const share = p.share === 0.5 ? 'half' : `${Math.round((p.share ?? 0) * 100)}%`;
  return `${memorySizeText(p.budgetBytes)} (${share} of the ${memorySizeText(p.availableBytes)} available once the model loaded)`;
}

/** "28 route positions × 2 KV heads × 128 × 2 (keys, values) × 4 bytes × 4096 slots for 180 prompt + 3000 new tokens". */
function needFactors(p: KvMemoryPlan): string {
  return `${p.routeLength} route positions × ${p.kvHeads} KV heads × ${p.headSize} × 2 (keys, values) × ${p.bytesPerValue ?? 4} bytes${p.bytesPerValue === 2 ? ' (--kv-cache f16)' : ''} × ${p.slots} slots for ${p.promptTokens} prompt + ${p.maxNewTokens} new tokens`;
}

/**
 * The line stated before the run: the need, its factors, and how many sequences the budget runs at
 * once. Undefined when the default budget changes nothing (it holds --max-batch sequences), so that
 * an ordinary run says nothing about memory; a budget given with --kv-memory is always stated.
 */
export function kvMemoryText(p: KvMemoryPlan, maxBatch: number): string | undefined {
  if (p.budgetFrom === 'default' && p.atOnce >= maxBatch) return undefined;
  const which = p.budgetFrom === 'flag' ? `the ${budgetText(p)} budget` : `the default budget, ${budgetText(p)},`;
  return `KV memory: up to ${memorySizeText(p.perSequenceBytes)} per sequence (${needFactors(p)}); ${which} runs ${p.atOnce} at once` +
    `${p.atOnce < maxBatch ? ` instead of ${maxBatch}` : ''}; the model's weights and working buffers come on top` +
    `${p.budgetFrom === 'default' ? ' (--kv-memory SIZE sets another budget, --kv-memory off none)' : ''}`;
}
