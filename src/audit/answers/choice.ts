/**
 * The `choice` answer format (ARC, MMLU; docs/design/grading.md). The deployment asks for `Answer: X`;
 * a prediction is only ever one of the question's own labels, so "Answer: E" on an A–D question is
 * no answer rather than a wrong letter.
 */
import type { Choice } from '../question';
import { ownAnswerEnd } from './nextQuestion';

export interface ChoiceExtraction {
  answer: string;
  rule: 'choice-answer-line' | 'choice-option' | 'choice-lone-letter' | 'choice-leading-letter' | 'choice-text';
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
  return s.trim().replace(/\s+/g, ' ').replace(/[.!]+$/, '').trim().toLowerCase();
}

/** "Option C", "choice (B)", "I pick option 2": the word itself introduces the label. */
const OPTION_WORD = /\b(?:option|choice)\s+([([])?[ \t]*([A-Za-z]|\d{1,2})(?:[ \t]*([)\]]))?(.|$)/gim;

/** "Answer: <text of one choice>": the rest of the line after an answer phrase. */
const ANSWER_TEXT = /\b(?:answer\s*(?:\*\*)?\s*(?:is\s*:?|:)|answer\s+is)\s*(?:\*\*)?[ \t]*([^\n]+)/gi;

/** What follows a label that the output names only to reject it. */
const REJECTED = /^[ \t]*(?:is|seems|looks|sounds|might be|may be|could be)\s+(?:tempting|wrong|incorrect|not\b|plausible|close|a distractor|a trap|unlikely)/i;

interface LabelStatement {
  index: number;
  /** The label stated, or null when the statement names several labels ("A or B", "A, B"). */
  label: string | null;
  /** The label ends its statement ("Answer: C", "option (C).") rather than starting a clause ("A is tempting"). */
  definite: boolean;
  rule: 'choice-answer-line' | 'choice-option';
}

/** "or B", ", (B)", "and B", "/ B" right after a label: the statement names a second label. */
const SECOND_LABEL = /^[ \t]*(?:,|\bor\b|\band\b|\/|&)[ \t]*(?:or[ \t]+)?([([])?[ \t]*([A-Za-z]|\d{1,2})[ \t]*([)\]])?(?![A-Za-z0-9])/i;

/** The statement goes on to name another of the question's labels, not one it sets aside. */
function namesSecondLabel(rest: string, labels: readonly string[]): boolean {
  const m = SECOND_LABEL.exec(rest);
  if (!m) return false;
  const [, open, token, close] = m;
  // A lowercase letter is the article unless wrapped ("C, a renewable resource" names one label).
  if (/^[a-z]$/.test(token) && !labels.includes(token) && !open && !close) return false;
  if (findLabel(token, labels) === null) return false;
  return !REJECTED.test(rest.slice(m[0].length));
}

function labelStatements(output: string, choices: readonly Choice[], withOptionWord: boolean): LabelStatement[] {
  const labels = choices.map((c) => c.label);
  const found: LabelStatement[] = [];
  for (const re of withOptionWord ? [ANSWER_PHRASE, OPTION_WORD] : [ANSWER_PHRASE]) {
    for (const m of output.matchAll(re)) {
      const [, open, token, close, after] = m;
      if (/[A-Za-z0-9]/.test(after)) continue; // "Answer: Because…" is a word, not a label
      const label = findLabel(token, labels);
      if (label === null) continue;
      const ends = TERMINATOR.test(after) || /^[\r\n]/.test(after);
      // A lowercase letter in running text is usually the article "a" ("the answer is a prime"):
      // accept it only when wrapped or ending the statement.
      const lowercase = /^[a-z]$/.test(token) && token !== label;
      if (lowercase && !open && !close && !ends) continue;
      const rest = output.slice((m.index ?? 0) + m[0].length - after.length);
      if (REJECTED.test(rest)) continue; // "A is tempting, but…": named to be set aside
      // "C) …" / "(C) …" / "C." followed by the text: still a finished statement of the label.
      const definite = ends || Boolean(close) || /^\s*$/.test(rest) || /^[ \t]*[-–:]/.test(rest);
      const several = namesSecondLabel(rest, labels);
      found.push({ index: m.index ?? 0, label: several ? null : label, definite: definite || several, rule: re === ANSWER_PHRASE ? 'choice-answer-line' : 'choice-option' });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

/**
 * The statement that answers: the last one that ends its statement (a self-correction —
 * "Answer: B … no wait. Answer: C" — replaces what came before), else the last at all ("The answer
 * is C because…"); statements inside a made-up next question are not read. Undefined when there
 * is none; a statement naming several labels answers with no label.
 */
function answeringStatement(output: string, statements: readonly LabelStatement[]): LabelStatement | undefined {
  if (statements.length === 0) return undefined;
  const end = ownAnswerEnd(output, statements[0].index);
  const read = statements.filter((st) => st.index < end);
  return read.findLast((st) => st.definite) ?? read[read.length - 1];
}

/** The strict view: only an answer phrase ("Answer: C", "the answer is (C)") counts. */
export function extractChoiceStrict(output: string, choices: readonly Choice[]): string | null {
  return answeringStatement(output, labelStatements(output, choices, false))?.label ?? null;
}

/**
 * The label an output states. In order: an answer phrase ("Answer: C", "the answer is (C)"),
 * read by answeringStatement, so that "Option A: … The answer is B." is B and a self-correction
 * counts; only when there is none, an "option X" mention read the same way ("Option A is tempting,
 * but option C fits" → C); then a lone label; a leading label ("C. palms covered with oil"); an
 * answer phrase followed by exactly one choice's text; the output's first line being exactly one
 * choice's text. A statement naming several labels ("A or B", "Answer: A, B") is no answer, and
 * nothing after it is read in its place.
 */
export function extractChoice(output: string, choices: readonly Choice[]): ChoiceExtraction | null {
  const labels = choices.map((c) => c.label);
  const statements = labelStatements(output, choices, true);
  const phrases = statements.filter((st) => st.rule === 'choice-answer-line');
  const chosen = answeringStatement(output, phrases.length > 0 ? phrases : statements);
  if (chosen) return chosen.label === null ? null : { answer: chosen.label, rule: chosen.rule };

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

  const byText = (said: string): Choice | null => {
    const n = normalizeText(said);
    const matches = choices.filter((c) => normalizeText(c.text) === n);
    return n !== '' && matches.length === 1 ? matches[0] : null;
  };
  for (const m of output.matchAll(ANSWER_TEXT)) {
    const c = byText(m[1].replace(/\*\*/g, ''));
    if (c) return { answer: c.label, rule: 'choice-text' };
  }
  const first = byText(firstLine);
  return first ? { answer: first.label, rule: 'choice-text' } : null;
}

/** Labels compare case-insensitively after trimming ("b" = "B"). */
export function choiceKey(answer: string): string {
  return answer.trim().toUpperCase();
}
