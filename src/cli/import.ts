/**
 * `reach-audit import LOG... --out RUN`: an evaluation harness's log (lm-evaluation-harness
 * samples) becomes a run folder like any other: realized from the log's outputs graded by Reach
 * Audit's rules, repeats as the sample probe, the harness's own readings kept beside ours. The folder
 * is written whole or not at all.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError } from './command';
import { InputError, readRegularBytes, readRegularText } from '../common';
import { parseFlagsAndFolders } from './flags';
import { readGrading } from './grade';
import { ANSWER_FORMATS, type AnswerFormat } from '../audit/dataset';
import { importedRun, lightevalFileName, readLightevalDetails, lmEvalFileName, looksLikeLmEvalSamples, readInspectLog, readLmEvalSamples, type HarnessLog, type LmEvalFile } from '../audit/imports';
import { MANIFEST_FILE, RECORDS_FILE, SUMMARY_FILE, newRunFolder } from '../audit/store';
import { summarize } from '../audit/results';
import { formatSummary } from '../audit/report';
import { CORRECT_BY, DEFAULT_GRADING, TRUNCATED_RULES } from '../audit/answers';

const LOG_FORMATS = ['lm-eval', 'inspect', 'lighteval'] as const;
type LogFormat = (typeof LOG_FORMATS)[number];

const help = [
  'Usage: reach-audit import LOG... [--out FOLDER] [--name NAME] [--format F] [--answer-format F]',
  '                          [--correct-by V] [--grade-truncated R]',
  '',
  "Turns an evaluation harness's log into a run folder without running a model: lm-evaluation-harness",
  '`--log_samples` files (samples_<task>_<date>.jsonl; several files of one task are read together), or',
  'an Inspect log (.eval, flat or chunked samples, or .json; its epochs are the repeats).',
  "Each question's gold is read from the logged benchmark row; its first output is the deployment's",
  "(realized), graded by Reach Audit's rules; several outputs per question (repeats) are the sample",
  "probe, with pass@k. The harness's own extraction and score are kept beside ours in each record",
  '(field "harness"). The manifest names the log (path and sha256), the harness and its version, the',
  'model and the generation settings as the log states them, and what the log cannot say. report,',
  'compare (--base-run/--tuned-run) and table read the folder like any run.',
  '',
  'Options:',
  '  --out FOLDER          the run folder (default .reach-audit/runs/<time>-<name>); must not hold a run',
  '  --name NAME           run name (default <task>-imported)',
  `  --format F            the log's format: ${LOG_FORMATS.join(', ')} (default: detected from the file)`,
  `  --answer-format F     answer format: auto (default, from the logged rows), ${ANSWER_FORMATS.join(', ')}`,
  `  --correct-by V        ${CORRECT_BY.join('|')} (default ${DEFAULT_GRADING.correctBy})`,
  `  --grade-truncated R   ${TRUNCATED_RULES.join('|')} (default ${DEFAULT_GRADING.truncated})`,
].join('\n');

/** The largest log file read (an lm-eval samples file or an Inspect log of a whole benchmark). */
const MAX_LOG_BYTES = 512 * 1024 * 1024;

/** A results_<date>.json beside an lm-eval samples file, from the same run (same date id), when there is one. */
function resultsBeside(file: string): Record<string, unknown> | undefined {
  const { date } = lmEvalFileName(file);
  if (date === null) return undefined;
  const results = path.join(path.dirname(file), `results_${date}.json`);
  if (!fs.existsSync(results)) return undefined;
  return readResultsJson(results, file);
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
    if (!fs.existsSync(results)) return undefined;
    return readResultsJson(results, file);
  }
  return undefined;
}

function readResultsJson(results: string, file: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readRegularText(results, MAX_LOG_BYTES));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    throw new UsageError(`${results}: not valid JSON (the results file of ${path.basename(file)})`);
  }
}

