/**
 * The run folder of docs/design.md section 3: `.reach-audit/runs/<time>-<name>/` (or --out) holding
 * manifest.json (what was audited and how), records.jsonl (one line per finished question, appended
 * and flushed as it finishes), failure-set.jsonl (failure-set members, written before their repair
 * scan), summary.json (recomputable from records.jsonl) and timings.json (wall time per stage; kept
 * out of summary.json so that summaries are reproducible).
 *
 * Finished work is never lost: records are fsync'ed line by line; a torn last line (a run killed
 * mid-write) is ignored with a warning and kept aside in records.torn.txt when the run resumes;
 * summary.json and manifest.json are replaced atomically (write + rename).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError, createFolder, describeFsError } from '../../common';
import { runRates, type QuestionRecord, type RunManifest, type RunSummary } from '../../contract';
import { validateManifest, validateRecord, validateSummary } from './runFileValidation';

export const RUNS_FOLDER = path.join('.reach-audit', 'runs');
export const MANIFEST_FILE = 'manifest.json';
export const RECORDS_FILE = 'records.jsonl';
export const FAILURE_SET_FILE = 'failure-set.jsonl';
export const SUMMARY_FILE = 'summary.json';
export const TIMINGS_FILE = 'timings.json';

/** `2026-12-02T11-51-09Z`: sortable, and free of characters some file systems refuse. */
export function runTimeStamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** A run name safe as a folder-name part. */
export function safeRunName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return cleaned.slice(0, 80) || 'run';
}

export function newRunFolder(workspace: string, name: string, date: Date): string {
  return path.join(workspace, RUNS_FOLDER, `${runTimeStamp(date)}-${safeRunName(name)}`);
}

/** The newest run folder under the workspace whose name part is `name`; undefined when none. */
export function latestRunFolder(workspace: string, name: string): string | undefined {
  const dir = path.join(workspace, RUNS_FOLDER);
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const suffix = `-${safeRunName(name)}`;
  const matching = entries.filter((e) => e.endsWith(suffix) && fs.existsSync(path.join(dir, e, MANIFEST_FILE))).sort();
  return matching.length > 0 ? path.join(dir, matching[matching.length - 1]) : undefined;
}

/**
 * Writes a file atomically: a crash leaves either the old or the new content, never half of one.
 * A failed write (a full disk) removes its temporary file and throws with `path` set to `file`.
 */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    (err as NodeJS.ErrnoException).path = file;
    throw err;
  }
}

