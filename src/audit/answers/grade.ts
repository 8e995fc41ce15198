/**
 * Grading one model output against one question (docs/design/grading.md). A Grade records the
 * extracted answer and the rule that produced it, so extraction mistakes are visible, whether the
 * output hit the token limit, and two further views of the same output: `strict` (only the
 * format's explicit answer marker; for GSM8K lm-evaluation-harness's strict-match) and `flexible`
 * (the format's full fallback chain; for GSM8K lm-eval's flexible-extract, the last number).
 */
import { InputError } from '../../common';
import { boxedKey, boxedMatch, extractFinalAnswerPhrase, finalBoxes, lastBoxed } from './boxed';
import { choiceKey, extractChoice, extractChoiceStrict } from './choice';
import { extractGsm8k, extractGsm8kStrict, extractLastNumber, gsm8kKey, gsm8kMatch } from './gsm8k';
import { compilePattern, extractExact, extractRegex, textEqual, textKey } from './text';
import { DEFAULT_GRADING } from './gradingSettings';
import { DEFAULT_THINKING } from './thinkingMarkers';
import { splitThought } from './thoughtSplit';
import type { AnswerFormat, Question } from '../question';
import type { AnswerMatch, AnswerView, GradingSettings, ThoughtState } from '../../contract';

export interface Grade {
  /** The extracted answer as it appears in the output, or null when no rule found one. */
  answer: string | null;
  /** How `answer` compared with the gold (the equality rule); absent when there is no answer. */
  match?: AnswerMatch;
  /**
   * The rule that matched: gsm8k-strict, gsm8k-boxed, gsm8k-answer-phrase, gsm8k-flexible, boxed,
   * boxed-several, boxed-final-answer, choice-answer-line, choice-option, choice-lone-letter,
   * choice-leading-letter, choice-text, exact-answer-line, exact, regex — or none.
   */
  rule: string;
  /** The verdict: the view the run grades by, after the truncation rule. */
  correct: boolean;
  /** The output stopped at the token limit (it may have been cut before its answer). */
  truncated: boolean;
  /** Only the explicit answer marker (`#### N`, `\boxed{…}`, `Answer: X`, the answer line, the pattern). */
  strict: AnswerView;
  /** The whole extraction chain; for GSM8K the last number in the output. */
  flexible: AnswerView;
  /** The output's thought: `finished` (read after it), `unfinished` (cut while thinking: nothing read); absent without thinking markers. */
  thought?: ThoughtState;
  /** Where the part read as the answer starts in the output (0: the whole output was read). */
  readFrom: number;
}

