/**
 * The model's context, and the length check every generation passes before anything is
 * allocated for it: prompt tokens + max new tokens must fit in max_position_embeddings. Sizes of
 * the KV caches and attention buffers follow from these two numbers, so a request that fits
 * cannot make the engine allocate beyond what the model was built for.
 */
import { InputError } from '../../common';
import type { GenerationRequest, ModelContext } from '../types';

/** Why a sequence of this size does not fit, or undefined when it does. */
export function contextProblem(promptTokens: number, maxNewTokens: number, context: ModelContext): string | undefined {
  if (promptTokens + maxNewTokens <= context.maxPositions) return undefined;
  return `${promptTokens} prompt tokens + ${maxNewTokens} new tokens = ${promptTokens + maxNewTokens} positions exceed the model's context of ${context.maxPositions} (max_position_embeddings)`;
}

/** Refuses, before any allocation, a batch with a request that cannot fit the context. */
export function checkContextLength(requests: readonly Pick<GenerationRequest, 'promptIds' | 'maxNewTokens'>[], context: ModelContext): void {
  requests.forEach((r, i) => {
    const problem = contextProblem(r.promptIds.length, r.maxNewTokens, context);
    if (problem) throw new InputError(`request ${i}: ${problem}; shorten the prompt (--truncate-prompt left) or lower --max-new-tokens`);
  });
}
