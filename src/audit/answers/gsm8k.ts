/**
 * The `gsm8k` answer format (docs/design/grading.md). The gold is the number after `####`. A
 * prediction is the answer the output states — its first `#### N`, else its last `\boxed{N}`,
 * else its last "the answer is N" before any made-up next question (a self-correction counts its
 * last) — and only when it states none, the last number in it. A stated answer wins because a
 * trailing number is usually a unit, a check or the start of a made-up next question ("The answer
 * is 18 dollars. She sold 9 eggs.").
 *
 * Besides that verdict, lm-evaluation-harness's two views are kept apart: strict-match (the first
 * `#### N`) and flexible-extract (the last number in the output).
 *
 * Gold and prediction are read as numbers by the same rule (parseRational): an optional sign and
 * `$`, digits with optional thousands commas in groups of three, a decimal part, an exponent
 * (`1e3`), a `/denominator` and a trailing `%`. Anything else — "1,00", "3.4.5" — is kept as
 * written and compared as text, on both sides alike, never silently reread as another number.
 */
import { lastBoxed } from './boxed';
import { ownAnswerEnd } from './nextQuestion';
import { NUMBER_WORDS_SOURCE, numberFromWords } from './numberWords';
import { parseRational, rationalKey, rationalsEqual, SPACED_NUMBER_SOURCE, type Rational } from './rational';

/**
 * One number as written in prose: an optional minus (not a hyphen between words or numbers, so
 * "pages 10-12" gives 12, not -12), an optional `$`, digits with optional commas between digit
 * runs (kept whole so that a misplaced comma cannot split "1,00" into 1 and 00), a decimal part,
 * an exponent, a `/denominator`. A trailing sentence period is not part of it.
 */
const NUMBER_SOURCE = String.raw`(?:(?<![\w)\]])[-\u2212])?(?:\$\s?)?(?:\d+(?:,\d+)*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+(?![\w]))?(?:\/\d+(?:\.\d+)?)?`;

const NUMBERS = new RegExp(NUMBER_SOURCE, 'g');
/**
 * After `####` the whole token counts, so that `#### 1,00` is "1,00", not "1"; a number grouped by
 * spaces ("#### 1 600") is one token.
 */
const STRICT = new RegExp(String.raw`####[ \t]*((?:[-\u2212])?(?:\$\s?)?${SPACED_NUMBER_SOURCE}|[^\s]+)`);
/** A stated number: grouped by spaces ("5 600"), as written in prose, or in words ("seven"). */
const ANSWER_PHRASE = new RegExp(
  String.raw`\bthe\s+(?:final\s+)?answer\s+is\s*:?\s*(?:\*\*|\\\()?\s*((?:[-\u2212])?(?:\$\s?)?${SPACED_NUMBER_SOURCE}|${NUMBER_SOURCE}|\b${NUMBER_WORDS_SOURCE})`,
  'gi',
);

/** How a GSM8K answer was found: the rule names recorded with a grade. */
export type Gsm8kRule = 'gsm8k-strict' | 'gsm8k-boxed' | 'gsm8k-answer-phrase' | 'gsm8k-flexible';

/** The gold answer of a GSM8K `answer` field: the text after the last `####`, or null when absent. */
export function gsm8kGold(answerField: string): string | null {
  const at = answerField.lastIndexOf('####');
  if (at < 0) return null;
  const gold = answerField.slice(at + 4).trim();
  return gold === '' ? null : gold;
}

/** Strips what ends a sentence or wraps a token but is not part of a number: "18.", "**18**", "(18)". */
function trimToken(token: string): string {
  return token.replace(/^[*(_]+/, '').replace(/[*)_.,;:!?]+$/, '');
}

