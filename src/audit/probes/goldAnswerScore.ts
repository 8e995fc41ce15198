/**
 * The route search's informed reward (`--search-reward gold-logprob`, docs/design/probes.md "Search
 * reward"): with a 0/1 reward every route before the first correct one scores 0, so the search
 * chooses by visit counts and chance alone until it hits. The dense part is the route's own
 * teacher-forced log-probability of the gold answer at the answer slot of its output
 * (answerSlot.ts): one batched forward pass, no generation. reward = 1 when correct, else
 * ½·exp(mean log-probability of the gold's tokens), so any correct route outranks every wrong one.
 */
import type { Route, TextGenerator } from '../../engine';
import type { Question } from '../dataset';
import { answerSlot } from '../answers';

export interface GoldAnswerScore {
  /** Mean over the gold's tokens of log p(token | prompt, output up to the slot, earlier gold tokens). */
  meanLogprob: number;
  /** Gold tokens scored. */
  tokens: number;
  /** The output wrote no answer marker; the format's was appended before the gold. */
  appended: boolean;
  blockApplications: number;
}

/** The weight of the dense part: below 1, so a correct route always outranks a wrong one. */
export const DENSE_WEIGHT = 0.5;

export function searchReward(correct: boolean, score: GoldAnswerScore | null): number {
  return rewardOfAttempt(correct, score?.meanLogprob);
}

/** The same reward from a recorded attempt: its grade and its `goldLogprob` (absent: none scored). */
export function rewardOfAttempt(correct: boolean, goldLogprob: number | undefined): number {
  if (correct) return 1;
  return goldLogprob === undefined ? 0 : DENSE_WEIGHT * Math.exp(goldLogprob);
}

/** Token ids of `text` without the special tokens the tokenizer adds to every encoding (a bos). */
function textIds(model: TextGenerator, text: string, specials: readonly number[]): number[] {
  const ids = model.encodeRaw(text);
  return specials.every((t, i) => ids[i] === t) ? ids.slice(specials.length) : ids;
}

/**
 * The gold's score after this output under `route`; null when the format has no answer slot
 * (regex), the gold tokenizes to nothing, or prompt + output + gold would not fit the context.
 * The output is re-tokenized with the gold appended and the continuation is what follows the
 * longest common prefix of the two encodings, so a token that merges across the boundary is scored
 * whole rather than split in a way the tokenizer never would.
 */
export async function scoreGoldAnswer(model: TextGenerator, promptIds: readonly number[], output: string, q: Question, route: Route): Promise<GoldAnswerScore | null> {
  if (!model.scoreContinuations) return null;
  const slot = answerSlot(output, q.format);
  if (!slot) return null;
  const specials = model.encodeRaw('');
  const before = textIds(model, slot.prefix, specials);
  const after = textIds(model, slot.prefix + q.gold, specials);
  let shared = 0;
  while (shared < before.length && shared < after.length && before[shared] === after[shared]) shared++;
  const continuationIds = after.slice(shared);
  if (continuationIds.length === 0) return null;
  const context = [...promptIds, ...after.slice(0, shared)];
  const limit = model.context?.maxPositions;
  if (limit !== undefined && context.length + continuationIds.length > limit) return null;
  const [scored] = await model.scoreContinuations([{ promptIds: context, continuationIds, route }]);
  const meanLogprob = scored.logprobs.reduce((s, x) => s + x, 0) / scored.logprobs.length;
  return { meanLogprob, tokens: continuationIds.length, appended: slot.appended, blockApplications: scored.blockApplications };
}
