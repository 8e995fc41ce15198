/**
 * Chat presets for reasoning models (`--preset deepseek-r1`): the evaluation settings their authors
 * published, applied to the model's own chat template (PUBLISHED-PROVENANCE.md). Unlike the
 * few-shot presets these are chat prompts: no examples, the question as the one user message with
 * the published directive after it, and the published decoding unless a flag gives another.
 */
import type { AnswerFormat } from '../dataset';

export interface ReasoningPreset {
  name: 'deepseek-r1';
  /** Benchmarks whose answers the directive's \boxed{} carries (GSM8K's grader reads \boxed{N} too). */
  formats: readonly AnswerFormat[];
  summary: string;
  /** Appended to the question, after a new line, in the user message. */
  instruction: string;
  temperature: number;
  topP: number;
}

export const DEEPSEEK_R1: ReasoningPreset = {
  name: 'deepseek-r1',
  formats: ['boxed', 'gsm8k'],
  summary: 'DeepSeek-R1 and its distills as their authors evaluate them: chat template, no system prompt, "Please reason step by step, and put your final answer within \\boxed{}." after the question; temperature 0.6, top-p 0.95',
  // deepseek-ai/DeepSeek-R1 README.md, "Usage Recommendations" 3, and "4. Evaluation Results".
  instruction: 'Please reason step by step, and put your final answer within \\boxed{}.',
  temperature: 0.6,
  topP: 0.95,
};
