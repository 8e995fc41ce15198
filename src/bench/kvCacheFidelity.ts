/**
 * bench --kv-fidelity N: an f16 KV cache against the f32 cache on one model at an N-token context.
 * The same greedy requests (prompts of N − new tokens, deterministic ids) run on the model loaded
 * with each cache; the first round's tokens give the fidelity (greedyAgreement.ts), every round's
 * decode steps the time per step (rounds alternate which precision goes first, so drift falls on
 * both); and the KV planner's figure per sequence at this context, at each precision, with the
 * sequences a budget admits.
 */
import { type Generation, type GenerationRequest, type LoadOptions, type Model, loadModel, sequenceKvNeed } from '../engine';
import { median } from '../common';
import { type GreedyAgreement, greedyAgreement, greedyAgreementText } from '../service';

export interface KvFidelityOptions {
  context: number;
  prompts: number;
  newTokens: number;
  rounds: number;
  /** The budget the admission figure is stated at. */
  budgetBytes: number;
  log: (message: string) => void;
}

export interface KvFidelityFigures {
  context: number;
  prompts: number;
  newTokens: number;
  rounds: number;
  agreement: Omit<GreedyAgreement, 'firstDivergence'> & { firstDivergence: (number | null)[] };
  /** Median decode step (all prompts together), per round, and their medians. */
  stepMs: { f32: number[]; f16: number[] };
  medianStepMs: { f32: number; f16: number };
  /** f16 ÷ f32 per round (same round, back to back), and its median. */
  stepRatio: number[];
  medianStepRatio: number;
  /** One sequence's KV need at this context (identity route) and sequences the budget admits. */
  plan: { budgetBytes: number; f32: { bytes: number; atOnce: number }; f16: { bytes: number; atOnce: number } };
}

function promptOf(n: number, vocab: number, salt: number): number[] {
  return Array.from({ length: n }, (_, i) => (7 + i * 7919 + salt * 104729) % Math.min(vocab - 8, 100000));
}

async function timed(model: Model, requests: readonly GenerationRequest[]): Promise<{ out: Generation[]; stepMs: number }> {
  const steps: number[] = [];
  model.onStep = (s) => { if (!s.prefill) steps.push(s.ms); };
  try {
    const out = await model.generate(requests);
    return { out, stepMs: median(steps) };
  } finally {
    model.onStep = undefined;
  }
}

export async function benchKvFidelity(dir: string, load: LoadOptions, o: KvFidelityOptions): Promise<KvFidelityFigures> {
  const full = await loadModel(dir, { ...load, kvCache: 'f32' });
  const half = await loadModel(dir, { ...load, kvCache: 'f16' });
  try {
    const promptTokens = o.context - o.newTokens;
    const requests: GenerationRequest[] = Array.from({ length: o.prompts }, (_, i) => ({
      promptIds: promptOf(promptTokens, full.vocabSize, i),
      maxNewTokens: o.newTokens,
      decoding: { temperature: 0, topP: 1, seed: 0 },
    }));
    const stepMs = { f32: [] as number[], f16: [] as number[] };
    let agreement: GreedyAgreement | undefined;
    for (let r = 0; r < o.rounds; r++) {
      const order: ['f32' | 'f16', Model][] = r % 2 === 0 ? [['f32', full], ['f16', half]] : [['f16', half], ['f32', full]];
      const got: Partial<Record<'f32' | 'f16', Generation[]>> = {};
      for (const [name, model] of order) {
        const t = await timed(model, requests);
        stepMs[name].push(t.stepMs);
        got[name] = t.out;
      }
      agreement ??= greedyAgreement(got.f32 as Generation[], got.f16 as Generation[]);
      o.log(`round ${r + 1}/${o.rounds}: decode step ${stepMs.f32[r].toFixed(1)} ms f32, ${stepMs.f16[r].toFixed(1)} ms f16 (${(stepMs.f16[r] / stepMs.f32[r]).toFixed(3)}x); ${greedyAgreementText(agreement)}`);
    }
    const need = (p: 'f32' | 'f16') => sequenceKvNeed(full.config, full.numBlocks, o.context, p).bytes;
    const stepRatio = stepMs.f16.map((x, r) => x / stepMs.f32[r]);
    const a = agreement as GreedyAgreement;
    return {
      context: o.context,
      prompts: o.prompts,
      newTokens: o.newTokens,
      rounds: o.rounds,
      agreement: a,
      stepMs,
      medianStepMs: { f32: median(stepMs.f32), f16: median(stepMs.f16) },
      stepRatio,
      medianStepRatio: median(stepRatio),
      plan: {
        budgetBytes: o.budgetBytes,
        f32: { bytes: need('f32'), atOnce: Math.floor(o.budgetBytes / need('f32')) },
        f16: { bytes: need('f16'), atOnce: Math.floor(o.budgetBytes / need('f16')) },
      },
    };
  } finally {
    await full.dispose();
    await half.dispose();
  }
}

export function kvFidelityText(f: KvFidelityFigures): string[] {
  const gib = (b: number): string => `${(b / 2 ** 30).toFixed(3)} GiB`;
  return [
    `KV cache f16 vs f32 at a ${f.context}-token context (${f.context - f.newTokens} prompt + ${f.newTokens} greedy tokens, ${f.prompts} prompts together)`,
    `agreement        ${greedyAgreementText(f.agreement)}`,
    `decode step      ${f.medianStepMs.f32.toFixed(1)} ms f32, ${f.medianStepMs.f16.toFixed(1)} ms f16: ${f.medianStepRatio.toFixed(3)}x (median of ${f.rounds} rounds; per round ${f.stepRatio.map((x) => x.toFixed(3)).join(' ')})`,
    `KV per sequence  ${f.plan.f32.bytes} bytes (${gib(f.plan.f32.bytes)}) f32, ${f.plan.f16.bytes} bytes (${gib(f.plan.f16.bytes)}) f16; a ${gib(f.plan.budgetBytes)} budget admits ${f.plan.f32.atOnce} vs ${f.plan.f16.atOnce} sequences`,
  ];
}
