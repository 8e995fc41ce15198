/**
 * The dataset shapes of docs/design/data-in-data-out.md. Each schema checks one record and either returns its
 * parts (question text, choices, the raw gold field) or says precisely which field is missing.
 */
import type { Choice, DatasetSchema } from '../question';

/** A record's parts under one schema, before its gold is read in an answer format. */
export interface SchemaMatch {
  text: string;
  choices?: Choice[];
  /** The raw gold field's value. */
  gold: unknown;
  /** Where that gold came from, for messages ("answer", "answerKey", "solution"). */
  goldField: string;
}

export interface SchemaSpec {
  name: DatasetSchema;
  /** Human name and fields, for messages. */
  describe: string;
  /** Whether answers in this schema are labels of choices. */
  hasChoices: boolean;
  /** `field` overrides where the gold is read from. Returns the parts or what is wrong. */
  match(obj: Record<string, unknown>, field?: string): SchemaMatch | string;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function isText(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

function isScalar(v: unknown): v is string | number {
  return (typeof v === 'string' && v.trim() !== '') || (typeof v === 'number' && Number.isFinite(v));
}

function describeType(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.trim() === '' ? 'an empty string' : 'a string';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** The gold field's value: the configured field when given, else the schema's own. */
function goldOf(obj: Record<string, unknown>, own: string, field: string | undefined): { gold: unknown; goldField: string } | string {
  const name = field ?? own;
  const value = obj[name];
  if (!isScalar(value)) return `field "${name}" (the gold answer) is ${describeType(value)}; expected a string or number`;
  return { gold: value, goldField: name };
}

function needText(obj: Record<string, unknown>, name: string): string | undefined {
  const v = obj[name];
  return isText(v) ? undefined : `field "${name}" is ${describeType(v)}; expected a non-empty string`;
}

function labelOf(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  return null;
}

function checkLabels(choices: Choice[], where: string): string | undefined {
  if (choices.length < 2) return `${where} has ${choices.length} choice(s); expected at least 2`;
  const seen = new Set<string>();
  for (const c of choices) {
    if (seen.has(c.label)) return `${where} repeats the label "${c.label}"`;
    seen.add(c.label);
  }
  return undefined;
}

const gsm8k: SchemaSpec = {
  name: 'gsm8k',
  describe: 'GSM8K {question, answer: "… #### N"}',
  hasChoices: false,
  match(obj, field) {
    const bad = needText(obj, 'question') ?? needText(obj, 'answer');
    if (bad) return bad;
    if (!(obj.answer as string).includes('####')) return 'field "answer" has no "#### N" final answer';
    const gold = goldOf(obj, 'answer', field);
    if (typeof gold === 'string') return gold;
    return { text: obj.question as string, ...gold };
  },
};

const arc: SchemaSpec = {
  name: 'arc',
  describe: 'ARC {id, question: {stem, choices: [{label, text}]}, answerKey}',
  hasChoices: true,
  match(obj, field) {
    const q = obj.question;
    if (typeof q !== 'object' || q === null || Array.isArray(q)) return `field "question" is ${describeType(q)}; expected an object {stem, choices}`;
    const { stem, choices } = q as Record<string, unknown>;
    if (!isText(stem)) return `field "question.stem" is ${describeType(stem)}; expected a non-empty string`;
    if (!Array.isArray(choices)) return `field "question.choices" is ${describeType(choices)}; expected an array of {label, text}`;
    const parsed: Choice[] = [];
    for (const [i, c] of choices.entries()) {
      const label = typeof c === 'object' && c !== null ? labelOf((c as Record<string, unknown>).label) : null;
      const text = typeof c === 'object' && c !== null ? (c as Record<string, unknown>).text : undefined;
      if (label === null || (typeof text !== 'string' && typeof text !== 'number')) {
        return `field "question.choices[${i}]" is not {label, text}`;
      }
      parsed.push({ label, text: String(text) });
    }
    const bad = checkLabels(parsed, '"question.choices"');
    if (bad) return bad;
    const gold = goldOf(obj, 'answerKey', field);
    if (typeof gold === 'string') return gold;
    return { text: stem, choices: parsed, ...gold };
  },
};

const arcFlat: SchemaSpec = {
  name: 'arc-flat',
  describe: 'ARC (flat) {question, choices: {label: [], text: []}, answerKey}',
  hasChoices: true,
  match(obj, field) {
    const bad = needText(obj, 'question');
    if (bad) return bad;
    const c = obj.choices;
    if (typeof c !== 'object' || c === null || Array.isArray(c)) return `field "choices" is ${describeType(c)}; expected an object {label: [], text: []}`;
    const { label, text } = c as Record<string, unknown>;
    if (!Array.isArray(label) || !Array.isArray(text)) return 'field "choices" needs arrays "label" and "text"';
    if (label.length !== text.length) return `field "choices" has ${label.length} labels but ${text.length} texts`;
    const parsed: Choice[] = [];
    for (let i = 0; i < label.length; i++) {
      const l = labelOf(label[i]);
      if (l === null || (typeof text[i] !== 'string' && typeof text[i] !== 'number')) return `field "choices" entry ${i} is not a label and a text`;
      parsed.push({ label: l, text: String(text[i]) });
    }
    const badLabels = checkLabels(parsed, '"choices"');
    if (badLabels) return badLabels;
    const gold = goldOf(obj, 'answerKey', field);
    if (typeof gold === 'string') return gold;
    return { text: obj.question as string, choices: parsed, ...gold };
  },
};

const math: SchemaSpec = {
  name: 'math',
  describe: 'MATH {problem, solution with \\boxed{…}}',
  hasChoices: false,
  match(obj, field) {
    const bad = needText(obj, 'problem') ?? needText(obj, 'solution');
    if (bad) return bad;
    const gold = goldOf(obj, 'solution', field);
    if (typeof gold === 'string') return gold;
    return { text: obj.problem as string, ...gold };
  },
};

/** Where MMLU-shaped files keep the gold: `answer` (MMLU), `answer_index` (MMLU-Pro), `answer_idx`. */
const MMLU_GOLD_FIELDS = ['answer', 'answer_index', 'answer_idx'];

const mmlu: SchemaSpec = {
  name: 'mmlu',
  describe: 'MMLU {question, choices or options: [...], answer, answer_index or answer_idx: index or letter}',
  hasChoices: true,
  match(obj, field) {
    const bad = needText(obj, 'question');
    if (bad) return bad;
    // MMLU names the list "choices", MMLU-Pro "options".
    const listField = obj.choices === undefined && Array.isArray(obj.options) ? 'options' : 'choices';
    const c = obj[listField];
    if (!Array.isArray(c)) return `field "choices" is ${describeType(c)}; expected an array of strings`;
    if (c.length > LETTERS.length) return `field "${listField}" has ${c.length} entries; at most ${LETTERS.length} are supported`;
    const parsed: Choice[] = [];
    for (let i = 0; i < c.length; i++) {
      if (typeof c[i] !== 'string' && typeof c[i] !== 'number') return `field "${listField}[${i}]" is ${describeType(c[i])}; expected a string`;
      parsed.push({ label: LETTERS[i], text: String(c[i]) });
    }
    const badLabels = checkLabels(parsed, `"${listField}"`);
    if (badLabels) return badLabels;
    const gold = goldOf(obj, MMLU_GOLD_FIELDS.find((f) => obj[f] !== undefined) ?? 'answer', field);
    if (typeof gold === 'string') return gold;
    return { text: obj.question as string, choices: parsed, ...gold };
  },
};

const generic: SchemaSpec = {
  name: 'generic',
  describe: 'generic {id?, prompt or question, answer or target}',
  hasChoices: false,
  match(obj, field) {
    const textField = isText(obj.prompt) ? 'prompt' : isText(obj.question) ? 'question' : null;
    if (textField === null) return 'fields "prompt" and "question" are both missing or not strings; expected one of them';
    let goldField = field;
    if (goldField === undefined) {
      if (obj.answer !== undefined) goldField = 'answer';
      else if (obj.target !== undefined) goldField = 'target';
      else return 'fields "answer" and "target" are both missing; expected one of them';
    }
    const gold = goldOf(obj, goldField, undefined);
    if (typeof gold === 'string') return gold;
    // Generic records may still carry choices ({prompt, choices: [...], answer}); keep them.
    let choices: Choice[] | undefined;
    if (Array.isArray(obj.choices) && obj.choices.length >= 2 && obj.choices.length <= LETTERS.length && obj.choices.every((x) => typeof x === 'string')) {
      choices = (obj.choices as string[]).map((text, i) => ({ label: LETTERS[i], text }));
    }
    return { text: obj[textField] as string, ...(choices ? { choices } : {}), ...gold };
  },
};

/** Most specific first: a record's own schema is the first that matches it. */
export const SCHEMAS: readonly SchemaSpec[] = [arc, arcFlat, math, mmlu, gsm8k, generic];
