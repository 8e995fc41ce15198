/**
 * The GSM8K chain-of-thought and Minerva MATH exemplars as lm-evaluation-harness ships them,
 * read from the JSON data beside this file (PUBLISHED-PROVENANCE.md says where each string comes
 * from, at which commit, under the MIT licence the files carry).
 */
import { InputError } from '../../common';
import type { FewShotExample } from '../../contract';
import gsm8kCot from './gsm8k-cot-8shot.json';
import minerva from './math-minerva-4shot.json';

/** A published exemplar set: its source and licence, and its examples as the harness has them. */
export interface PublishedSet {
  preset: string;
  source: { repository: string; path: string; commit: string; blob: string };
  licence: string;
  examples: Record<string, string>[];
}

export const GSM8K_COT_SET: PublishedSet = gsm8kCot;
export const MINERVA_MATH_SET: PublishedSet = minerva;

/**
 * The set's examples as a raw prompt shows them: `question` as the user turn, the harness's target
 * delimiter (one space) and `answer` as the answer, each with its provenance.
 */
export function publishedExamples(set: PublishedSet, question: string, answer: string): FewShotExample[] {
  const repo = set.source.repository.replace(/^https:\/\//, '');
  return set.examples.map((ex, i) => {
    const user = ex[question];
    const worked = ex[answer];
    if (typeof user !== 'string' || typeof worked !== 'string') throw new InputError(`${set.preset} exemplar ${i + 1}: expected string fields "${question}" and "${answer}"`);
    return { user, assistant: ` ${worked}`, source: `${repo}@${set.source.commit.slice(0, 12)}:${set.source.path} #${i + 1} (EleutherAI; MIT)` };
  });
}
