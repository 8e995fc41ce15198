/**
 * lm-evaluation-harness `--log_samples` files (`samples_<task>_<date>.jsonl`) read into a HarnessLog.
 * One line per (document, filter): lines are grouped by `doc_id`; the raw `resps` are the outputs
 * (not `filtered_resps`, which is the harness's extraction), `arguments.gen_args_0` holds the prompt
 * and the generation settings, and several responses to one request (`repeats`) are kept in order.
 */
import * as path from 'node:path';
import { InputError } from '../../common';
import { isObject } from '../../contract';
import { readJsonRecords, withoutPythonFloats } from '../dataset';
import type { HarnessLog, HarnessReading, LoggedQuestion } from './harnessLog';

/** A samples file's text and, when found beside it, its run's results_<date>.json. */
export interface LmEvalFile {
  file: string;
  text: string;
  results?: Record<string, unknown>;
}

/** The fields every samples line of a generation task has (lm_eval/evaluator.py, evaluation_tracker.py). */
const LINE_FIELDS = ['doc_id', 'doc', 'arguments', 'resps', 'filtered_resps'];
/** Keys of a samples line that are not metric values. */
const NOT_METRICS = new Set([...LINE_FIELDS, 'target', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash']);

/** `samples_<task>_<date>.jsonl` → task and date id; other names: the file name as the task. */
export function lmEvalFileName(file: string): { task: string; date: string | null } {
  const m = /^samples_(.+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl$/.exec(path.basename(file));
  return m ? { task: m[1], date: m[2] } : { task: path.basename(file).replace(/\.jsonl$/i, ''), date: null };
}

/**
 * Whether a file's first line looks like an lm-eval samples line: an object with the samples fields
 * (Python's NaN allowed). `whole` false: only the line's start is given (a line of many MB is not
 * parsed twice), and it must open as lm-eval writes it, `{"doc_id": N, "doc": …`.
 */
export function looksLikeLmEvalSamples(firstLine: string, whole = true): boolean {
  if (!whole) return /^\uFEFF?\s*\{\s*"doc_id"\s*:\s*\d+\s*,\s*"doc"\s*:/.test(firstLine);
  try {
    const v: unknown = JSON.parse(withoutPythonFloats(firstLine));
    return isObject(v) && LINE_FIELDS.every((f) => f in v);
  } catch {
    return false;
  }
}

function firstText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length > 0) return firstText(v[0]);
  return null;
}

/** The harness's reading of one (doc, filter) line: its extraction and its 0/1 verdict when it has one. */
function readingOf(line: Record<string, unknown>): HarnessReading {
  const named = Array.isArray(line.metrics) ? line.metrics.filter((m): m is string => typeof m === 'string') : Object.keys(line).filter((k) => !NOT_METRICS.has(k));
  const scores: Record<string, number> = {};
  for (const m of named) if (typeof line[m] === 'number' && Number.isFinite(line[m])) scores[m] = line[m];
  const verdict = Object.values(scores).find((s) => s === 0 || s === 1);
  return { extracted: firstText(line.filtered_resps), correct: verdict === undefined ? null : verdict === 1, scores };
}

function expect(ok: boolean, where: string, message: string): void {
  if (!ok) throw new InputError(`${where}: ${message}`);
}

/** Reads lm-eval samples files of one task into a HarnessLog; throws InputError naming the file and line. */
export function readLmEvalSamples(files: readonly LmEvalFile[]): HarnessLog {
  const byDoc = new Map<number, LoggedQuestion>();
  const seen = new Set<string>();
  const tasks = new Set<string>();
  let generation: Record<string, unknown> | undefined;
  let differing = false;
  for (const { file, text } of files) {
    tasks.add(lmEvalFileName(file).task);
    const read = readJsonRecords(text);
    if (read.fatal) throw new InputError(`${file}:${read.fatal.line}: ${read.fatal.message}`);
    if (read.records.length === 0) throw new InputError(`${file}: no samples; expected one JSON object per line (lm-evaluation-harness --log_samples)`);
    for (const r of read.records) {
      const where = `${file}:${r.line}`;
      if (r.error !== undefined) throw new InputError(`${where}: ${r.error}`);
      const line = r.value;
      expect(isObject(line), where, 'expected a JSON object (an lm-evaluation-harness samples line)');
      const o = line as Record<string, unknown>;
      const missing = LINE_FIELDS.filter((f) => !(f in o));
      expect(missing.length === 0, where, `not an lm-evaluation-harness samples line: no field ${missing.map((m) => `"${m}"`).join(', ')} (expected ${LINE_FIELDS.join(', ')})`);
      expect(Number.isInteger(o.doc_id) && (o.doc_id as number) >= 0, where, `field "doc_id" is ${JSON.stringify(o.doc_id)}; expected a document index`);
      expect(isObject(o.doc), where, 'field "doc" is not an object; expected the benchmark row the question was asked from');
      const args = isObject(o.arguments) ? o.arguments.gen_args_0 : undefined;
      expect(isObject(args) && typeof args.arg_0 === 'string', where, 'field "arguments" has no gen_args_0.arg_0 prompt text');
      const { arg_0: prompt, arg_1: kwargs } = args as Record<string, unknown>;
      const resps = o.resps;
      expect(Array.isArray(resps) && resps.length > 0 && Array.isArray(resps[0]) && resps[0].length > 0, where, 'field "resps" is not a list of response lists');
      const outputs = (resps as unknown[][])[0];
      expect(
        outputs.every((x) => typeof x === 'string'),
        where,
        'field "resps" holds [log-probability, is-greedy] pairs: this task is scored by log-likelihood, not by generated text; Reach Audit grades generated outputs (generate_until tasks)',
      );
      const filter = typeof o.filter === 'string' ? o.filter : 'none';
      const key = `${o.doc_id as number}`;
      expect(!seen.has(`${key}\u0000${filter}`), where, `doc_id ${key} with filter "${filter}" appears twice`);
      seen.add(`${key}\u0000${filter}`);
      if (isObject(kwargs)) {
        if (generation === undefined) generation = kwargs;
        else if (JSON.stringify(generation) !== JSON.stringify(kwargs)) differing = true;
      }
      const known = byDoc.get(o.doc_id as number);
      if (known) {
        expect(JSON.stringify(known.outputs) === JSON.stringify(outputs), where, `doc_id ${key}: the responses differ from those of its other filter lines (${known.where})`);
        known.readings[filter] = readingOf(o);
        continue;
      }
      byDoc.set(o.doc_id as number, { key, position: (o.doc_id as number) + 1, doc: o.doc as Record<string, unknown>, where, prompt: prompt as string, outputs: outputs as string[], readings: { [filter]: readingOf(o) } });
    }
  }
  if (tasks.size > 1) throw new InputError(`the logs are of ${tasks.size} tasks (${[...tasks].join(', ')}); import one task's samples at a time`);
  const results = files.find((f) => f.results)?.results;
  const model = results && typeof results.model_name === 'string' ? results.model_name : null;
  const toolVersion = results && typeof results.lm_eval_version === 'string' ? results.lm_eval_version : null;
  const unknown = [
    'the model weights: the log names a model, not its files, so no route, search, repair or mechanism probe can run on this run',
    'whether a sampling seed was honoured',
    'token counts, and whether an output was cut at the token limit (each is graded as a finished output)',
  ];
  if (!results) unknown.push('the model name and the lm-evaluation-harness version (no results_<date>.json beside the samples file)');
  if (differing) unknown.push("one generation setting for every question: the logged settings differ between questions (the first question's are shown)");
  const questions = [...byDoc.values()].sort((a, b) => a.position - b.position);
  return { tool: 'lm-evaluation-harness', toolVersion, task: [...tasks][0], model, generation: generation ?? {}, unknown, questions };
}
