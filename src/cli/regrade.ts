/**
 * `reach-audit regrade RUN`: grades a finished run's stored outputs again under the current rules
 * (and, if asked, other grading settings) into a new run folder, and says how many verdicts
 * changed. No model runs: the outputs are the run's own.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError, warn } from './command';
import { parseFlagsAndFolders } from './flags';
import { readGrading, readThinking } from './grade';
import { readBenchmark, ANSWER_FORMATS, type AnswerFormat, type Question } from '../audit/dataset';
import { emptyRegradeCounts, regradeRecord } from '../audit/runner';
import { loggedDataset } from '../audit/imports';
import { readHarnessLogs } from '../service';
import { checkRecordSet, recordsVsDataset, FAILURE_SET_FILE, MANIFEST_FILE, prepareRunFolder, readManifest, readRecords, RECORDS_FILE, SUMMARY_FILE, writeFileAtomic, writeJson, writeManifest } from '../audit/store';
import { summarize } from '../audit/results';
import { formatSummary } from '../audit/report';
import { CORRECT_BY, DEFAULT_GRADING, DEFAULT_THINKING, TRUNCATED_RULES } from '../audit/answers';

const help = [
  'Usage: reach-audit regrade RUN_FOLDER [--out FOLDER] [--grade-truncated R] [--correct-by V] [--thinking-markers OPEN,CLOSE] [--data FILE] [--pattern REGEX]',
  '',
  "Grades every stored output of a run again with today's grading rules (docs/design/grading.md)",
  'and writes the result as a new run folder (manifest, records, summary); the original is not',
  'touched. Prints how many verdicts changed: outputs, realized questions, reachable questions per',
  'probe. Reachable, the answer-blind selections and the failure set follow the new verdicts. The',
  'repair scan stores answers, not outputs, and was run for the old failure set: its verdicts are',
  'kept as they were, read for the membership they were measured for, and marked stale (the new',
  "run's summary says so, with how the failure set moved); audit again with --repair to measure it.",
  '',
  'Options:',
  '  --out FOLDER          the new run folder (default: RUN_FOLDER-regraded beside it)',
  `  --grade-truncated R   ${TRUNCATED_RULES.join('|')} (default ${DEFAULT_GRADING.truncated})`,
  `  --correct-by V        ${CORRECT_BY.join('|')} (default ${DEFAULT_GRADING.correctBy})`,
  "  --thinking-markers OPEN,CLOSE  a reasoning model's thought markers (default: the run's, else",
  "                        '<think>,</think>'); prints how many outputs were read after a thought and",
  '                        how many were cut while thinking (not graded as answers)',
  '  --data FILE           the dataset, when it moved (choice runs need its choices); its content must',
  "                        match the run's. An imported run's questions are read from its log: --data LOG",
  '                        when the log moved',
  '  --pattern REGEX       the prediction pattern of a regex-format run',
].join('\n');

export const regradeCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, {
      out: { type: 'string' },
      'grade-truncated': { type: 'string' },
      'correct-by': { type: 'string' },
      'thinking-markers': { type: 'string' },
      data: { type: 'string' },
      pattern: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('expected one run folder: reach-audit regrade RUN_FOLDER');
    const run = positionals[0];
    if (!fs.existsSync(run) || !fs.statSync(run).isDirectory()) throw new UsageError(`${run}: no such folder`);
    const manifest = readManifest(run);
    // Its attempts stopped at the first correct one under the old rules: under new rules the stop would have fallen elsewhere.
    if (manifest.untilReached) throw new UsageError(`${run} was audited with --until-reached: each probe stopped at its first correct attempt under the grading it ran with, so regrading its partial pools would not give the run the new rules make; audit again instead`);
    // The run's markers, and whether its prompt opened the thought, unless other markers are given.
    const stored = manifest.grading?.thinking;
    const given = readThinking(values);
    const thinking = given ? { ...given, startsInThought: stored?.startsInThought ?? false } : stored;
    const grading = { ...readGrading(values), ...(thinking ? { thinking } : {}) };
    const markers = thinking ?? DEFAULT_THINKING;
    const format = manifest.dataset?.format as AnswerFormat | undefined;
    if (!format || !(ANSWER_FORMATS as readonly string[]).includes(format)) throw new UsageError(`${path.join(run, MANIFEST_FILE)}: field "dataset.format" is ${JSON.stringify(format)}; expected one of ${ANSWER_FORMATS.join(', ')}`);
    if (format === 'regex' && !values.pattern) throw new UsageError(`${run} is a regex-format run: give its prediction pattern with --pattern REGEX`);

    // Choice questions need their choices, which live in the dataset, not in the records.
    // A --data FILE is always checked against the run (another file, or another format, is refused).
    const byId = new Map<string, Question>();
    let datasetFile: string | undefined;
    if (format === 'choice' || values.data !== undefined) {
      const file = values.data ?? manifest.dataset.path;
      if (!fs.existsSync(file)) throw new UsageError(`${file}: the run's ${manifest.imported ? 'log' : 'dataset'} is not there; give it with --data ${manifest.imported ? 'LOG' : 'FILE'}`);
      // An imported run's questions are the rows its log holds: read from the log again (several lm-eval files: all of them).
      const imported = manifest.imported;
      const logFiles = values.data !== undefined ? [values.data] : (imported?.sources.map((s) => s.file) ?? []);
      const dataset = imported ? loggedDataset((await readHarnessLogs(logFiles)).log, logFiles.join(', '), format) : await readBenchmark(file, { format, split: manifest.dataset.split });
      if (dataset.contentHash !== manifest.dataset.contentHash) throw new UsageError(`${file}: not the ${imported ? 'log this run imported' : 'dataset this run audited'} (its content hash differs from ${MANIFEST_FILE}'s)`);
      for (const q of dataset.questions) byId.set(q.id, q);
      datasetFile = file;
    }

    const { values: records, warnings } = readRecords(run);
    for (const w of warnings) warn(w);
    checkRecordSet(run, manifest, records, fs.existsSync(path.join(run, SUMMARY_FILE)));
    if (datasetFile !== undefined) {
      const problems = recordsVsDataset(path.join(run, RECORDS_FILE), datasetFile, records, [...byId.values()]);
      if (problems.length > 0) throw new UsageError(`the records do not match the dataset (the records were edited, or this is another dataset) —\n  ${problems.slice(0, 10).join('\n  ')}`);
    }
    if (records.length === 0) throw new UsageError(`${path.join(run, RECORDS_FILE)}: no finished question to regrade`);
    const counts = emptyRegradeCounts();
    const referenceProbes = manifest.repair?.referenceProbes ?? [];
    const out = records.map((r) => {
      const known = byId.get(r.id);
      if (format === 'choice' && !known) throw new UsageError(`${path.join(run, RECORDS_FILE)}: question ${JSON.stringify(r.id)} is not in the dataset`);
      const q: Question = known ?? { id: r.id, line: r.line, schema: 'generic', format, text: r.question, gold: r.gold, raw: {}, ...(values.pattern ? { pattern: values.pattern } : {}) };
      return regradeRecord(r, { ...q, gold: r.gold }, grading, counts, referenceProbes);
    });

    const folder = values.out ?? `${run.replace(/[\\/]+$/, '')}-regraded`;
    if (fs.existsSync(path.join(folder, MANIFEST_FILE))) throw new UsageError(`${folder} already holds a run; choose another --out`);
    prepareRunFolder(folder);
    writeManifest(folder, { ...manifest, name: `${manifest.name}-regraded`, createdAt: new Date().toISOString(), grading, regradedFrom: path.resolve(run) });
    writeFileAtomic(path.join(folder, RECORDS_FILE), out.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // The failure set of the new verdicts, in the audit's own form and order (records' order).
    const members = out.filter((r) => r.repair?.inFailureSet).map((r) => ({ id: r.id, reachableBy: referenceProbes.filter((p) => r.reachable[p]) }));
    if (counts.staleRepair > 0) writeFileAtomic(path.join(folder, FAILURE_SET_FILE), members.map((m) => JSON.stringify(m) + '\n').join(''));
    const summary = summarize(out);
    writeJson(folder, SUMMARY_FILE, summary);

    const reach = Object.entries(counts.reachable).map(([p, n]) => `${p} ${n}`).join(', ');
    process.stderr.write(
      `reach-audit: regraded ${records.length} questions (${counts.outputs} outputs) into ${folder}: ${counts.changed} verdicts changed; ` +
        `realized changed on ${counts.realized} questions; reachable changed on ${reach || 'none'}.\n`,
    );
    const read = counts.read;
    process.stderr.write(
      `reach-audit: read ${counts.outputs - read.afterThought - read.unfinishedThought} outputs whole, ${read.afterThought} after their thought (${markers.open}…${markers.close}); ` +
        `${read.unfinishedThought} cut while thinking (the thought never closed: no answer read).\n`,
    );
    if (counts.staleRepair > 0) {
      const f = counts.failureSet;
      process.stderr.write(
        `reach-audit: failure set recomputed: ${f.before} -> ${f.after} questions (${f.joined} joined, ${f.left} left). ` +
          `The repair scan is STALE: its verdicts were measured for the failure set before regrading, under the old grading; ` +
          `its rates are of that set. Audit again with --repair to measure repair on the new one.\n`,
      );
    }
    process.stdout.write(formatSummary(summary, `${manifest.name} — regraded`) + '\n');
    return 0;
  },
};