/** Creates the run folder and checks that it is writable; the message names the folder. */
export function prepareRunFolder(folder: string): void {
  createFolder(folder, 'the run folder');
  try {
    const probe = path.join(folder, `.write-test-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
  } catch (err) {
    throw new InputError(`cannot write the run folder ${folder}: ${describeFsError(err)}`);
  }
}

export function writeManifest(folder: string, manifest: RunManifest): void {
  writeFileAtomic(path.join(folder, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
}

export function readManifest(folder: string): RunManifest {
  const file = path.join(folder, MANIFEST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? `${folder} is not a Reach Audit run: ${MANIFEST_FILE} is missing` : `cannot read ${file}: ${describeFsError(err)}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected a JSON object');
    return validateManifest(value, file);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${file}: not a valid manifest (${(err as Error).message})`);
  }
}

export interface JsonLines<T> {
  values: T[];
  /** The bytes of an unterminated last line, when the file ends mid-line. */
  torn?: string;
  warnings: string[];
}

/**
 * Reads a JSON-lines file, each value through `check` (which names the line when the value is
 * wrong; without one, `T` is only what the caller expects). A last line without its newline that
 * does not parse is torn (a write cut short): ignored with a warning. A bad line anywhere else is
 * an InputError naming the line.
 */
export function readJsonLines<T>(file: string, check: (value: unknown, line: number) => T = (value) => value as T): JsonLines<T> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { values: [], warnings: [] };
    throw new InputError(`cannot read ${file}: ${describeFsError(err)}`);
  }
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const values: T[] = [];
  const warnings: string[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new InputError(`${file}:${i + 1}: not valid JSON (${(err as Error).message}); the file was edited or damaged`);
    }
    values.push(check(value, i + 1));
  });
  let torn: string | undefined;
  if (last.trim() !== '') {
    let value: unknown;
    try {
      value = JSON.parse(last);
    } catch {
      torn = last;
      warnings.push(`${file}:${lines.length + 1}: ignoring a torn last line (the run stopped while writing it)`);
    }
    // Complete JSON but no newline: keep it, and make the next append start a new line.
    if (torn === undefined) values.push(check(value, lines.length + 1));
  }
  return { values, ...(torn !== undefined ? { torn } : {}), warnings };
}

export function readRecords(folder: string): JsonLines<QuestionRecord> {
  const file = path.join(folder, RECORDS_FILE);
  return readJsonLines(file, (value, line) => validateRecord(value, file, line));
}

/**
 * summary.json of a run, validated; undefined when the run has not written one (unfinished). A
 * summary written before the ceiling included the realized questions gets today's ceiling,
 * recomputed from its records (the records hold everything it needs).
 */
export function readSummary(folder: string, records?: readonly QuestionRecord[]): RunSummary | undefined {
  const file = path.join(folder, SUMMARY_FILE);
  const value = readJsonFile(file);
  if (value === undefined) return undefined;
  const summary = validateSummary(value, file);
  if (summary.realizedNotReached !== undefined) return summary;
  // The caller's records when it has read them already (loadRun), so records.jsonl is read once.
  const rates = runRates(records ?? readRecords(folder).values);
  return { ...summary, reachableAny: rates.reachableAny, realizedNotReached: rates.realizedNotReached };
}

/**
 * Appends JSON lines, each written whole and fsync'ed before the call returns. On open it sets a
 * torn tail aside (in `<file>.torn.txt`) and makes sure the file ends with a newline, so the first
 * new line never merges into a broken one.
 */
export class JsonLinesAppender {
  private fd: number;

  constructor(readonly file: string) {
    try {
      if (fs.existsSync(file)) {
        const text = fs.readFileSync(file, 'utf8');
        const cut = text.lastIndexOf('\n') + 1;
        const tail = text.slice(cut);
        // Any leftover, even one JavaScript calls blank (a vertical tab) but JSON does not, is set aside.
        if (tail !== '') {
          let complete = true;
          try {
            JSON.parse(tail);
          } catch {
            complete = false;
          }
          if (complete) fs.appendFileSync(file, '\n');
          else {
            fs.appendFileSync(`${file}.torn.txt`, tail + '\n');
            fs.truncateSync(file, Buffer.byteLength(text.slice(0, cut), 'utf8'));
          }
        }
      }
      this.fd = fs.openSync(file, 'a');
    } catch (err) {
      throw new InputError(`cannot write ${file}: ${describeFsError(err)}`);
    }
  }

  /** Throws the file-system error with `path` set to the file (a write by descriptor names none). */
  append(value: unknown): void {
    try {
      fs.writeSync(this.fd, JSON.stringify(value) + '\n');
      fs.fsyncSync(this.fd);
    } catch (err) {
      (err as NodeJS.ErrnoException).path ??= this.file;
      throw err;
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export function writeJson(folder: string, file: string, value: unknown): void {
  writeFileAtomic(path.join(folder, file), JSON.stringify(value, null, 2) + '\n');
}

/**
 * Parsed JSON, unchecked: `T` is what the caller expects, not what the file holds. The run-format
 * files have validating readers (readManifest, readRecords, readSummary, readComparison).
 */
export function readJsonFile<T = unknown>(file: string): T | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`cannot read ${file}: ${describeFsError(err)}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new InputError(`${file}: not valid JSON (${(err as Error).message})`);
  }
}
