/**
 * One benchmark question as the audit sees it (docs/design/grading.md and data-in-data-out.md): where it sits in its
 * file, what the model is asked, and the canonical gold answer in the dataset's answer format.
 */

/** How a prediction is extracted from a model output and compared with the gold (docs/design/grading.md). */
export type AnswerFormat = 'gsm8k' | 'boxed' | 'choice' | 'exact' | 'regex';

/** The dataset shapes Reach Audit recognizes (docs/design/data-in-data-out.md). */
export type DatasetSchema = 'gsm8k' | 'arc' | 'arc-flat' | 'math' | 'mmlu' | 'generic';

export const ANSWER_FORMATS: readonly AnswerFormat[] = ['gsm8k', 'boxed', 'choice', 'exact', 'regex'];

export interface Choice {
  label: string;
  text: string;
}

/** Where a question sits in a parquet benchmark, which is not text and has no lines: its shard file and row. */
export interface QuestionPlace {
  /** The parquet file, relative to the dataset path given (its own name when that path is the file). */
  file: string;
  /** 0-based row within that file. */
  row: number;
}

export interface Question {
  /** The `id` field when present, else the 1-based line number (JSONL), 1-based index (JSON array) or 1-based row across a parquet benchmark's files. */
  id: string;
  /** 1-based line in the file where the question starts, so the editor can point at it; in a parquet benchmark the 1-based row across its files, in order. */
  line: number;
  /** Parquet benchmarks only: the file and row the question was read from. */
  place?: QuestionPlace;
  schema: DatasetSchema;
  format: AnswerFormat;
  /** Question text / stem / problem / prompt. */
  text: string;
  /** The answer options, for choice datasets (ARC, MMLU). */
  choices?: Choice[];
  /**
   * Canonical gold answer: gsm8k the number after `####`; choice the label; boxed the content of
   * the last `\boxed{}`; exact/regex the configured field.
   */
  gold: string;
  /** Prediction pattern for the `regex` format (a JavaScript regular expression source). */
  pattern?: string;
  /** The original object, for few-shot examples and display. */
  raw: Record<string, unknown>;
}

/**
 * The default deployment's user message (TEAM.md "Default deployment prompt"): the question text
 * verbatim, or for choice questions the stem followed by one `A. text` line per choice.
 */
export function userMessage(q: Question): string {
  if (!q.choices || q.choices.length === 0) return q.text;
  return [q.text, ...q.choices.map((c) => `${c.label}. ${c.text}`)].join('\n');
}

/** The question's subject as its benchmark record names it (MMLU's `subject`), if any. */
export function questionSubject(q: Question): string | undefined {
  const s = q.raw['subject'];
  return typeof s === 'string' && s !== '' ? s : undefined;
}
