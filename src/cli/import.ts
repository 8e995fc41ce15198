/**
 * `reach-audit import LOG... --out RUN`: an evaluation harness's log (lm-evaluation-harness
 * samples, an Inspect log, a lighteval details file) becomes a run folder like any other: realized from the log's outputs graded by Reach
 * Audit's rules, repeats as the sample probe, the harness's own readings kept beside ours. The folder
 * is written whole or not at all.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createFolder, describeFsError } from '../common';
import type { QuestionRecord } from '../contract';
import type { Command } from './command';
import { UsageError } from './command';
import { parseFlagsAndFolders } from './flags';
import { readGrading } from './grade';
import { ANSWER_FORMATS, type AnswerFormat } from '../audit/dataset';
import { importedRun } from '../audit/imports';
import { LOG_FORMATS, readHarnessLogs, type LogFormat } from '../service';
import { MANIFEST_FILE, MAX_RUN_LINE_BYTES, RECORDS_FILE, SUMMARY_FILE, newRunFolder } from '../audit/store';
import { summarize } from '../audit/results';
import { formatSummary } from '../audit/report';
import { CORRECT_BY, DEFAULT_GRADING, TRUNCATED_RULES } from '../audit/answers';

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

/** Why `out` cannot become the run folder, or null when it can (missing, or an empty folder). */
function outProblem(out: string): string | null {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(out);
  } catch {
    stat = undefined;
  }
  if (stat?.isSymbolicLink()) return `${out} is a symbolic link; the run folder is moved into place whole, so --out must name a folder, or a path where none is yet`;
  if (stat && !stat.isDirectory()) return `${out} is a file, not a folder`;
  if (stat && fs.existsSync(path.join(out, MANIFEST_FILE))) return `${out} already holds a run`;
  if (stat && fs.readdirSync(out).length > 0) return `${out} is not empty`;
  // A path under a file (the log itself, say) cannot be made.
  for (let at = path.dirname(path.resolve(out)); path.dirname(at) !== at; at = path.dirname(at)) {
    let up: fs.Stats;
    try {
      up = fs.statSync(at);
    } catch {
      continue;
    }
    if (!up.isDirectory()) return `${at} is a file, so ${out} cannot be a folder under it`;
    break;
  }
  return null;
}

/** A records.jsonl line per record, each within the line bound every command reads records with: an import never writes a run that cannot be read back. */
function recordLines(records: readonly QuestionRecord[], where: (record: QuestionRecord) => string): string[] {
  return records.map((r) => {
    let line: string;
    try {
      line = JSON.stringify(r);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      line = '';
    }
    const bytes = line === '' ? Infinity : Buffer.byteLength(line);
    if (bytes > MAX_RUN_LINE_BYTES) {
      throw new UsageError(
        `${where(r)}: question ${r.id}: its record would be ${bytes === Infinity ? 'longer than JavaScript can hold' : `${bytes} bytes`}, over the ${MAX_RUN_LINE_BYTES}-byte line that report, regrade and compare read ` +
          '(a fixed bound); its logged outputs are too long to import. Nothing was written',
      );
    }
    return line;
  });
}

/** Writes the run into a fresh folder beside `out`, then moves it into place: a failure leaves nothing. */
function writeRunWhole(out: string, files: Record<string, string | readonly string[]>): void {
  const problem = outProblem(out);
  if (problem) throw new UsageError(`--out ${out}: ${problem}; choose another --out`);
  createFolder(path.dirname(path.resolve(out)), 'the run folder');
  const staging = fs.mkdtempSync(path.join(path.dirname(path.resolve(out)), `.${path.basename(out)}.importing-`));
  try {
    for (const [name, text] of Object.entries(files)) {
      if (typeof text === 'string') {
        fs.writeFileSync(path.join(staging, name), text);
        continue;
      }
      // Line by line: all the records together may be longer than one JavaScript string.
      const fd = fs.openSync(path.join(staging, name), 'w');
      try {
        for (const line of text) fs.writeSync(fd, line + '\n');
      } finally {
        fs.closeSync(fd);
      }
    }
    if (fs.existsSync(out)) fs.rmdirSync(out);
    fs.renameSync(staging, out);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code;
    // Another import (or anything else) filled --out between the check and the move.
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw new UsageError(`--out ${out}: something else was written there while this import ran (${outProblem(out) ?? 'it changed'}); nothing of this import was kept; choose another --out`);
    if (typeof code === 'string') throw new UsageError(`cannot write the run folder ${out}: ${describeFsError(err)}; nothing of this import was kept`);
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

    const { log, sources } = await readHarnessLogs(positionals, values.format as LogFormat | undefined);
    const name = values.name ?? `${log.task}-imported`;
    const { manifest, records } = importedRun(log, { name, createdAt: new Date().toISOString(), sources, format: answerFormat as AnswerFormat | 'auto', grading });
    const summary = summarize(records);
    const out = values.out ?? newRunFolder(process.cwd(), name, new Date());
    writeRunWhole(out, {
      [MANIFEST_FILE]: JSON.stringify(manifest, null, 2) + '\n',
      [RECORDS_FILE]: recordLines(records, (r) => log.questions.find((q) => q.position === r.line)?.where ?? positionals.join(', ')),
      [SUMMARY_FILE]: JSON.stringify(summary, null, 2) + '\n',
    });
    process.stderr.write(`reach-audit: imported ${records.length} questions from ${positionals.length} ${log.tool} log${positionals.length === 1 ? '' : 's'} into ${out}\n`);
    process.stdout.write(formatSummary(summary, `${name} — imported from ${log.tool}`) + '\n');
    return 0;
  },
};
