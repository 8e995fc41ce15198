/**
 * A run's thinking markers (docs/design.md section 2, thinking), settled once the model is loaded:
 * the flag's pair, else the tokenizer's own thinking tokens, else `<think>`/`</think>`; and whether
 * the deployment's prompt opens the thought itself (a template ending in `<think>`), read from the
 * first question's rendered prompt, since a template renders that ending for every question.
 */
import { runThinking } from '../answers';
import { promptIds } from '../probes';
import type { TextGenerator } from '../../engine';
import type { Question } from '../dataset';
import type { Deployment, ThinkingMarkers } from '../../contract';

/** Undefined when the run reads thoughts the default way, which manifests leave unrecorded (so those of other models stay as they were). */
export function thinkingOfRun(given: { open: string; close: string } | undefined, addedTokens: readonly string[], model: TextGenerator, deployment: Deployment, first: Question | undefined): ThinkingMarkers | undefined {
  const prompt = first ? model.decode(promptIds(deployment, first, model)) : '';
  const thinking = runThinking(given, addedTokens, prompt);
  return thinking.from === 'default' && !thinking.startsInThought ? undefined : thinking;
}