function detectFormat(file: string, bytes: Buffer): LogFormat {
  if (bytes.subarray(0, 4).toString('latin1') === 'PAR1') return 'lighteval';
  if (looksLikeLmEvalSamples(bytes.subarray(0, 1 << 20).toString('utf8'))) return 'lm-eval';
  // A zip (an Inspect .eval log, or one cut short: its reader says which) or a JSON object that opens like an Inspect log.
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'inspect';
  if (/^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"/.test(bytes.subarray(0, 200).toString('utf8'))) return 'inspect';
  throw new UsageError(
    `${file}: not a log this version imports; expected lm-evaluation-harness samples (samples_<task>_<date>.jsonl: one JSON object per line with doc_id, doc, arguments, resps, filtered_resps) ` +
      'or an Inspect log (.eval, or .json with "version", "status", "eval" and "samples") or a lighteval details file (details_<task>_<date>.parquet)',
  );
}

/** Writes the run into a fresh folder beside `out`, then moves it into place: a failure leaves nothing. */
function writeRunWhole(out: string, files: Record<string, string>): void {
  if (fs.existsSync(path.join(out, MANIFEST_FILE))) throw new UsageError(`${out} already holds a run; choose another --out`);
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0) throw new UsageError(`${out} is not empty; choose another --out`);
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(path.resolve(out)), `.${path.basename(out)}.importing-`));
  try {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(staging, name), text);
    if (fs.existsSync(out)) fs.rmdirSync(out);
    fs.renameSync(staging, out);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

export const importCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, {
      out: { type: 'string' },
      name: { type: 'string' },
      format: { type: 'string' },
      'answer-format': { type: 'string' },
      'correct-by': { type: 'string' },
      'grade-truncated': { type: 'string' },
    });
    if (positionals.length === 0) throw new UsageError('expected one or more log files: reach-audit import LOG... --out FOLDER');
    if (values.format !== undefined && !(LOG_FORMATS as readonly string[]).includes(values.format)) throw new UsageError(`--format ${values.format}: expected one of ${LOG_FORMATS.join(', ')}`);
    const answerFormat = values['answer-format'] ?? 'auto';
    if (answerFormat !== 'auto' && !(ANSWER_FORMATS as readonly string[]).includes(answerFormat)) throw new UsageError(`--answer-format ${answerFormat}: expected auto, ${ANSWER_FORMATS.join(', ')}`);
    const grading = readGrading(values);

    const sources: { file: string; sha256: string }[] = [];
    const lmEval: LmEvalFile[] = [];
    const inspect: HarnessLog[] = [];
    const lighteval: HarnessLog[] = [];
    for (const file of positionals) {
      let bytes: Buffer;
      try {
        bytes = readRegularBytes(file, MAX_LOG_BYTES);
      } catch (e) {
        if (e instanceof InputError) throw e;
        const code = (e as NodeJS.ErrnoException).code;
        throw new UsageError(`cannot read log ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, expected a log file' : (e as Error).message}`);
      }
      const format = (values.format as LogFormat | undefined) ?? detectFormat(file, bytes);
      sources.push({ file: path.resolve(file), sha256: createHash('sha256').update(bytes).digest('hex') });
      if (format === 'lm-eval') lmEval.push({ file, text: bytes.toString('utf8'), results: resultsBeside(file) });
      else if (format === 'inspect') inspect.push(readInspectLog(file, bytes));
      else {
        const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
        lighteval.push(await readLightevalDetails({ file, bytes: buffer, results: lightevalResults(file) }));
      }
    }
    const harnesses = [lmEval.length > 0 && 'lm-evaluation-harness', inspect.length > 0 && 'Inspect', lighteval.length > 0 && 'lighteval'].filter((h) => h !== false);
    if (harnesses.length > 1) throw new UsageError(`the logs are of ${harnesses.length} harnesses (${harnesses.join(', ')}); import one at a time`);
    if (inspect.length > 1) throw new UsageError(`${positionals.length} Inspect logs: import one at a time (one log holds every epoch of its task)`);
    if (lighteval.length > 1) throw new UsageError(`${positionals.length} lighteval details files: import one at a time (one file holds every sample of its task)`);
    const log: HarnessLog = inspect[0] ?? lighteval[0] ?? readLmEvalSamples(lmEval);
    const name = values.name ?? `${log.task}-imported`;
    const { manifest, records } = importedRun(log, { name, createdAt: new Date().toISOString(), sources, format: answerFormat as AnswerFormat | 'auto', grading });
    const summary = summarize(records);
    const out = values.out ?? newRunFolder(process.cwd(), name, new Date());
    writeRunWhole(out, {
      [MANIFEST_FILE]: JSON.stringify(manifest, null, 2) + '\n',
      [RECORDS_FILE]: records.map((r) => JSON.stringify(r)).join('\n') + '\n',
      [SUMMARY_FILE]: JSON.stringify(summary, null, 2) + '\n',
    });
    process.stderr.write(`reach-audit: imported ${records.length} questions from ${positionals.length} ${log.tool} log${positionals.length === 1 ? '' : 's'} into ${out}\n`);
    process.stdout.write(formatSummary(summary, `${name} — imported from ${log.tool}`) + '\n');
    return 0;
  },
};
