/**
 * Export Results as an HTML report: the page `reach-audit report RUN --html FILE` writes (every rate
 * with its n and interval, the charts, the question table; self-contained), from the editor. A run
 * that is the trained side of a stored comparison gets the comparison's report, as the panel shows
 * it against its base.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { comparisonReportHtml, runReportHtml } from '../../audit/report';
import { loadRun, readRecords } from '../../audit/store';
import { latestComparisonOf } from './comparisonLookup';

/** The HTML report of a run folder (or of the comparison it is the trained run of). */
export function htmlReportOf(runDir: string): string {
  const comparison = latestComparisonOf(runDir);
  if (comparison) {
    const records = (f: string) => (fs.existsSync(f) ? readRecords(f).values : []);
    return comparisonReportHtml(comparison, records(comparison.base.folder), records(comparison.tuned.folder));
  }
  const run = loadRun(runDir);
  const total = run.manifest.dataset?.questions ?? run.records.values.length;
  const unfinished = run.finished ? undefined : { done: run.records.values.length, total };
  return runReportHtml({ name: run.manifest.name ?? path.basename(runDir), model: run.manifest.model?.path ?? '?', dataset: run.manifest.dataset?.path ?? '?', summary: run.summary, records: run.records.values, unfinished });
}

/** Writes the report to `file`; returns it. */
export function writeHtmlExport(runDir: string, file: string): string {
  fs.writeFileSync(file, htmlReportOf(runDir));
  return file;
}
