/**
 * Reading a benchmark file into Questions (docs/design/data-in-data-out.md): JSONL or a JSON array, schema
 * detected from the fields, gold answers read in the answer format. A malformed record becomes a
 * DatasetIssue with its line and is skipped; a file with no usable record is an InputError.
 */
import { createHash } from 'node:crypto';
import { InputError, MAX_TEXT_FILE_BYTES, invalidUtf8, readRegularBytes, type InvalidUtf8 } from '../../common';
import { lastBoxed, gsm8kGold, compilePattern, parseRational } from '../answers';
import { SCHEMAS, type SchemaMatch, type SchemaSpec } from './schemas';
import { readJsonRecords } from './jsonLines';
import { ANSWER_FORMATS, type AnswerFormat, type DatasetSchema, type Question, type QuestionPlace } from '../question';
import { isObject } from '../../contract';

export { userMessage } from '../question';

/** A record that could not be used: reported with its line (or parquet file and row), skipped, and the rest still runs. */
export interface DatasetIssue {
  line: number;
  place?: QuestionPlace;
  message: string;
}

/** One record of a benchmark before its schema is known: a JSON value, or why it could not be read. */
export interface DatasetRow {
  line: number;
  /** 1-based position, the question's id when it has none. */
  index: number;
  value?: unknown;
  error?: string;
  place?: QuestionPlace;
}

/** Where an issue is, for messages: "line N" in a text file, "FILE row N" in a parquet benchmark. */
export function issueWhere(issue: Pick<DatasetIssue, 'line' | 'place'>): string {
  return issue.place ? `${issue.place.file} row ${issue.place.row}` : `line ${issue.line}`;
}

export interface Dataset {
  path: string;
  questions: Question[];
  issues: DatasetIssue[];
  schema: DatasetSchema;
  format: AnswerFormat;
  /** sha256 (hex) of the file's bytes (a parquet folder: of its split's files, names and bytes), so a run can tell whether its dataset changed. */
  contentHash: string;
  /** A hub dataset folder: the split whose shards were read. */
  split?: string;
  /** Bytes of a text file that are not UTF-8 (read as U+FFFD); absent when every byte is. */
  invalidUtf8?: InvalidUtf8;
}

export interface DatasetOptions {
  /** Answer format; `auto` (default) picks it from the schema. */
  format?: AnswerFormat | 'auto';
  /** Field holding the gold answer, overriding the schema's own (for exact/regex datasets). */
  field?: string;
  /** Prediction pattern for the regex format. */
  pattern?: string;
}

const FORMAT_OF_SCHEMA: Record<Exclude<DatasetSchema, 'generic'>, AnswerFormat> = {
  gsm8k: 'gsm8k',
  math: 'boxed',
  arc: 'choice',
  'arc-flat': 'choice',
  mmlu: 'choice',
};

/** Schemas whose golds can be read in a format (choice needs choices; numbers and LaTeX do not). */
function fitsFormat(spec: SchemaSpec, format: AnswerFormat | 'auto'): boolean {
  if (format === 'choice') return spec.hasChoices || spec.name === 'generic';
  if (format === 'gsm8k' || format === 'boxed') return !spec.hasChoices;
  return true;
}

