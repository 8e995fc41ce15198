/**
 * Grading one model output against one question (design.md section 2). A Grade records the
 * extracted answer and the rule that produced it, so extraction mistakes are visible, and whether
 * the output hit the token limit.
 */
import { InputError } from '../../engine/errors';
import { boxedEqual, boxedKey, extractFinalAnswerPhrase, lastBoxed } from './boxed';
import { choiceKey, extractChoice } from './choice';
import { extractGsm8kStrict, extractLastNumber, gsm8kEqual, gsm8kKey } from './gsm8k';
import { compilePattern, extractExact, extractRegex, textEqual, textKey } from './text';
import type { AnswerFormat, Question } from '../dataset/question';

export interface Grade {
  /** The extracted answer as it appears in the output, or null when no rule found one. */
  answer: string | null;
  /**
   * The rule that matched: gsm8k-strict, gsm8k-flexible, boxed, boxed-final-answer,
   * choice-answer-line, choice-lone-letter, choice-leading-letter, choice-text, exact-answer-line,
   * exact, regex — or none.
   */
  rule: string;
  correct: boolean;
  /** The output stopped at the token limit (it may have been cut before its answer). */
  truncated: boolean;
}

export interface GradeOptions {
  truncated?: boolean;
  /** Prediction pattern for the regex format; defaults to the question's own pattern. */
  pattern?: string;
}

// Compiling a pattern once per grade call would dominate grading large runs.
const compiled = new Map<string, RegExp>();
function patternFor(source: string): RegExp {
  let re = compiled.get(source);
  if (!re) {
    re = compilePattern(source);
    compiled.set(source, re);
  }
  return re;
}

function extract(output: string, q: Question, options: GradeOptions): { answer: string; rule: string } | null {
  switch (q.format) {
    case 'gsm8k': {
      const strict = extractGsm8kStrict(output);
      if (strict !== null) return { answer: strict, rule: 'gsm8k-strict' };
      const flexible = extractLastNumber(output);
      return flexible === null ? null : { answer: flexible, rule: 'gsm8k-flexible' };
    }
    case 'boxed': {
      const boxed = lastBoxed(output);
      if (boxed !== null && boxed.trim() !== '') return { answer: boxed.trim(), rule: 'boxed' };
      const phrase = extractFinalAnswerPhrase(output);
      return phrase === null ? null : { answer: phrase, rule: 'boxed-final-answer' };
    }
    case 'choice':
      return extractChoice(output, q.choices ?? []);
    case 'exact':
      return extractExact(output);
    case 'regex': {
      const source = options.pattern ?? q.pattern;
      if (source === undefined) throw new InputError(`question ${q.id}: the regex answer format needs a prediction pattern (--pattern)`);
      const answer = extractRegex(output, patternFor(source));
      return answer === null ? null : { answer, rule: 'regex' };
    }
  }
}

export function grade(output: string, q: Question, options: GradeOptions = {}): Grade {
  const truncated = options.truncated ?? false;
  const found = extract(output, q, options);
  if (!found) return { answer: null, rule: 'none', correct: false, truncated };
  return { answer: found.answer, rule: found.rule, correct: answersEqual(found.answer, q.gold, q.format), truncated };
}

/** Whether two answers are the same answer in this format (used to bucket votes and to grade). */
export function answersEqual(a: string, b: string, format: AnswerFormat): boolean {
  switch (format) {
    case 'gsm8k':
      return gsm8kEqual(a, b);
    case 'boxed':
      return boxedEqual(a, b);
    case 'choice':
      return choiceKey(a) === choiceKey(b);
    case 'exact':
    case 'regex':
      return textEqual(a, b);
  }
}

/**
 * A canonical key such that equal answers get equal keys (majority vote buckets by it):
 * gsm8k "1,000" → "1000", "0.5" → "1/2"; boxed normalized LaTeX or reduced rational; choice the
 * upper-case label; exact/regex the folded text.
 */
export function normalizeAnswer(answer: string, format: AnswerFormat): string {
  switch (format) {
    case 'gsm8k':
      return gsm8kKey(answer);
    case 'boxed':
      return boxedKey(answer);
    case 'choice':
      return choiceKey(answer);
    case 'exact':
    case 'regex':
      return textKey(answer);
  }
}
