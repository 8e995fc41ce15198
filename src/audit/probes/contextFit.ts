/**
 * Fitting a question's prompt into the model's context before anything is generated (design:
 * "Context length"). A prompt whose tokens plus the deployment's max new tokens exceed the
 * context is either skipped — recorded with the reason and counted apart from n — or, with
 * `--truncate-prompt left`, cut from the left to the last (context − max new tokens) tokens,
 * which is what lm-evaluation-harness does with an over-long context.
 *
 * A prompt is measured before it is tokenized as well: when its length alone shows it cannot fit
 * (the tokenizer's bound, see the engine's tokenCountBound.ts), it is skipped without tokenizing;
 * a 50 MB question used to spend minutes and gigabytes in the tokenizer first.
 */
import { contextProblem, type ModelContext, type TextGenerator } from '../../engine';
import type { ContextSkip, PromptTruncation, Deployment } from '../../contract';
import type { Question } from '../dataset';
import { promptIds, promptTokensAtLeast } from './deployment';

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

/**
 * The question's prompt under the deployment, fitted into the model's context: skipped from its
 * length alone when it cannot fit (without tokenizing it), else tokenized and fitted as above.
 * Cutting from the left needs the whole prompt's tokens, so that case is always tokenized.
 */
export function fitQuestionPrompt(deployment: Deployment, q: Question, model: TextGenerator): PromptFit {
  const truncation = deployment.truncatePrompt ?? 'none';
  const context = model.context;
  if (context && truncation === 'none') {
    const atLeast = promptTokensAtLeast(deployment, q, model);
    const problem = contextProblem(atLeast, deployment.maxNewTokens, context);
    if (problem) {
      return {
        skipped: {
          reason: 'context',
          message: `at least ${problem} (counted from the prompt's length; it was not tokenized)`,
          promptTokens: atLeast,
          maxNewTokens: deployment.maxNewTokens,
          contextLimit: context.maxPositions,
        },
      };
    }
  }
  return fitPrompt(promptIds(deployment, q, model), deployment.maxNewTokens, context, truncation);
}
