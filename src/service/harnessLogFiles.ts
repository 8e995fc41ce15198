/**
 * Evaluation harness log files read from disk (docs/design/data-in-data-out.md, "Imported logs"), as `reach-audit
 * import` and `audit --realized-from` both take them: the format detected from the bytes (or
 * forced), the files hashed, and the results file the harness wrote beside them found.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError, MAX_JSON_DEPTH, MAX_TEXT_FILE_BYTES, describeFsError, jsonTooDeep, readRegularBytes, readRegularText } from '../common';
import { withoutPythonFloats } from '../audit/dataset';
import { lightevalFileName, lmEvalFileName, looksLikeLmEvalSamples, readInspectLog, readLightevalDetails, readLmEvalSamples, type HarnessLog, type LmEvalFile } from '../audit/imports';

export const LOG_FORMATS = ['lm-eval', 'inspect', 'lighteval'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The largest log file read (an lm-eval samples file or an Inspect log of a whole benchmark): its text must fit one JavaScript string. */
const MAX_LOG_BYTES = MAX_TEXT_FILE_BYTES;
const LOG_BOUND_ADVICE = 'a fixed bound, below the longest text JavaScript can hold: log fewer samples per file (lm-eval writes one samples file per task)';

function readResultsJson(results: string, file: string): Record<string, unknown> | undefined {
  // A FIFO or a device named like a results file is refused as such, not read as "not valid JSON".
  let text: string;
  try {
    text = readRegularText(results, MAX_LOG_BYTES, LOG_BOUND_ADVICE);
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`${e.message} (the results file of ${path.basename(file)})`);
    throw new InputError(`cannot read ${results}, the results file of ${path.basename(file)}: ${describeFsError(e)}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(withoutPythonFloats(text));
  } catch (e) {
    throw new InputError(`${results}: not valid JSON (${(e as Error).message}; the results file of ${path.basename(file)})`);
  }
  const deep = jsonTooDeep(v);
  if (deep !== null) throw new InputError(`${results}: field ${deep} nests more than ${MAX_JSON_DEPTH} objects and arrays deep (a fixed bound; the results file of ${path.basename(file)})`);
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A results_<date>.json beside an lm-eval samples file, from the same run (same date id), when there is one. */
function lmEvalResults(file: string): Record<string, unknown> | undefined {
  const { date } = lmEvalFileName(file);
  if (date === null) return undefined;
  const results = path.join(path.dirname(file), `results_${date}.json`);
  return fs.existsSync(results) ? readResultsJson(results, file) : undefined;
}

/** The first line of a file's bytes, and whether it is whole: a line longer than the first MiB is judged by its start. */
function firstLineOf(bytes: Buffer): { line: string; whole: boolean } {
  const end = bytes.indexOf(10);
  const stop = end < 0 ? bytes.length : end;
  return stop <= 1 << 20 ? { line: bytes.subarray(0, stop).toString('utf8').replace(/\r$/, ''), whole: true } : { line: bytes.subarray(0, 4096).toString('utf8'), whole: false };
}

/**
 * The results_<date>.json of a lighteval details file's run: lighteval writes OUT/details/<model>/<date>/details_<task>_<date>.parquet
 * and OUT/results/<model>/results_<date>.json, so the results file is found by going up to the details/ folder.
 */
function lightevalResults(file: string): Record<string, unknown> | undefined {
  const { date } = lightevalFileName(file);
  if (date === null) return undefined;
  const dateFolder = path.dirname(path.resolve(file));
  for (let dir = path.dirname(dateFolder); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (path.basename(dir) !== 'details') continue;
    const results = path.join(path.dirname(dir), 'results', path.relative(dir, path.dirname(dateFolder)), `results_${date}.json`);
    return fs.existsSync(results) ? readResultsJson(results, file) : undefined;
  }
  return undefined;
}

function detectFormat(file: string, bytes: Buffer): LogFormat {
  if (bytes.subarray(0, 4).toString('latin1') === 'PAR1') return 'lighteval';
  const first = firstLineOf(bytes);
  if (looksLikeLmEvalSamples(first.line, first.whole)) return 'lm-eval';
  // A zip (an Inspect .eval log, or one cut short: its reader says which) or a JSON object that opens like an Inspect log.
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'inspect';
  if (/^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"/.test(bytes.subarray(0, 200).toString('utf8'))) return 'inspect';
  throw new InputError(
    `${file}: not a log this version imports; expected lm-evaluation-harness samples (samples_<task>_<date>.jsonl: one JSON object per line with doc_id, doc, arguments, resps, filtered_resps) ` +
      'or an Inspect log (.eval, or .json with "version", "status", "eval" and "samples") or a lighteval details file (details_<task>_<date>.parquet)',
  );
}

/** One harness's log read from `files` (several only for lm-eval samples of one task), with each file's sha256. */
export async function readHarnessLogs(files: readonly string[], format?: LogFormat): Promise<{ log: HarnessLog; sources: { file: string; sha256: string }[] }> {
  const sources: { file: string; sha256: string }[] = [];
  const lmEval: LmEvalFile[] = [];
  const inspect: HarnessLog[] = [];
  const lighteval: HarnessLog[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readRegularBytes(file, MAX_LOG_BYTES, LOG_BOUND_ADVICE);
    } catch (e) {
      if (e instanceof InputError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new InputError(`cannot read log ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, expected a log file' : (e as Error).message}`);
    }
    const kind = format ?? detectFormat(file, bytes);
    sources.push({ file: path.resolve(file), sha256: createHash('sha256').update(bytes).digest('hex') });
    if (kind === 'lm-eval') lmEval.push({ file, text: bytes.toString('utf8'), results: lmEvalResults(file) });
    else if (kind === 'inspect') inspect.push(readInspectLog(file, bytes));
    else {
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      lighteval.push(await readLightevalDetails({ file, bytes: buffer, results: lightevalResults(file) }));
    }
  }
  const harnesses = [lmEval.length > 0 && 'lm-evaluation-harness', inspect.length > 0 && 'Inspect', lighteval.length > 0 && 'lighteval'].filter((h) => h !== false);
  if (harnesses.length > 1) throw new InputError(`the logs are of ${harnesses.length} harnesses (${harnesses.join(', ')}); import one at a time`);
  if (inspect.length > 1) throw new InputError(`${files.length} Inspect logs: import one at a time (one log holds every epoch of its task)`);
  if (lighteval.length > 1) throw new InputError(`${files.length} lighteval details files: import one at a time (one file holds every sample of its task)`);
  return { log: inspect[0] ?? lighteval[0] ?? readLmEvalSamples(lmEval), sources };
}
