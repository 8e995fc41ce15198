/**
 * The fidelity an f16 KV cache run carries with it: before its questions run, the run's first
 * questions are decoded greedily with an f32 cache (the model loaded for this alone and released)
 * and then with the run's own f16 model, and the two compared token by token (greedyAgreement.ts,
 * the figures `reach-audit fidelity --kv-cache f16` reports). The f32 model is released before the
 * run's model is loaded, so no more than one model is held at a time. Greedy and short (at most
 * KV_FIDELITY.maxNewTokens new tokens, at most the run's budget) so the check costs a small part
 * of a run; its prompts are the deployment's, fitted to the model's context as the run fits them.
 */
import { loadModel, type Generation, type GenerationRequest, type LoadOptions, type TextGenerator } from '../engine/index';
import { deploymentRequest, fitQuestionPrompt } from '../audit/probes';
import type { Question } from '../audit/dataset';
import type { Deployment, KvCacheFidelity } from '../contract';
import { InputError } from '../common';
import { greedyAgreement } from './greedyAgreement';
import { KV_FIDELITY } from './auditOptions';

/** --kv-fidelity-questions, checked: 0 (not measured) up to KV_FIDELITY.mostQuestions; absent: the default. */
export function kvFidelityQuestions(given: number | undefined): number {
  if (given === undefined) return KV_FIDELITY.questions;
  if (!Number.isInteger(given) || given < 0 || given > KV_FIDELITY.mostQuestions) {
    throw new InputError(`--kv-fidelity-questions: expected a whole number from 0 (do not measure) to ${KV_FIDELITY.mostQuestions}, got ${given}`);
  }
  return given;
}

/** The f32 cache's greedy generations of the measured questions, and the requests that made them. */
export interface KvCacheReference {
  requests: GenerationRequest[];
  generations: Generation[];
  maxNewTokens: number;
}

/**
 * Loads the model with an f32 cache, decodes the first `count` of `questions` that fit its context
 * greedily, and releases it. Undefined when none fits (nothing to measure).
 */
export async function kvCacheReference(modelDir: string, load: LoadOptions, deployment: Deployment, questions: readonly Question[], count: number, signal?: AbortSignal): Promise<KvCacheReference | undefined> {
  const maxNewTokens = Math.min(deployment.maxNewTokens, KV_FIDELITY.maxNewTokens);
  const short: Deployment = { ...deployment, maxNewTokens };
  const model = await loadModel(modelDir, { ...load, kvCache: 'f32' });
  try {
    const requests = greedyRequests(short, questions, model, count);
    if (requests.length === 0) return undefined;
    return { requests, generations: await model.generate(requests, signal), maxNewTokens };
  } finally {
    await model.dispose();
  }
}

/** The same requests on the run's f16 model, compared with the reference. */
export async function kvCacheFidelity(reference: KvCacheReference, model: TextGenerator, signal?: AbortSignal): Promise<KvCacheFidelity> {
  const a = greedyAgreement(reference.generations, await model.generate(reference.requests, signal));
  return {
    questions: a.sequences,
    maxNewTokens: reference.maxNewTokens,
    identicalSequences: a.identicalSequences,
    referenceTokens: a.referenceTokens,
    agreeingTokens: a.agreeingTokens,
    maxLogprobError: a.maxLogprobError,
    meanLogprobError: a.meanLogprobError,
  };
}

/** The first `count` questions whose prompt fits the context, as greedy deployment requests (the same ids for both caches). */
function greedyRequests(deployment: Deployment, questions: readonly Question[], model: TextGenerator, count: number): GenerationRequest[] {
  const out: GenerationRequest[] = [];
  for (const q of questions) {
    if (out.length === count) break;
    const fit = fitQuestionPrompt(deployment, q, model);
    if ('ids' in fit) out.push(deploymentRequest(deployment, fit.ids, { temperature: 0, topP: 1, seed: 0 }));
  }
  return out;
}
