/**
 * The deployment D of docs/design/probes.md: how the model is asked a question (chat template or a raw
 * template, optionally with few-shot examples), how it decodes (greedy unless a temperature is set),
 * its token budget and stop strings. realized(q) = grade(D(q)).
 */
import { InputError, MissingChatTemplateError } from '../../common';
import { FEW_SHOT_PRESET_NAMES } from '../presets';
import type { ChatMessage, Decoding, GenerationRequest, PromptSource, TextGenerator } from '../../engine';
import { questionSubject, userMessage, type Question } from '../question';
import type { Deployment, FewShotExample } from '../../contract';
import { matchesExample } from './exemplarMatch';

export const DEFAULT_DEPLOYMENT: Deployment = {
  prompt: 'chat',
  fewShot: [],
  temperature: 0,
  topP: 1,
  maxNewTokens: 256,
  stop: [],
};

export const QUESTION_SLOT = '{question}';

/** The header and examples a question is asked with: its subject's (a dev split), else the deployment's. */
export function promptExamples(deployment: Deployment, q: Question): { preamble?: string; fewShot: FewShotExample[] } {
  const subject = questionSubject(q);
  const own = subject !== undefined && deployment.bySubject ? deployment.bySubject[subject] : undefined;
  if (own) return own;
  return { ...(deployment.preamble ? { preamble: deployment.preamble } : {}), fewShot: deployment.fewShot };
}

/** The prompt text of a raw deployment (preamble, then few-shot examples, then the question, separated by blank lines). */
export function rawPromptText(deployment: Deployment, q: Question): string {
  const template = deployment.template ?? QUESTION_SLOT;
  if (!template.includes(QUESTION_SLOT)) throw new InputError(`the raw prompt template must contain ${QUESTION_SLOT}`);
  const fill = (text: string) => template.split(QUESTION_SLOT).join(text);
  const { preamble, fewShot } = promptExamples(deployment, q);
  const shots = fewShot.map((ex) => `${fill(ex.user)}${ex.assistant}`);
  return [...(preamble ? [preamble] : []), ...shots, fill(userMessage(q))].join('\n\n');
}

/** Whether a question is itself one of its prompt's few-shot examples (shown with its answer), by normalized-text hash. */
export function isFewShotExample(deployment: Deployment, q: Question): boolean {
  return matchesExample(userMessage(q), promptExamples(deployment, q).fewShot.map((ex) => ex.user));
}

export function chatMessages(deployment: Deployment, q: Question): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (deployment.system) messages.push({ role: 'system', content: deployment.system });
  for (const ex of promptExamples(deployment, q).fewShot) {
    messages.push({ role: 'user', content: ex.user }, { role: 'assistant', content: ex.assistant });
  }
  messages.push({ role: 'user', content: deployment.instruction ? `${userMessage(q)}\n${deployment.instruction}` : userMessage(q) });
  return messages;
}

/** The deployment's prompt for a question, before it is tokenized. */
export function promptSource(deployment: Deployment, q: Question): PromptSource {
  if (deployment.prompt === 'raw') return { raw: rawPromptText(deployment, q) };
  return { chat: chatMessages(deployment, q), ...(deployment.chatTemplateKwargs ? { templateKwargs: deployment.chatTemplateKwargs } : {}), ...(deployment.templateDate ? { templateDate: deployment.templateDate } : {}) };
}

/** Token ids of the deployment's prompt for a question. */
export function promptIds(deployment: Deployment, q: Question, model: TextGenerator): number[] {
  return withChatTemplate(() => {
    const prompt = promptSource(deployment, q);
    return 'raw' in prompt ? model.encodeRaw(prompt.raw) : model.encodeChat(prompt.chat, prompt.templateKwargs, prompt.templateDate);
  });
}

/** The fewest tokens the question's prompt can encode to, from its length alone (0 when unknown). */
export function promptTokensAtLeast(deployment: Deployment, q: Question, model: TextGenerator): number {
  if (!model.tokensAtLeast) return 0;
  const tokensAtLeast = model.tokensAtLeast.bind(model);
  return withChatTemplate(() => tokensAtLeast(promptSource(deployment, q)));
}

/** Runs `fn`, turning a missing chat template into the audit's own advice. */
function withChatTemplate<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof MissingChatTemplateError) throw new InputError(noChatTemplateMessage(err.configFile));
    throw err;
  }
}

/** What to do about a model without a chat template, in the audit's own flags. */
export function noChatTemplateMessage(configFile: string): string {
  return (
    `${configFile}: the model has no chat_template (a base model?), so the default chat prompt cannot be built. ` +
    `Give it a few-shot prompt with --preset NAME (${FEW_SHOT_PRESET_NAMES.join(', ')}), ` +
    'or a raw prompt with --prompt raw [--template FILE with {question}] [--fewshot FILE]'
  );
}

/** A request under this deployment's prompt, budget and stops; decoding and route set by the caller. */
export function deploymentRequest(
  deployment: Deployment,
  ids: readonly number[],
  decoding: Decoding,
  extra: Pick<GenerationRequest, 'route' | 'silencedMlp' | 'perturbation' | 'pooledAfterBlock'> = {},
): GenerationRequest {
  return {
    promptIds: ids,
    maxNewTokens: deployment.maxNewTokens,
    decoding,
    ...(deployment.stop.length > 0 ? { stop: deployment.stop } : {}),
    ...extra,
  };
}

/** Checks the numbers of a deployment; throws InputError naming the bad setting. */
export function checkDeployment(d: Deployment): void {
  if (!Number.isInteger(d.maxNewTokens) || d.maxNewTokens < 1) throw new InputError(`--max-new-tokens must be a positive integer, got ${d.maxNewTokens}`);
  if (!(d.temperature >= 0) || !Number.isFinite(d.temperature)) throw new InputError(`--temperature must be a number ≥ 0, got ${d.temperature}`);
  if (!(d.topP > 0 && d.topP <= 1)) throw new InputError(`--top-p must be in (0, 1], got ${d.topP}`);
  if (d.prompt === 'raw') rawPromptText(d, { id: '', line: 0, schema: 'generic', format: 'exact', text: '', gold: '', raw: {} });
}
