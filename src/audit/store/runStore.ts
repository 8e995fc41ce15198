/**
 * The run folder of docs/design/data-in-data-out.md: `.reach-audit/runs/<time>-<name>/` (or --out) holding
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
import { InputError, createFolder, describeFsError, forEachLine, openRegularFile, readRegularText } from '../../common';
import { runRates, type QuestionRecord, type RunManifest, type RunSummary } from '../../contract';
import { validateManifest, validateRecord, validateSummary } from './runFileValidation';

export const RUNS_FOLDER = path.join('.reach-audit', 'runs');
export const MANIFEST_FILE = 'manifest.json';
export const RECORDS_FILE = 'records.jsonl';
export const FAILURE_SET_FILE = 'failure-set.jsonl';
export const SUMMARY_FILE = 'summary.json';
export const TIMINGS_FILE = 'timings.json';
/** The longest line of a run's JSON-lines files that is read (a record of thousands of long outputs is a few MB). */
export const MAX_RUN_LINE_BYTES = 256 * 1024 * 1024;
/** The largest JSON file of a run that is read whole (manifest.json, summary.json, timings.json). */
export const MAX_RUN_JSON_BYTES = 64 * 1024 * 1024;

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
    text = readRegularText(file, MAX_RUN_JSON_BYTES);
  } catch (err) {
    if (err instanceof InputError) throw err;
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
  const values: T[] = [];
  const warnings: string[] = [];
  let torn: string | undefined;
  try {
    // Line by line: a file larger than the longest JavaScript string (a run of huge replies) is still read.
    forEachLine(file, MAX_RUN_LINE_BYTES, (line, number, terminated) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        if (!terminated) {
          torn = line;
          warnings.push(`${file}:${number}: ignoring a torn last line (the run stopped while writing it)`);
          return;
        }
        throw new InputError(`${file}:${number}: not valid JSON (${(err as Error).message}); the file was edited or damaged`);
      }
      // Complete JSON but no newline: kept, and the next append starts a new line.
      values.push(check(value, number));
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { values: [], warnings: [] };
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${file}: ${describeFsError(err)}`);
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
      if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) {
        throw new InputError(`cannot write ${file}: it is a symbolic link; expected a regular file (a run's files are written in place, never through a link)`);
      }
      if (fs.existsSync(file)) {
        const tail = lastLineOf(file);
        // Any leftover, even one JavaScript calls blank (a vertical tab) but JSON does not, is set aside.
        if (tail.text !== '') {
          let complete = true;
          try {
            JSON.parse(tail.text);
          } catch {
            complete = false;
          }
          if (complete) fs.appendFileSync(file, '\n');
          else {
            fs.appendFileSync(`${file}.torn.txt`, tail.text + '\n');
            fs.truncateSync(file, tail.start);
          }
        }
      }
      // O_NOFOLLOW: a records.jsonl replaced by a symlink is not written through to where it points.
      this.fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o666);
    } catch (err) {
      if (err instanceof InputError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new InputError(`cannot write ${file}: ${code === 'ELOOP' ? 'it is a symbolic link; expected a regular file' : describeFsError(err)}`);
    }
  }

  /**
   * Appends one value. A value that cannot be made into one line (a string past the JavaScript
   * limit) throws an InputError naming the file and writes nothing; a file-system error is thrown
   * with `path` set to the file (a write by descriptor names none).
   */
  append(value: unknown): void {
    let line: string;
    try {
      line = JSON.stringify(value) + '\n';
    } catch (err) {
      throw new UnwritableLineError(`${this.file}: a line could not be built (${(err as Error).message}); nothing was written`);
    }
    // The bound every reader of a run's lines holds to: a line past it would be written and then refused.
    const bytes = Buffer.byteLength(line) - 1;
    if (bytes > MAX_RUN_LINE_BYTES) throw new UnwritableLineError(`${this.file}: a line of ${bytes} bytes, over the ${MAX_RUN_LINE_BYTES}-byte line every command reads a run with (a fixed bound); nothing was written`);
    try {
      fs.writeSync(this.fd, line);
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

/** A value too large to be one JSON line: the caller decides whether the run goes on without it. */
export class UnwritableLineError extends InputError {
  override name = 'UnwritableLineError';
}

/** The bytes after the last newline of a file and where they start, read from the end (the file may be huge). */
function lastLineOf(file: string): { text: string; start: number } {
  const { fd, size } = openRegularFile(file, Number.MAX_SAFE_INTEGER);
  try {
    const parts: Buffer[] = [];
    let end = size;
    while (end > 0) {
      const length = Math.min(end, 1 << 20);
      const chunk = Buffer.alloc(length);
      fs.readSync(fd, chunk, 0, length, end - length);
      const nl = chunk.lastIndexOf(10);
      if (nl >= 0) {
        parts.unshift(chunk.subarray(nl + 1));
        return { text: Buffer.concat(parts).toString('utf8'), start: end - length + nl + 1 };
      }
      parts.unshift(chunk);
      end -= length;
      if (size - end > MAX_RUN_LINE_BYTES) throw new InputError(`${file}: the last line is over ${MAX_RUN_LINE_BYTES} bytes`);
    }
    return { text: Buffer.concat(parts).toString('utf8'), start: 0 };
  } finally {
    fs.closeSync(fd);
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
    text = readRegularText(file, MAX_RUN_JSON_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${file}: ${describeFsError(err)}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new InputError(`${file}: not valid JSON (${(err as Error).message})`);
  }
}
