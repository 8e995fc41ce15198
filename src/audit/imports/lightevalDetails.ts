/**
 * lighteval details files (`details_<task>_<date>.parquet`) read into a HarnessLog. Each row is one
 * sample with three struct columns (lighteval's DetailsLogger.Detail as `asdict` makes it, columns
 * sorted): `doc` (the Doc: query, choices, gold_index, specific, generation_size, stop_sequences…),
 * `metric` (the sample's metric values) and `model_response` (the ModelResponse: input, text…).
 * `model_response.text` holds the raw outputs, one per sample asked (num_samples), not the
 * post-processed text; `doc.specific.extracted_predictions`, when a metric wrote it, is the
 * harness's extraction.
 */
import * as path from 'node:path';
import { parquetMetadata, parquetSchema } from 'hyparquet';
import { InputError } from '../../common';
import { isObject } from '../../contract';
import { parquetFileRows, type DatasetRow } from '../dataset';
import type { HarnessLog, HarnessReading, LoggedQuestion } from './harnessLog';

type Json = Record<string, unknown>;

/** A details file's bytes and, when found, its run's results_<date>.json. */
export interface LightevalFile {
  file: string;
  bytes: ArrayBuffer;
  results?: Json;
}

/** The columns every details file has since lighteval's details were rebuilt on Doc and ModelResponse (commit 9288bd84, PR #709). */
const COLUMNS = ['doc', 'metric', 'model_response'];

