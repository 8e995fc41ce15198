/**
 * `reach-audit report RUN`: a run's (or a comparison's) summary in the terminal — every rate with
 * its n and 95% interval — and, with --html FILE, a self-contained HTML report with the charts.
 * An unfinished run is summarized from the questions finished so far.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { parseFlagsAndFolders } from './flags';
import { UsageError, warn } from './command';
import { writeHtmlReport } from './reportFiles';
import { loadRun, readComparison, readRecords } from '../audit/store';
import { comparisonReportHtml, runReportHtml, formatComparison, formatSummary, kvCacheFidelityText, retentionTableLines } from '../audit/report';
import { reproduceCommand } from '../service';
import type { RunManifest } from '../contract';

/** The command that audits the run again, and what it cannot carry; nothing for a manifest too old or too partial to say. */
function reproduceLines(manifest: RunManifest): string {
  try {
    const r = reproduceCommand(manifest);
    return ['', 'Run again with:', `  ${r.command}`, ...r.gaps.map((g) => `  (not in the command: ${g})`)].join('\n') + '\n';
  } catch {
    return '';
  }
}

const help = [
  'Usage: reach-audit report RUN [--html FILE] [--json]',
  '',
  'Prints the summary of a run folder (or of a comparison folder written by `compare`): every rate',
  'with its n and Wilson 95% interval, pass@k (Wilson where each question counts 0 or 1, else a',
  'percentile bootstrap), answer-blind accuracy, the repair analysis and the budget. Every interval',
  'and test names its method; docs/design/statistics.md "Calibration" has each method\'s measured coverage or size.',
  '',
  'Options:',
  '  --html FILE   write a self-contained HTML report with the charts (no remote resources)',
  '  --json        print summary.json (or comparison.json) on stdout',
].join('\n');

export const reportCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, { html: { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected one run folder: reach-audit report RUN [--html FILE]');
    const folder = positionals[0];
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new UsageError(`${folder}: no such run folder`);

    const comparison = readComparison(folder);
    if (comparison) {
      if (values.html) {
        const records = (f: string) => (fs.existsSync(f) ? readRecords(f).values : []);
        const file = writeHtmlReport(values.html, comparisonReportHtml(comparison, records(comparison.base.folder), records(comparison.tuned.folder)));
        process.stderr.write(`reach-audit: HTML report ${file}\n`);
      }
      if (values.json) process.stdout.write(JSON.stringify(comparison, null, 2) + '\n');
      else process.stdout.write([formatSummary(comparison.base.summary, `Base — ${comparison.base.name}`), '', formatSummary(comparison.tuned.summary, `Tuned — ${comparison.tuned.name}`), '', formatComparison(comparison.comparison), ...retentionTableLines([{ label: 'base', summary: comparison.base.summary }, { label: 'tuned', summary: comparison.tuned.summary }])].join('\n') + '\n');
      return 0;
    }

    const run = loadRun(folder);
    for (const w of run.records.warnings) warn(w);
    const total = run.manifest.dataset?.questions ?? run.records.values.length;
    const unfinished = run.finished ? undefined : { done: run.records.values.length, total };
    if (unfinished) warn(`${folder} has not finished: ${unfinished.done} of ${unfinished.total} questions; the summary covers the finished ones`);
    if (values.html) {
      const file = writeHtmlReport(
        values.html,
        runReportHtml({ name: run.manifest.name ?? path.basename(folder), model: run.manifest.model?.path ?? '?', dataset: run.manifest.dataset?.path ?? '?', summary: run.summary, records: run.records.values, unfinished }),
      );
      process.stderr.write(`reach-audit: HTML report ${file}\n`);
    }
    if (values.json) process.stdout.write(JSON.stringify(run.summary, null, 2) + '\n');
    else {
      const kvCache = kvCacheFidelityText(run.manifest.engine);
      process.stdout.write(formatSummary(run.summary, `Reach Audit — ${run.manifest.name ?? path.basename(folder)}`) + '\n' + (kvCache ? `\n${kvCache}\n` : '') + reproduceLines(run.manifest));
    }
    return 0;
  },
};
