/**
 * Runs and comparisons for the cross-run tables and the trajectory (src/audit reads them; a
 * problem becomes a usage error), and writing the tables' files (CSV per table, Markdown, HTML),
 * each failure naming the folder or file.
 */
import { UsageError, warn } from './command';
import { writeOutputFile } from './reportFiles';
import type { ComparisonForTables, RunForTables } from '../audit/results';
import { loadRunForTables as loadRun, loadTableSources, TableSourceError, type SourceOptions } from '../audit/store';
import { tableCsv, tablesHtml, tablesMarkdown, type TableView, type Html } from '../audit/report';

/** A source problem is the user's to fix: a usage error (message, no stack trace). */
function asUsage<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof TableSourceError) throw new UsageError(err.message);
    throw err;
  }
}

export function loadRunForTables(folder: string, options: SourceOptions = {}): RunForTables {
  return asUsage(() => loadRun(folder, warn, options));
}

/** Run folders and comparison folders given on the command line: every run once, every pair checked. */
export function loadSources(folders: readonly string[], options: SourceOptions = {}): { runs: RunForTables[]; comparisons: ComparisonForTables[] } {
  return asUsage(() => loadTableSources(folders, warn, options));
}

function write(flag: string, file: string, text: string): string {
  return writeOutputFile(flag, file, text);
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
