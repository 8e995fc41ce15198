/**
 * MMLU's published few-shot prompt: for each subject, the first five questions of that subject's
 * dev split, under the header that names the subject (as lm-evaluation-harness asks MMLU: `dev`
 * split, first_n). The dev split is the user's file (`--fewshot-file`); this project carries none.
 */
import * as path from 'node:path';
import { InputError } from '../../common';
import { loadDataset, userMessage } from '../dataset';
import { questionSubject } from '../question';
import type { SubjectPrompt } from '../../contract';

/** Examples per subject in the published prompt. */
export const MMLU_SHOTS = 5;

/** MMLU's header for a subject (`high_school_mathematics` → "… about high school mathematics."). */
export function mmluSubjectHeader(subject: string): string {
  return `The following are multiple choice questions (with answers) about ${subject.replace(/_/g, ' ')}.`;
}

/** Each subject's header and its first five dev questions with their answer letters, in file order. */
export function readMmluDevSplit(file: string): Record<string, SubjectPrompt> {
  const dev = loadDataset(file, { format: 'choice' });
  if (dev.issues.length > 0) {
    const first = dev.issues[0];
    throw new InputError(`--fewshot-file ${file}:${first.line}: ${first.message}${dev.issues.length > 1 ? ` (and ${dev.issues.length - 1} more lines)` : ''}`);
  }
  if (dev.questions.length === 0) throw new InputError(`--fewshot-file ${file}: no questions; expected MMLU dev-split lines {question, choices, answer, subject}`);
  const out: Record<string, SubjectPrompt> = {};
  for (const q of dev.questions) {
    const subject = questionSubject(q);
    if (subject === undefined) throw new InputError(`--fewshot-file ${file}:${q.line}: no "subject" field; each dev example must name its subject so it is shown only with that subject's questions`);
    const prompt = (out[subject] ??= { preamble: mmluSubjectHeader(subject), fewShot: [] });
    if (prompt.fewShot.length < MMLU_SHOTS) prompt.fewShot.push({ user: userMessage(q), assistant: ` ${q.gold}`, source: `${path.basename(file)}:${q.line} (dev split, subject ${subject})` });
  }
  return out;
}
