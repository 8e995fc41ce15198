/**
 * Fitting a question's prompt into the model's context before anything is generated (design:
 * "Context length"). A prompt whose tokens plus the deployment's max new tokens exceed the
 * context is either skipped — recorded with the reason and counted apart from n — or, with
 * `--truncate-prompt left`, cut from the left to the last (context − max new tokens) tokens,
 * which is what lm-evaluation-harness does with an over-long context.
 */
import { contextProblem, type ModelContext } from '../../engine/contextLength';
import type { ContextSkip, PromptTruncation } from '../../contract';

export type { ContextSkip, PromptTruncation };
export const PROMPT_TRUNCATIONS: readonly PromptTruncation[] = ['none', 'left'];

export type PromptFit =
  | { ids: number[]; truncated?: { fromTokens: number; toTokens: number } }
  | { skipped: ContextSkip };

export function fitPrompt(ids: readonly number[], maxNewTokens: number, context: ModelContext | undefined, truncation: PromptTruncation): PromptFit {
  if (!context) return { ids: [...ids] };
  const problem = contextProblem(ids.length, maxNewTokens, context);
  if (!problem) return { ids: [...ids] };
  const room = context.maxPositions - maxNewTokens;
  if (truncation === 'left' && room >= 1) {
    return { ids: ids.slice(ids.length - room), truncated: { fromTokens: ids.length, toTokens: room } };
  }
  return { skipped: { reason: 'context', message: problem, promptTokens: ids.length, maxNewTokens, contextLimit: context.maxPositions } };
}
