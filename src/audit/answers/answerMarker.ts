/**
 * Whether a graded output states its answer with the format's explicit marker (docs/design/grading.md,
 * truncated outputs): `#### N` or `\boxed{N}` (GSM8K), `\boxed{…}` (MATH), an answer
 * phrase (choice), the `Answer:` line (exact), the pattern (regex). Read from what a record keeps,
 * so that records of any run answer it: the strict view when recorded, else the rule.
 */
import type { GradedOutput } from '../../contract';

/** The rules that read a marker, for records made before the strict view was recorded. */
const MARKER_RULES: ReadonlySet<string> = new Set(['gsm8k-strict', 'gsm8k-boxed', 'boxed', 'choice-answer-line', 'exact-answer-line', 'regex']);

export function hasAnswerMarker(o: Pick<GradedOutput, 'rule' | 'strict'>): boolean {
  // A GSM8K \boxed{N} is a marker though lm-eval's strict-match (the strict view) does not read it.
  if (o.rule === 'gsm8k-boxed') return true;
  return o.strict ? o.strict.answer !== null : MARKER_RULES.has(o.rule);
}
