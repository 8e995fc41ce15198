/**
 * How the reports say what the answer-blind selectors left out of a probe's pool before choosing
 * (docs/design/answer-blind-selection.md, answer-blind selection), so that a blind rate is read with its pool.
 */
import type { BlindDropped } from '../../contract';

export function blindDroppedText(probe: string, d: BlindDropped): string {
  const share = d.candidates > 0 ? ` (${((100 * d.dropped) / d.candidates).toFixed(1)}%)` : '';
  return `blind pool: ${d.dropped} of ${d.candidates} ${probe} candidates${share} left out before selecting — no answer, or cut at the token limit without an answer marker (${d.questions} questions)`;
}
