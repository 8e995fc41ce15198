/**
 * Reads one run folder (manifest.json, summary.json, records.jsonl) into what the audit panel
 * shows. Only reads JSON; a torn last record line (a run stopped mid-write) is skipped.
 */
import * as path from 'node:path';
import { MANIFEST_FILE, SUMMARY_FILE, readJsonFile, readRecords } from '../../audit/run/runStore';
import type { QuestionRecord } from '../../audit/run/record';
import type { AuditRecord, RunData, RunManifest, RunSummary } from '../../../webview/src/protocol';

export interface LoadedRun {
  folder: string;
  data: RunData;
  /** Absolute path of the run's dataset file, when the manifest names one. */
  datasetPath?: string;
  warnings: string[];
}

/** The id the panel and the tree use for a run: its folder's name. */
export function runIdOf(folder: string): string {
  return path.basename(folder);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The dataset path of a manifest, absolute (relative paths are relative to the workspace the run was made in). */
export function datasetPathOf(manifest: RunManifest, folder: string): string | undefined {
  const p = manifest.dataset?.path;
  if (typeof p !== 'string' || p === '') return undefined;
  if (path.isAbsolute(p)) return p;
  // <workspace>/.reach-audit/runs/<run>/ → <workspace>
  return path.resolve(folder, '..', '..', '..', p);
}

export function loadRunFolder(folder: string): LoadedRun {
  const manifestValue = readJsonFile<unknown>(path.join(folder, MANIFEST_FILE));
  const manifest: RunManifest = isObject(manifestValue) ? (manifestValue as RunManifest) : {};
  const summaryValue = readJsonFile<unknown>(path.join(folder, SUMMARY_FILE));
  const summary = isObject(summaryValue) ? (summaryValue as unknown as RunSummary) : undefined;
  const lines = readRecords(folder);
  const records = lines.values as unknown as AuditRecord[];
  return {
    folder,
    data: { runId: runIdOf(folder), label: typeof manifest.name === 'string' ? manifest.name : runIdOf(folder), manifest, ...(summary ? { summary } : {}), records },
    datasetPath: datasetPathOf(manifest, folder),
    warnings: lines.warnings,
  };
}

/** An engine record as the panel protocol types it (the panel's types are a structural copy). */
export function asPanelRecord(record: QuestionRecord): AuditRecord {
  return record;
}