export interface GradeOptions {
  truncated?: boolean;
  /** Prediction pattern for the regex format; defaults to the question's own pattern. */
  pattern?: string;
  /** Defaults to DEFAULT_GRADING. */
  grading?: GradingSettings;
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

function regexFor(q: Question, options: GradeOptions): RegExp {
  const source = options.pattern ?? q.pattern;
  if (source === undefined) throw new InputError(`question ${q.id}: the regex answer format needs a prediction pattern (--pattern)`);
  return patternFor(source);
}

function extract(output: string, q: Question, options: GradeOptions): { answer: string; rule: string } | null {
  switch (q.format) {
    case 'gsm8k':
      return extractGsm8k(output);
    case 'boxed': {
      const several = finalBoxes(output);
      if (several) return { answer: several.join(', '), rule: 'boxed-several' };
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
      const answer = extractRegex(output, regexFor(q, options));
      return answer === null ? null : { answer, rule: 'regex' };
    }
  }
}

/** The strict view's answer: only the format's explicit marker. */
function extractStrict(output: string, q: Question, options: GradeOptions): string | null {
  switch (q.format) {
    case 'gsm8k':
      return extractGsm8kStrict(output);
    case 'boxed': {
      const several = finalBoxes(output);
      if (several) return several.join(', ');
      const boxed = lastBoxed(output);
      return boxed === null || boxed.trim() === '' ? null : boxed.trim();
    }
    case 'choice':
      return extractChoiceStrict(output, q.choices ?? []);
    case 'exact': {
      const found = extractExact(output);
      return found?.rule === 'exact-answer-line' ? found.answer : null;
    }
    case 'regex':
      return extractRegex(output, regexFor(q, options));
  }
}

/** The rule name of each format's strict view. */
const STRICT_RULE: Record<AnswerFormat, string> = { gsm8k: 'gsm8k-strict', boxed: 'boxed', choice: 'choice-answer-line', exact: 'exact-answer-line', regex: 'regex' };

function view(answer: string | null, q: Question): AnswerView {
  return { answer, correct: answer !== null && answersEqual(answer, q.gold, q.format) };
}

function matchOf(m: { rule: string; note?: string }): AnswerMatch {
  return m.note === undefined ? { rule: m.rule } : { rule: m.rule, note: m.note };
}

const NO_ANSWER: AnswerView = { answer: null, correct: false };

export function grade(whole: string, q: Question, options: GradeOptions = {}): Grade {
  const truncated = options.truncated ?? false;
  const grading = options.grading ?? DEFAULT_GRADING;
  // A thought is read apart: only what follows it is the answer, and an unfinished one has none.
  const split = splitThought(whole, grading.thinking ?? DEFAULT_THINKING);
  const thought = split.thought === null ? {} : { thought: split.thought };
  if (split.thought === 'unfinished') return { answer: null, rule: 'none', correct: false, truncated, strict: NO_ANSWER, flexible: NO_ANSWER, ...thought, readFrom: split.answerFrom };
  const output = whole.slice(split.answerFrom);
  const found = extract(output, q, options);
  const strict = view(extractStrict(output, q, options), q);
  const flexible = view(q.format === 'gsm8k' ? extractLastNumber(output) : (found?.answer ?? null), q);
  const stated = view(found?.answer ?? null, q);
  let chosen = { ...stated, rule: found?.rule ?? 'none' };
  if (grading.correctBy === 'strict') chosen = { ...strict, rule: strict.answer === null ? 'none' : STRICT_RULE[q.format] };
  else if (grading.correctBy === 'flexible' && q.format === 'gsm8k') chosen = { ...flexible, rule: flexible.answer === null ? 'none' : 'gsm8k-flexible' };
  // A GSM8K answer in \boxed{N} is a marker too, though lm-eval's strict-match does not read it.
  const marker = strict.answer !== null || found?.rule === 'gsm8k-boxed';
  const correct = chosen.correct && (!truncated || grading.truncated === 'lenient' || marker);
  const match = chosen.answer === null ? undefined : matchAnswers(chosen.answer, q.gold, q.format);
  return { answer: chosen.answer, ...(match ? { match: matchOf(match) } : {}), rule: chosen.rule, correct, truncated, strict, flexible, ...thought, readFrom: split.answerFrom };
}

/**
 * Whether two answers are the same answer in this format, and by which equality rule
 * (docs/design/grading.md): recorded as a grade's `match`.
 */
export function matchAnswers(a: string, b: string, format: AnswerFormat): { equal: boolean; rule: string; note?: string } {
  switch (format) {
    case 'gsm8k':
      return gsm8kMatch(a, b);
    case 'boxed':
      return boxedMatch(a, b);
    case 'choice':
      return choiceKey(a) === choiceKey(b) ? { equal: true, rule: 'label' } : { equal: false, rule: 'different' };
    case 'exact':
    case 'regex':
      return textEqual(a, b) ? { equal: true, rule: 'text' } : { equal: false, rule: 'different' };
  }
}

/** Whether two answers are the same answer in this format (used to bucket votes and to grade). */
export function answersEqual(a: string, b: string, format: AnswerFormat): boolean {
  return matchAnswers(a, b, format).equal;
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
