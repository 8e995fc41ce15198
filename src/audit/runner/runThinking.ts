/**
 * A run's thinking markers (docs/design/grading.md, thinking), settled once the model is loaded:
 * the flag's pair, else the tokenizer's own thinking tokens, else `<think>`/`</think>`; and whether
 * the deployment's prompt opens the thought itself (a template ending in `<think>`), read from the
 * first rendered prompt the run will prefill, since a template renders that ending for every
 * question.
 */
import { runThinking } from '../answers';
import { fitQuestionPrompt } from '../probes';
import type { TextGenerator } from '../../engine';
import type { Question } from '../dataset';
import type { Deployment, ThinkingMarkers } from '../../contract';

/**
 * The first prompt the run will prefill, fitted into the context as the run fits it: a question
 * whose length alone shows it cannot fit is passed over without being tokenized (a 100 MB first
 * question was tokenized and decoded here whole, past 3 GB, before the run skipped it), and a
 * prompt cut from the left is read at its cut length. Empty when no question fits.
 */
function firstPrefilledPrompt(model: TextGenerator, deployment: Deployment, questions: readonly Question[]): string {
  for (const q of questions) {
    const fit = fitQuestionPrompt(deployment, q, model);
    if ('ids' in fit) return model.decode(fit.ids);
  }
  return '';
}

/** Undefined when the run reads thoughts the default way, which manifests leave unrecorded (so those of other models stay as they were). */
export function thinkingOfRun(given: { open: string; close: string } | undefined, addedTokens: readonly string[], model: TextGenerator, deployment: Deployment, questions: readonly Question[]): ThinkingMarkers | undefined {
  const thinking = runThinking(given, addedTokens, firstPrefilledPrompt(model, deployment, questions));
  return thinking.from === 'default' && !thinking.startsInThought ? undefined : thinking;
}
