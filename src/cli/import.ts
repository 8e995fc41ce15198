/**
 * `reach-audit import LOG... --out RUN`: an evaluation harness's log (lm-evaluation-harness
 * samples, an Inspect log, a lighteval details file) becomes a run folder like any other: realized from the log's outputs graded by Reach
 * Audit's rules, repeats as the sample probe, the harness's own readings kept beside ours. The folder
 * is written whole or not at all.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError } from './command';
import { parseFlagsAndFolders } from './flags';
import { readGrading } from './grade';
import { ANSWER_FORMATS, type AnswerFormat } from '../audit/dataset';
import { importedRun } from '../audit/imports';
import { LOG_FORMATS, readHarnessLogs, type LogFormat } from '../service';
import { MANIFEST_FILE, RECORDS_FILE, SUMMARY_FILE, newRunFolder } from '../audit/store';
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

    const { log, sources } = await readHarnessLogs(positionals, values.format as LogFormat | undefined);
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
