/**
 * The `choice` answer format (ARC, MMLU; design.md section 2). The deployment asks for `Answer: X`;
 * a prediction is only ever one of the question's own labels, so "Answer: E" on an A–D question is
 * no answer rather than a wrong letter.
 */
import type { Choice } from '../dataset/question';

export interface ChoiceExtraction {
  answer: string;
  rule: 'choice-answer-line' | 'choice-lone-letter' | 'choice-leading-letter' | 'choice-text';
}

/**
 * "Answer: C", "The answer is (B).", "**Answer:** B", "the correct answer is option 2", "Answer - d".
 * Groups: 1 opening wrapper, 2 label, 3 closing wrapper, 4 the character after.
 */
const ANSWER_PHRASE =
  /\b(?:answer|option|choice)\s*(?:\*\*)?\s*(?:is\s*:?|would be|should be|:|-|=)\s*(?:\*\*)?\s*(?:option\s+|choice\s+)?([([]|\*\*)?[ \t]*([A-Za-z]|\d{1,2})(?:[ \t]*([)\]]|\*\*))?(.|$)/gim;

/** Letters that follow the label when it ends a statement: "B.", "B)", "B," or end of line. */
const TERMINATOR = /^[\r\n.,;:!?)\]*]?$/;

function findLabel(token: string, labels: readonly string[]): string | null {
  const exact = labels.find((l) => l === token);
  if (exact !== undefined) return exact;
  const folded = labels.find((l) => l.toUpperCase() === token.toUpperCase());
  return folded ?? null;
}

function normalizeText(s: string): string {
  return s.trim().replace(/\s+/g, ' ').replace(/[.]$/, '').toLowerCase();
}

export function extractChoice(output: string, choices: readonly Choice[]): ChoiceExtraction | null {
  const labels = choices.map((c) => c.label);
  for (const m of output.matchAll(ANSWER_PHRASE)) {
    const [, open, token, close, after] = m;
    if (/[A-Za-z0-9]/.test(after)) continue; // "Answer: Because…" is a word, not a label
    const label = findLabel(token, labels);
    if (label === null) continue;
    // A lowercase letter in running text is usually the article "a" ("the answer is a prime"):
    // accept it only when wrapped or ending the statement.
    const lowercase = /^[a-z]$/.test(token) && token !== label;
    if (lowercase && !open && !close && !TERMINATOR.test(after)) continue;
    return { answer: label, rule: 'choice-answer-line' };
  }

  const trimmed = output.trim().replace(/^\*\*|\*\*$/g, '').trim();
  const lone = /^[([]?\s*([A-Za-z]|\d{1,2})\s*[)\]]?[.:]?$/.exec(trimmed);
  if (lone) {
    const label = findLabel(lone[1], labels);
    if (label !== null) return { answer: label, rule: 'choice-lone-letter' };
  }

  const firstLine = trimmed.split('\n')[0].trim();
  const leading = /^\(?([A-Z]|\d{1,2})[.):]\s+\S/.exec(firstLine);
  if (leading) {
    const label = findLabel(leading[1], labels);
    if (label !== null) return { answer: label, rule: 'choice-leading-letter' };
  }

  const said = normalizeText(firstLine);
  const byText = choices.filter((c) => normalizeText(c.text) === said);
  if (said !== '' && byText.length === 1) return { answer: byText[0].label, rule: 'choice-text' };
  return null;
}

/** Labels compare case-insensitively after trimming ("b" = "B"). */
export function choiceKey(answer: string): string {
  return answer.trim().toUpperCase();
}
