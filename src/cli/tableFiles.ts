/**
 * Loading runs and comparisons for the cross-run tables and the trajectory, and writing the
 * tables' files (CSV per table, Markdown, HTML), each failure naming the folder or file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError, warn } from './command';
import { loadRun, readComparison } from '../audit/run/comparisonStore';
import { comparisonMismatches } from '../audit/run/manifest';
import type { ComparisonForTables, RunForTables } from '../audit/results/tables';
import { tableCsv, tablesHtml, tablesMarkdown, type TableView } from '../audit/report/tablesReport';
import type { Html } from '../audit/report/safeHtml';

export function loadRunForTables(folder: string): RunForTables {
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new UsageError(`${folder}: no such run folder`);
  const run = loadRun(folder);
  for (const w of run.records.warnings) warn(w);
  if (!run.finished) warn(`${folder} has not finished (${run.records.values.length} of ${run.manifest.dataset?.questions ?? '?'} questions); using the finished questions`);
  return {
    folder: path.resolve(folder),
    model: path.basename(run.manifest.model.path),
    dataset: path.basename(run.manifest.dataset.path),
    seed: run.manifest.seeds.run,
    records: run.records.values,
  };
}

/** Run folders and comparison folders given on the command line: every run once, every pair checked. */
export function loadSources(folders: readonly string[]): { runs: RunForTables[]; comparisons: ComparisonForTables[] } {
  const runs = new Map<string, RunForTables>();
  const comparisons: ComparisonForTables[] = [];
  const problems: string[] = [];
  const run = (folder: string) => {
    const key = path.resolve(folder);
    if (!runs.has(key)) runs.set(key, loadRunForTables(folder));
    return runs.get(key)!;
  };
  for (const folder of folders) {
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new UsageError(`${folder}: no such run or comparison folder`);
    const stored = readComparison(folder);
    if (!stored) {
      run(folder);
      continue;
    }
    const base = run(stored.base.folder);
    const tuned = run(stored.tuned.folder);
    // The pair as it is on disk now, checked as compare checks it.
    const mismatches = comparisonMismatches(loadRun(base.folder).manifest, loadRun(tuned.folder).manifest);
    if (mismatches.length > 0) problems.push(`${folder}: its runs do not match —\n    ${mismatches.join('\n    ')}`);
    comparisons.push({ folder: path.resolve(folder), dataset: base.dataset, base, tuned });
  }
  if (problems.length > 0) throw new UsageError(`cannot build the tables:\n  ${problems.join('\n  ')}`);
  return { runs: [...runs.values()], comparisons };
}

function write(flag: string, file: string, text: string): string {
  const target = path.resolve(file);
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  } catch (err) {
    throw new UsageError(`${flag} ${file}: cannot write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return target;
}

/** --csv F writes F for one table; for several, F with the table's id before the extension. */
export function writeTableFiles(views: readonly TableView[], files: { csv?: string; md?: string; html?: string }, title: string, charts: Html[] = []): string[] {
  const written: string[] = [];
  if (files.csv) {
    for (const v of views) {
      const file = views.length === 1 ? files.csv : files.csv.replace(/(\.csv)?$/i, `.${v.id}.csv`);
      written.push(write('--csv', file, tableCsv(v)));
    }
  }
  if (files.md) written.push(write('--md', files.md, `## ${title}\n\n${tablesMarkdown(views)}`));
  if (files.html) written.push(write('--html', files.html, tablesHtml(title, views, charts)));
  return written;
}