/** `details_<task>_<date>.parquet` → task and date id; other names: the file name as the task. */
export function lightevalFileName(file: string): { task: string; date: string | null } {
  const m = /^details_(.+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.parquet$/.exec(path.basename(file));
  return m ? { task: m[1], date: m[2] } : { task: path.basename(file).replace(/\.parquet$/i, ''), date: null };
}

/** The top-level column names of a parquet file; throws InputError naming the file when it is not parquet. */
function columnsOf(file: string, bytes: ArrayBuffer): string[] {
  try {
    return parquetSchema(parquetMetadata(bytes)).children.map((c) => c.element.name);
  } catch (e) {
    throw new InputError(`${file}: not a readable parquet file (${(e as Error).message}); expected a lighteval details file (details_<task>_<date>.parquet)`);
  }
}

function expect(ok: boolean, where: string, message: string): void {
  if (!ok) throw new InputError(`${where}: ${message}`);
}

const isTextList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isIndex = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/** The prompt as the model got it: `model_response.input` (text, or the last user message of a chat); null when the backend did not record it. */
function promptOf(input: unknown): string | null {
  if (typeof input === 'string' && input !== '') return input;
  if (Array.isArray(input)) {
    const user = input.filter((m): m is Json => isObject(m) && m.role === 'user').pop();
    if (user && typeof user.content === 'string') return user.content;
  }
  return null;
}

/**
 * A Doc as the benchmark row our schemas read: several choices are a choice question (gold the
 * index, as MMLU files have it); one choice is the gold text itself, a GSM8K answer ("… #### N"), a
 * MATH solution (\boxed{}) or a plain target.
 */
function benchmarkRow(doc: Json, golds: number[]): Json {
  const choices = doc.choices as string[];
  const id = typeof doc.id === 'string' && doc.id !== '' ? { id: doc.id } : {};
  if (choices.length >= 2) return { ...id, question: doc.query, choices: choices.map((c) => c.trim()), answer: golds[0] };
  const gold = choices[golds[0]].trim();
  if (gold.includes('\\boxed{') && !gold.includes('####')) return { ...id, problem: doc.query, solution: gold };
  return { ...id, question: doc.query, answer: gold };
}

function readingsOf(metric: Json, specific: unknown): Record<string, HarnessReading> {
  const extracted = isObject(specific) && isTextList(specific.extracted_predictions) && specific.extracted_predictions.length > 0 ? specific.extracted_predictions[0] : null;
  const out: Record<string, HarnessReading> = {};
  for (const [name, v] of Object.entries(metric)) {
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    out[name] = { extracted, correct: v === 0 || v === 1 ? v === 1 : null, scores: { [name]: v } };
  }
  return out;
}

/** One details row as a logged question; throws InputError naming the file, row and column. */
function questionOf(row: DatasetRow, file: string, notes: { noPrompt: number; severalGolds: number }): LoggedQuestion {
  const r = row.place!.row;
  const where = `${file}: row ${r}`;
  const o = row.value as Json;
  const { doc, metric, model_response: response } = o;
  expect(isObject(doc), where, 'column "doc" is not a struct; expected the Doc (query, choices, gold_index, …)');
  expect(isObject(metric), where, 'column "metric" is not a struct; expected the metric values of the sample');
  expect(isObject(response), where, 'column "model_response" is not a struct; expected the ModelResponse (input, text, …)');
  const d = doc as Json;
  const m = response as Json;
  expect(typeof d.query === 'string', where, `column "doc.query" is ${JSON.stringify(d.query)}; expected the question text`);
  expect(isTextList(d.choices) && d.choices.length > 0, where, 'column "doc.choices" is not a non-empty list of strings; expected the answer choices or the gold text (every question needs its gold)');
  const golds = Array.isArray(d.gold_index) ? d.gold_index : [d.gold_index];
  expect(golds.length > 0 && golds.every(isIndex) && golds.every((g) => g < (d.choices as string[]).length), where, `column "doc.gold_index" is ${JSON.stringify(d.gold_index)}; expected an index (or list of indices) into doc.choices (${(d.choices as string[]).length} entries)`);
  if (golds.length > 1) notes.severalGolds++;
  expect(isTextList(m.text), where, 'column "model_response.text" is not a list of strings; expected the generated outputs');
  expect(
    (m.text as string[]).length > 0,
    where,
    'column "model_response.text" is empty: this task is scored by log-likelihood (no generated text); Reach Audit grades generated outputs (generative tasks)',
  );
  const prompt = promptOf(m.input);
  if (prompt === null) notes.noPrompt++;
  const key = typeof d.id === 'string' && d.id !== '' ? d.id : String(r);
  return { key, position: row.line, doc: benchmarkRow(d, golds as number[]), where, prompt: prompt ?? (d.query as string), outputs: m.text as string[], readings: readingsOf(metric as Json, d.specific) };
}

/** The generation settings as the log states them: the Doc's token budget and stop sequences, over the results file's generation_parameters. */
function generationOf(first: Json, results: Json | undefined): Json {
  const config = isObject(results?.config_general) ? results.config_general : {};
  const modelConfig = isObject(config.model_config) ? config.model_config : {};
  const parameters = isObject(modelConfig.generation_parameters) ? modelConfig.generation_parameters : {};
  const set = Object.fromEntries(Object.entries(parameters).filter(([, v]) => v !== null));
  return {
    ...set,
    ...(isIndex(first.generation_size) ? { max_new_tokens: first.generation_size } : {}),
    ...(isTextList(first.stop_sequences) ? { stop_seqs: first.stop_sequences } : {}),
    ...(isIndex(first.num_samples) ? { num_samples: first.num_samples } : {}),
  };
}

/** Reads one lighteval details file into a HarnessLog; throws InputError naming the file, row and column. */
export async function readLightevalDetails({ file, bytes, results }: LightevalFile): Promise<HarnessLog> {
  const columns = columnsOf(file, bytes);
  const missing = COLUMNS.filter((c) => !columns.includes(c));
  expect(
    missing.length === 0,
    file,
    `not a lighteval details file of the current layout: no column ${missing.map((c) => `"${c}"`).join(', ')} (it has ${columns.join(', ')}); expected the columns ${COLUMNS.join(', ')}` +
      (columns.includes('predictions') || columns.includes('full_prompt') ? ' (this looks like the older layout, written before lighteval rebuilt its details on Doc and ModelResponse; re-save it with a current lighteval)' : ''),
  );
  const rows: DatasetRow[] = [];
  await parquetFileRows(file, path.basename(file), 1, bytes, rows);
  expect(rows.length > 0, file, 'the details file has no rows');
  const notes = { noPrompt: 0, severalGolds: 0 };
  const questions = rows.map((row) => questionOf(row, file, notes));
  const seen = new Map<string, string>();
  for (const q of questions) {
    expect(!seen.has(q.key), q.where, `doc.id "${q.key}" appears twice (first at ${seen.get(q.key)})`);
    seen.set(q.key, q.where);
  }
  const config = isObject(results?.config_general) ? results.config_general : {};
  const unknown = [
    'the model weights: the log names a model, not its files, so no route, search, repair or mechanism probe can run on this run',
    'whether a sampling seed was honoured',
    'whether an output was cut at the token limit (each is graded as a finished output)',
  ];
  if (!results) unknown.push('the model name, the lighteval commit and the sampling settings (no results_<date>.json found under the results/ folder beside details/); the manifest\'s temperature 0 is a placeholder');
  if (notes.noPrompt > 0) unknown.push(`the prompt as sent for ${notes.noPrompt} of ${questions.length} questions (model_response.input is empty, as the transformers backend leaves it); doc.query is kept instead`);
  if (notes.severalGolds > 0) unknown.push(`${notes.severalGolds} questions list several gold answers (doc.gold_index); Reach Audit grades against the first`);
  const first = (rows[0].value as Json).doc as Json;
  return {
    tool: 'lighteval',
    toolVersion: typeof config.lighteval_sha === 'string' ? `commit ${config.lighteval_sha}` : null,
    task: lightevalFileName(file).task,
    model: typeof config.model_name === 'string' ? config.model_name : null,
    generation: generationOf(first, results),
    unknown,
    questions,
  };
}
