/**
 * Where the gold answer goes in a model's own output, for the search's gold-answer reward
 * (docs/design/probes.md, "Search reward"): the output up to and including the format's last answer
 * marker, or, when it wrote none, the output with the format's marker appended. The gold is then
 * scored as the continuation of that text. The regex format has no marker to append: no slot.
 */
import type { AnswerFormat } from '../question';

/** The marker appended to an output that wrote none, per format. */
const APPENDED: Record<Exclude<AnswerFormat, 'regex'>, string> = {
  gsm8k: '\n#### ',
  boxed: '\nThe final answer is $\\boxed{',
  choice: '\nThe answer is ',
  exact: '\nAnswer: ',
};

/** The last match of `re` (global) in `text`: the index after it, or -1. */
function endOfLast(text: string, re: RegExp): number {
  let end = -1;
  for (const m of text.matchAll(re)) end = m.index + m[0].length;
  return end;
}

const MARKERS: Record<Exclude<AnswerFormat, 'regex'>, RegExp> = {
  gsm8k: /####[ \t]*/g,
  boxed: /\\boxed\{/g,
  choice: /(?:answer is|Answer:)[ \t]*\(?/gi,
  exact: /Answer:[ \t]*/g,
};

export interface AnswerSlot {
  /** The text the gold answer is scored after. */
  prefix: string;
  /** True when the output wrote no marker and the format's was appended. */
  appended: boolean;
}

export function answerSlot(output: string, format: AnswerFormat): AnswerSlot | null {
  if (format === 'regex') return null;
  const end = endOfLast(output, MARKERS[format]);
  if (end >= 0) return { prefix: output.slice(0, end), appended: false };
  return { prefix: output.trimEnd() + APPENDED[format], appended: true };
}
