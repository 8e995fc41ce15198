/**
 * Reads one run folder (manifest.json, summary.json, records.jsonl) into what the audit panel
 * shows. Only reads JSON; a torn last record line (a run stopped mid-write) is skipped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MANIFEST_FILE, readManifest, readRecords, readSummary } from '../../audit/store';
import type { RunCommandLine, RunData, RunManifest } from '../../contract';
import { MECHANISM_FILE, readMechanism } from '../../audit/mechanism';
import { failureSetOf, summarizeRun } from '../../audit/mechanism';
import { reproduceCommand } from '../../service';
import { searchSweepOf } from '../../audit/results';

/** The command behind a run; undefined when its manifest names a preset this version does not know. */
export function commandLineOf(manifest: RunManifest): RunCommandLine | undefined {
  try {
    const { command, gaps } = reproduceCommand(manifest);
    return { command, gaps };
  } catch {
    return undefined;
  }
}

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

/** A manifest's dataset path, absolute (relative paths are relative to the workspace the run was made in). */
export function datasetPathOf(p: string, folder: string): string | undefined {
  if (p === '') return undefined;
  if (path.isAbsolute(p)) return p;
  // <workspace>/.reach-audit/runs/<run>/ → <workspace>
  return path.resolve(folder, '..', '..', '..', p);
}

/**
 * The run's files, validated: a file that is there but wrong throws an InputError naming the file,
 * line and field. Missing files are normal for an unfinished run (no summary yet).
 */
export function loadRunFolder(folder: string): LoadedRun {
  const manifest = fs.existsSync(path.join(folder, MANIFEST_FILE)) ? readManifest(folder) : undefined;
  const lines = readRecords(folder);
  const summary = readSummary(folder, lines.values);
  const data: RunData = { runId: runIdOf(folder), label: manifest?.name ?? runIdOf(folder), records: lines.values };
  if (manifest) {
    data.manifest = manifest;
    const reproduce = commandLineOf(manifest);
    if (reproduce) data.reproduce = reproduce;
  }
  if (summary) data.summary = summary;
  const sweep = searchSweepOf(lines.values, manifest?.search?.c);
  if (sweep) data.searchSweep = sweep;
  const warnings = [...lines.warnings];
  // The explain accounts of the failure set, with their run table (`reach-audit explain`).
  if (manifest && fs.existsSync(path.join(folder, MECHANISM_FILE))) {
    const mechanism = readMechanism(folder);
    warnings.push(...mechanism.warnings);
    const failures = new Set(failureSetOf(lines.values, manifest).map((r) => r.id));
    const accounts = mechanism.values.filter((a) => failures.has(a.id));
    data.mechanism = { accounts, summary: summarizeRun(manifest, lines.values, accounts) };
  }
  const datasetPath = manifest ? datasetPathOf(manifest.dataset.path, folder) : undefined;
  return { folder, data, ...(datasetPath ? { datasetPath } : {}), warnings };
}
