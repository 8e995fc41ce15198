/**
 * The `exact` and `regex` answer formats (docs/design/grading.md): the gold is a configured field and
 * answers compare as strings, after trimming, collapsing whitespace, dropping a final period and
 * case folding (so "Paris." = "paris").
 */
import { InputError } from '../../common';
import { nestedRepetition } from '../../engine';

export function textKey(answer: string): string {
  return answer.trim().replace(/\s+/g, ' ').replace(/[.!]+$/, '').trim().toLowerCase();
}

export function textEqual(a: string, b: string): boolean {
  return textKey(a) === textKey(b);
}

/**
 * Exact-format prediction: the text after the first "Answer:" when the output has one (the
 * deployment's answer line), else the whole output. Returns the rule that matched.
 */
export function extractExact(output: string): { answer: string; rule: 'exact-answer-line' | 'exact' } | null {
  const line = /(?:^|\n)\s*(?:\*\*)?(?:final\s+)?answer(?:\*\*)?\s*:(?:\*\*)?[ \t]*([^\n]*)/i.exec(output);
  if (line && line[1].trim() !== '') return { answer: line[1].trim(), rule: 'exact-answer-line' };
  const whole = output.trim();
  return whole === '' ? null : { answer: whole, rule: 'exact' };
}

/**
 * Compiles a user's prediction pattern, naming it in the error when it is not a valid RegExp, or
 * when it repeats a group that can split a run of characters many ways (nested repetition, or
 * alternatives that begin alike): such a pattern runs for minutes on one output of a few dozen
 * characters and a running match cannot be interrupted.
 */
export function compilePattern(pattern: string): RegExp {
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern);
  } catch (e) {
    throw new InputError(`invalid --pattern ${JSON.stringify(pattern)}: ${(e as Error).message}; expected a JavaScript regular expression`);
  }
  const slow = nestedRepetition(pattern);
  if (slow !== null) {
    throw new InputError(
      `--pattern ${JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern)}: ${JSON.stringify(slow)} repeats a group that can match the same text in more than one way ` +
        '(a repeated group inside, or alternatives that begin with the same character), which can take exponential time on one output; ' +
        'repeat single characters or classes instead (for example ([0-9,]+) rather than (\\d|\\d,)+ or (a+)+)',
    );
  }
  return compiled;
}

/** Regex-format prediction: the first match of the pattern; its first capture group when it has one. */
export function extractRegex(output: string, pattern: RegExp): string | null {
  const m = pattern.exec(output);
  if (!m) return null;
  const value = m.length > 1 ? m[1] : m[0];
  return value === undefined ? null : value.trim();
}
