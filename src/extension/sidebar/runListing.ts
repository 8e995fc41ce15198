/**
 * Finds the runs of a workspace (`.reach-audit/runs/<time>-<name>/`, docs/design/data-in-data-out.md) and reads
 * what the Runs view shows of each: name, start time, manifest facts and the summary headline.
 * Only reads JSON files; it never executes anything found in a run folder.
 */
import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { validateManifest, validateSummary, readRecords } from '../../audit/store';
import { commandLineOf } from '../panel/runData';
import { isObject, runRates } from '../../contract';
import { runHeadline, type RunHeadline } from './runHeadline';

/** Where runs live inside a workspace folder. */
export const RUNS_FOLDER = path.join('.reach-audit', 'runs');

export interface RunEntry {
  /** Absolute path of the run folder. */
  folder: string;
  /** The run's name: manifest `name` when given, else the folder name without its time prefix. */
  name: string;
  /** manifest `createdAt`, else the time prefix of the folder name as written. */
  startedAt?: string;
  model?: string;
  dataset?: string;
  /**
   * From summary.json once the run has written it; before that (running, cancelled, stopped) from
   * the finished records, as the panel computes them. Absent when neither can be read.
   */
  headline?: RunHeadline;
  /** summary.json is there: the run finished. */
  finished: boolean;
  /** Lines in records.jsonl: the questions finished so far. */
  recordedQuestions: number;
  /** What is wrong with the run's files, worded for the user. */
  problems: string[];
  /** The `reach-audit audit` line that audits the run again (absent without a valid manifest). */
  command?: string;
  /** Listed from a folder opened with Open Run Folder…, outside the workspace's runs. */
  outside?: true;
  /** What the run ran, from its manifest: "routes:16, search:16 · repair scan · depth probe". */
  ran?: string;
  /** Made by `reach-audit import` from a harness log (its manifest's `imported`): Add Probes to This Log… is offered on it. */
  imported?: true;
}

/** What a manifest says the run ran (its probes with budgets, the repair scan, the depth probe), read leniently. */
export function ranText(fields: Record<string, unknown>): string | undefined {
  const probes = Array.isArray(fields.probes)
    ? fields.probes.filter(isObject).filter((p) => typeof p.name === 'string').map((p) => (typeof p.budget === 'number' ? `${String(p.name)}:${p.budget}` : String(p.name)))
    : [];
  const parts = [probes.length > 0 ? probes.join(', ') : 'no probe'];
  if (isObject(fields.repair) && fields.repair.enabled === true) parts.push('repair scan');
  if (isObject(fields.depthProbe)) parts.push('depth probe');
  return parts.join(' · ');
}

// Leading timestamp of a run folder: 2026-12-01T09-30-00Z, 20261201-093000, 2026-12-01_09-30 …
const TIME_PREFIX = /^(\d{4}-?\d{2}-?\d{2}(?:[T_-]?\d{2}[-:.]?\d{2}(?:[-:.]?\d{2}(?:[.,]\d+)?)?Z?)?)-(.+)$/;

export function splitRunFolderName(folderName: string): { startedAt?: string; name: string } {
  const match = TIME_PREFIX.exec(folderName);
  return match ? { startedAt: match[1], name: match[2] } : { name: folderName };
}

function pathField(manifest: Record<string, unknown>, key: string): string | undefined {
  const value = manifest[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'path' in value) {
    const inner = (value as { path: unknown }).path;
    if (typeof inner === 'string') return inner;
  }
  return undefined;
}

async function readJson(file: string): Promise<{ value?: unknown; missing?: true; problem?: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
    return { problem: `${path.basename(file)}: cannot be read (${(err as Error).message})` };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { problem: `${path.basename(file)}: not valid JSON (${(err as Error).message})` };
  }
}

async function countRecords(file: string): Promise<number> {
  try {
    const text = await readFile(file, 'utf8');
    const lines = text.split('\n');
    // A torn last line (a run stopped mid-write) is not a finished question.
    if (!text.endsWith('\n')) lines.pop();
    return lines.filter((line) => line.trim() !== '').length;
  } catch {
    return 0;
  }
}

export async function readRun(folder: string): Promise<RunEntry> {
  const split = splitRunFolderName(path.basename(folder));
  const entry: RunEntry = { folder, ...split, recordedQuestions: 0, finished: false, problems: [] };

  const manifest = await readJson(path.join(folder, 'manifest.json'));
  if (manifest.problem) entry.problems.push(manifest.problem);
  else if (manifest.missing) entry.problems.push('manifest.json is missing');
  else if (isObject(manifest.value)) {
    // Only display fields are read here, leniently: the panel validates the whole manifest when it opens the run.
    const fields = manifest.value;
    if (typeof fields.name === 'string' && fields.name.trim() !== '') entry.name = fields.name;
    if (typeof fields.createdAt === 'string') entry.startedAt = fields.createdAt;
    entry.model = pathField(fields, 'model');
    entry.dataset = pathField(fields, 'dataset');
    entry.ran = ranText(fields);
    if (isObject(fields.imported)) entry.imported = true;
    try {
      entry.command = commandLineOf(validateManifest(fields, 'manifest.json'))?.command;
    } catch {
      // A manifest the panel would refuse gives no command; the panel says what is wrong with it.
    }
  } else entry.problems.push('manifest.json: expected a JSON object');

  const summary = await readJson(path.join(folder, 'summary.json'));
  if (summary.problem) entry.problems.push(summary.problem);
  else if (!summary.missing) {
    try {
      const stored = validateSummary(summary.value, 'summary.json');
      // A summary from before the ceiling included realized questions: today's ceiling from the records.
      const ceiling = stored.realizedNotReached === undefined ? { reachableAny: runRates(readRecords(folder).values).reachableAny } : {};
      entry.headline = runHeadline({ ...stored, ...ceiling });
      entry.finished = true;
    } catch (err) {
      entry.problems.push((err as Error).message);
    }
  } else {
    // No summary yet: the same numbers the panel shows for the finished questions.
    try {
      const records = readRecords(folder).values;
      if (records.length > 0) entry.headline = runHeadline(runRates(records));
    } catch (err) {
      entry.problems.push((err as Error).message);
    }
  }
  entry.recordedQuestions = await countRecords(path.join(folder, 'records.jsonl'));
  return entry;
}

/** Runs under `<workspaceFolder>/.reach-audit/runs/`, newest first (folder names start with their time). */
export async function listRuns(workspaceFolder: string): Promise<RunEntry[]> {
  const runsDir = path.join(workspaceFolder, RUNS_FOLDER);
  let names: string[];
  try {
    const dirents = await readdir(runsDir, { withFileTypes: true });
    names = dirents.filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw err;
  }
  names.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return Promise.all(names.map((name) => readRun(path.join(runsDir, name))));
}
