/**
 * The `gsm8k` answer format (design.md section 2): gold is the number after `####`; a prediction is
 * the first `#### N` (strict) or else the last number in the output (flexible); numbers compare as
 * exact rationals with `$` and thousands commas stripped.
 */
import { parseRational, rationalKey, rationalsEqual } from './rational';

/**
 * One number as written in prose: an optional minus (not a hyphen between words or numbers, so
 * "pages 10-12" gives 12, not -12), an optional `$`, digits with optional thousands commas, an
 * optional decimal part, an optional `/denominator`. A trailing sentence period is not part of it.
 */
const NUMBER_SOURCE = String.raw`(?:(?<![\w)\]])[-\u2212])?(?:\$\s?)?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:\/\d+(?:\.\d+)?)?`;

const STRICT = new RegExp(String.raw`####\s*(${NUMBER_SOURCE})`);
const NUMBERS = new RegExp(NUMBER_SOURCE, 'g');

/** The gold answer of a GSM8K `answer` field: the text after the last `####`, or null when absent. */
export function gsm8kGold(answerField: string): string | null {
  const at = answerField.lastIndexOf('####');
  if (at < 0) return null;
  const gold = answerField.slice(at + 4).trim();
  return gold === '' ? null : gold;
}

/** Strict extraction: the number of the first `#### N` in the output. */
export function extractGsm8kStrict(output: string): string | null {
  const m = STRICT.exec(output);
  return m ? m[1].trim() : null;
}

/** Flexible extraction: the last number anywhere in the output. */
export function extractLastNumber(output: string): string | null {
  let last: string | null = null;
  for (const m of output.matchAll(NUMBERS)) last = m[0];
  return last === null ? null : last.trim();
}

/** Numeric equality when both parse as numbers; otherwise the trimmed strings must be identical. */
export function gsm8kEqual(a: string, b: string): boolean {
  const ra = parseRational(a);
  const rb = parseRational(b);
  if (ra && rb) return rationalsEqual(ra, rb);
  return a.trim() === b.trim();
}

/** Canonical key for bucketing equal answers: the reduced rational, or the trimmed text. */
export function gsm8kKey(answer: string): string {
  const r = parseRational(answer);
  return r ? rationalKey(r) : answer.trim();
}