function describeValue(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Reads a record's gold in the answer format: the canonical gold string, or why it cannot be read. */
function readGold(format: AnswerFormat, spec: SchemaSpec, m: SchemaMatch, fieldGiven: boolean): string | { error: string } {
  const s = String(m.gold).trim();
  const where = `field "${m.goldField}"`;
  const fromSolution = spec.name === 'math' && !fieldGiven;
  const boxedOrError = (): string | { error: string } => {
    const inner = lastBoxed(s);
    if (inner === null || inner.trim() === '') return { error: `${where} has no complete \\boxed{…} answer` };
    return inner.trim();
  };
  switch (format) {
    case 'gsm8k': {
      let g: string | null | { error: string } = s;
      if (s.includes('####')) g = gsm8kGold(s);
      else if (fromSolution || /\\(?:boxed|fbox)\b/.test(s)) g = boxedOrError();
      if (g === null) return { error: `${where} has nothing after "####"` };
      if (typeof g !== 'string') return g;
      if (!parseRational(g)) return { error: `${where}: gold ${JSON.stringify(g)} is not a number (format gsm8k compares numbers)` };
      return g;
    }
    case 'boxed': {
      if (/\\(?:boxed|fbox)\b/.test(s) || fromSolution) return boxedOrError();
      if (s.includes('####')) return gsm8kGold(s) ?? { error: `${where} has nothing after "####"` };
      return s;
    }
    case 'choice': {
      if (!m.choices) return { error: 'the record has no choices (format choice needs them)' };
      const labels = m.choices.map((c) => c.label);
      const label = labels.find((l) => l === s) ?? labels.find((l) => l.toUpperCase() === s.toUpperCase());
      if (label !== undefined) return label;
      if (/^\d+$/.test(s) && Number(s) < labels.length) return labels[Number(s)]; // 0-based index (MMLU)
      return { error: `${where}: gold ${JSON.stringify(s)} is not one of the labels ${labels.join(', ')} nor a 0-based index` };
    }
    case 'exact':
    case 'regex': {
      if (fieldGiven) return s;
      if (spec.name === 'gsm8k') return gsm8kGold(s) ?? { error: `${where} has nothing after "####"` };
      if (spec.name === 'math') return boxedOrError();
      if (spec.hasChoices) return readGold('choice', spec, m, fieldGiven);
      return s;
    }
  }
}

/** The format `auto` picks: from the schema, or for generic records from what their golds look like. */
function autoFormat(spec: SchemaSpec, matches: SchemaMatch[]): AnswerFormat {
  if (spec.name !== 'generic') return FORMAT_OF_SCHEMA[spec.name];
  const golds = matches.map((m) => String(m.gold));
  if (golds.length > 0 && golds.every((g) => parseRational(g.includes('####') ? (gsm8kGold(g) ?? '') : g) !== null)) return 'gsm8k';
  if (golds.length > 0 && golds.every((g) => /\\(?:boxed|fbox)\b/.test(g))) return 'boxed';
  if (golds.length > 0 && matches.every((m) => m.choices && /^[A-Za-z]$/.test(String(m.gold).trim()))) return 'choice';
  return 'exact';
}

function validateOptions(path: string, options: DatasetOptions): AnswerFormat | 'auto' {
  const format = options.format ?? 'auto';
  if (format !== 'auto' && !ANSWER_FORMATS.includes(format)) {
    throw new InputError(`${path}: unknown answer format ${JSON.stringify(format)}; expected auto, ${ANSWER_FORMATS.join(', ')}`);
  }
  if (format === 'regex') {
    if (options.pattern === undefined || options.pattern === '') throw new InputError(`${path}: answer format regex needs a prediction pattern (--pattern)`);
    compilePattern(options.pattern);
  }
  if (options.field !== undefined && options.field.trim() === '') throw new InputError(`${path}: --field is empty; expected the name of the gold answer field`);
  return format;
}

const MAX_LISTED = 3;

function listIssues(issues: DatasetIssue[]): string {
  const shown = issues.slice(0, MAX_LISTED).map((i) => `${issueWhere(i)}: ${i.message}`);
  if (issues.length > MAX_LISTED) shown.push(`… and ${issues.length - MAX_LISTED} more`);
  return shown.join('; ');
}

function parseWithHash(path: string, text: string, contentHash: string, options: DatasetOptions): Dataset {
  validateOptions(path, options);
  const read = readJsonRecords(text);
  if (read.fatal) throw new InputError(`${path}:${read.fatal.line}: ${read.fatal.message}`);
  return datasetFromRows(path, read.records, contentHash, options);
}

/**
 * Questions from a benchmark's records, whatever file they came from (JSONL, a JSON array, parquet
 * rows): the schema detected by majority, golds read in the answer format. Throws InputError when no
 * record is usable.
 */
export function datasetFromRows(path: string, rows: readonly DatasetRow[], contentHash: string, options: DatasetOptions): Dataset {
  const requested = validateOptions(path, options);
  const issues: DatasetIssue[] = [];
  const objects: { line: number; index: number; obj: Record<string, unknown>; place?: QuestionPlace }[] = [];
  const at = (r: DatasetRow) => (r.place ? { line: r.line, place: r.place } : { line: r.line });
  for (const r of rows) {
    if (r.error !== undefined) issues.push({ ...at(r), message: r.error });
    else if (!isObject(r.value)) issues.push({ ...at(r), message: `expected a JSON object, got ${describeValue(r.value)}` });
    else objects.push({ ...at(r), index: r.index, obj: r.value });
  }
  if (objects.length === 0) {
    const why = issues.length === 0 ? 'the file has no records' : listIssues(issues);
    throw new InputError(`${path}: no usable question: ${why}`);
  }

  // Each record's own schema is the most specific that matches it; the file's schema is the
  // majority (ties go to the schema seen first).
  const field = options.field;
  const votes = new Map<SchemaSpec, { count: number; first: number }>();
  objects.forEach(({ obj }, i) => {
    const own = SCHEMAS.find((s) => typeof s.match(obj, field) !== 'string');
    if (!own) return;
    const v = votes.get(own) ?? { count: 0, first: i };
    v.count++;
    votes.set(own, v);
  });
  let spec: SchemaSpec | undefined;
  for (const [s, v] of votes) {
    const best = spec && votes.get(spec);
    if (!best || v.count > best.count || (v.count === best.count && v.first < best.first)) spec = s;
  }
  if (!spec) {
    const first = objects[0];
    const missing = SCHEMAS.map((s) => `${s.describe}: ${s.match(first.obj, field) as string}`);
    throw new InputError(
      `${path}: no usable question; ${issueWhere(first)} has ${first.place ? 'columns' : 'fields'} {${Object.keys(first.obj).join(', ')}} and fits no known schema. ` +
        `Tried ${missing.join('; ')}` +
        (field !== undefined ? ` (gold field "${field}")` : ''),
    );
  }
  if (!fitsFormat(spec, requested)) {
    const fitting = SCHEMAS.filter((s) => s.name !== 'generic' && fitsFormat(s, requested));
    throw new InputError(
      `${path}: answer format ${requested} does not fit this file's ${spec.describe} records; ` +
        `format ${requested} works with ${fitting.map((s) => s.describe).join(', ')}`,
    );
  }

  const matched: { line: number; index: number; obj: Record<string, unknown>; place?: QuestionPlace; m: SchemaMatch }[] = [];
  for (const o of objects) {
    const m = spec.match(o.obj, field);
    if (typeof m === 'string') issues.push({ line: o.line, ...(o.place ? { place: o.place } : {}), message: `expected ${spec.describe}: ${m}` });
    else matched.push({ ...o, m });
  }
  const format = requested === 'auto' ? autoFormat(spec, matched.map((x) => x.m)) : requested;

  const questions: Question[] = [];
  const goldIssues: DatasetIssue[] = [];
  const seen = new Map<string, { line: number; place?: QuestionPlace }>();
  for (const { line, index, obj, place, m } of matched) {
    const gold = readGold(format, spec, m, field !== undefined);
    if (typeof gold !== 'string') {
      goldIssues.push({ line, ...(place ? { place } : {}), message: gold.error });
      continue;
    }
    const rawId = obj.id;
    const id = (typeof rawId === 'string' && rawId.trim() !== '') || (typeof rawId === 'number' && Number.isFinite(rawId)) ? String(rawId).trim() : String(index);
    const first = seen.get(id);
    if (first !== undefined) {
      issues.push({ line, ...(place ? { place } : {}), message: `duplicate question id ${JSON.stringify(id)} (first at ${issueWhere(first)}); ids must be unique` });
      continue;
    }
    seen.set(id, { line, place });
    const q: Question = { id, line, schema: spec.name, format, text: m.text, gold, raw: obj };
    if (place) q.place = place;
    if (m.choices) q.choices = m.choices;
    if (format === 'regex') q.pattern = options.pattern;
    questions.push(q);
  }
  issues.push(...goldIssues);
  issues.sort((a, b) => a.line - b.line);

  if (questions.length === 0) {
    throw new InputError(
      goldIssues.length > 0 && goldIssues.length === matched.length
        ? `${path}: no gold answer could be read in format ${format} (${spec.describe}): ${listIssues(goldIssues)}`
        : `${path}: no usable question (${spec.describe}): ${listIssues(issues)}`,
    );
  }
  return { path, questions, issues, schema: spec.name, format, contentHash };
}

/** Parses dataset text (pure). Throws InputError when no record is usable. */
export function parseDataset(path: string, text: string, options: DatasetOptions = {}): Dataset {
  return parseWithHash(path, text, createHash('sha256').update(text, 'utf8').digest('hex'), options);
}

/** The largest dataset file read (its text must fit one JavaScript string). */
export const MAX_DATASET_BYTES = MAX_TEXT_FILE_BYTES;
/** What a refusal of a dataset file over the bound says about it. */
const DATASET_BOUND_ADVICE = "a fixed bound, below the longest text JavaScript can hold: split the benchmark into several files, or save it as parquet";

/** Reads and parses a dataset file; the content hash is over the file's bytes. */
export function loadDataset(path: string, options: DatasetOptions = {}): Dataset {
  if (/\.parquet$/i.test(path)) throw new InputError(`${path}: a parquet benchmark; this step reads JSONL or JSON text only`);
  let bytes: Buffer;
  try {
    bytes = readRegularBytes(path, MAX_DATASET_BYTES, DATASET_BOUND_ADVICE);
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, expected a .jsonl or .json file' : (e as Error).message;
    throw new InputError(`cannot read dataset ${path}: ${why}`);
  }
  const hash = createHash('sha256').update(bytes).digest('hex');
  const dataset = parseWithHash(path, bytes.toString('utf8'), hash, options);
  const bad = invalidUtf8(bytes);
  return bad ? { ...dataset, invalidUtf8: bad } : dataset;
}