/** Strict extraction (lm-eval strict-match): the token after the first `####`. */
export function extractGsm8kStrict(output: string): string | null {
  const m = STRICT.exec(output);
  if (!m) return null;
  const token = trimToken(m[1]);
  // "#### eighteen" states no number; lm-eval's strict-match does not read it either.
  return /^[-+\u2212]?\$?\.?\d/.test(token) ? token : null;
}

/** Flexible extraction (lm-eval flexible-extract): the last number anywhere in the output. */
export function extractLastNumber(output: string): string | null {
  let last: string | null = null;
  for (const m of output.matchAll(NUMBERS)) last = m[0];
  return last === null ? null : last.trim();
}

/** The number in the last `\boxed{…}` when the box holds just a number. */
function extractBoxedNumber(output: string): string | null {
  const boxed = lastBoxed(output);
  if (boxed === null) return null;
  const inner = boxed.replace(/\\[!,;: ]/g, '').replace(/\\?\$/g, '$').replace(/\\%/g, '%').replace(/\\text\{[^{}]*\}/g, '').trim();
  return parseRational(inner) === null ? null : inner;
}

/**
 * The number after "the answer is" / "the final answer is" (digits, or words that name one): the
 * last such statement, so a self-correction ("The answer is 120. Wait … The answer is 160.")
 * counts its last committed answer, but none inside a made-up next question after the first.
 * Phrases that name no number are passed over ("the answer is a bit tricky … the answer is 12").
 */
function extractAnswerPhrase(output: string): string | null {
  const stated = [...output.matchAll(ANSWER_PHRASE)]
    .map((m) => ({ at: m.index ?? 0, said: m[1].trim() }))
    .filter(({ said }) => /\d/.test(said) || numberFromWords(said) !== null);
  if (stated.length === 0) return null;
  const end = ownAnswerEnd(output, stated[0].at);
  return stated.filter(({ at }) => at < end).at(-1)?.said ?? null;
}

/** A GSM8K answer as a number: digits by parseRational, else number words ("seven"). */
export function gsm8kNumber(answer: string): Rational | null {
  const r = parseRational(answer);
  if (r) return r;
  const n = numberFromWords(answer);
  return n === null ? null : { num: BigInt(n), den: 1n };
}

/** The stated answer when there is one, else the last number; null when the output has no number. */
export function extractGsm8k(output: string): { answer: string; rule: Gsm8kRule } | null {
  const strict = extractGsm8kStrict(output);
  if (strict !== null) return { answer: strict, rule: 'gsm8k-strict' };
  const boxed = extractBoxedNumber(output);
  if (boxed !== null) return { answer: boxed, rule: 'gsm8k-boxed' };
  const phrase = extractAnswerPhrase(output);
  if (phrase !== null) return { answer: phrase, rule: 'gsm8k-answer-phrase' };
  const last = extractLastNumber(output);
  return last === null ? null : { answer: last, rule: 'gsm8k-flexible' };
}

/**
 * Numeric equality when both parse as numbers (number words included), by the rule recorded as
 * the grade's `match`: `rational`, or `number-word` when a side was written in words; otherwise
 * the trimmed strings must be identical (`text`). `different` when none holds.
 */
export function gsm8kMatch(a: string, b: string): { equal: boolean; rule: string } {
  const ra = gsm8kNumber(a);
  const rb = gsm8kNumber(b);
  if (ra && rb) {
    const words = parseRational(a) === null || parseRational(b) === null;
    return rationalsEqual(ra, rb) ? { equal: true, rule: words ? 'number-word' : 'rational' } : { equal: false, rule: 'different' };
  }
  return a.trim() === b.trim() ? { equal: true, rule: 'text' } : { equal: false, rule: 'different' };
}

export function gsm8kEqual(a: string, b: string): boolean {
  return gsm8kMatch(a, b).equal;
}

/** Canonical key for bucketing equal answers: the reduced rational, or the trimmed text. */
export function gsm8kKey(answer: string): string {
  const r = gsm8kNumber(answer);
  return r ? rationalKey(r) : answer.trim();
}
