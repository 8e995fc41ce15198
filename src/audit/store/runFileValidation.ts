/**
 * Run files are read back by `report`, `compare`, `merge`, `--resume` and the extension, and they
 * may have been edited, damaged, or written by another tool: each is validated against its schema
 * (runFileSchemas.ts) where it is read. A bad value becomes an InputError that names the file, the
 * line (records.jsonl), the field and what was expected, e.g.
 * `summary.json: field realized.n: expected a non-negative integer, got "x"`.
 */
import * as path from 'node:path';
import * as v from 'valibot';
import { InputError } from '../../common';
import type { QuestionRecord, RunManifest, RunSummary, StoredComparison, StoredTrajectory } from '../../contract';
import { questionRecordSchema, runManifestSchema, runSummarySchema, storedComparisonSchema, storedTrajectorySchema } from './runFileSchemas';

/** How many problems one message lists before it says "and N more". */
const SHOWN_PROBLEMS = 3;

function fieldPath(issue: v.BaseIssue<unknown>): string {
  let out = '';
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function describe(issue: v.BaseIssue<unknown>): string {
  const where = fieldPath(issue);
  const last = issue.path?.[issue.path.length - 1];
  const parent: unknown = last?.input;
  if (last && typeof parent === 'object' && parent !== null && !Object.prototype.hasOwnProperty.call(parent, last.key as PropertyKey)) return `field ${where}: missing`;
  return `${where === '' ? 'the file' : `field ${where}`}: ${issue.message}, got ${shown(issue.input)}`;
}

/** The parsed value, or an InputError naming `where` (a file, or `file:line`) and every bad field (the first few). */
export function validated<S extends v.GenericSchema>(schema: S, value: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  // The value itself, not valibot's copy: the copy drops keys this version does not know and puts
  // the rest in schema order, and a run file read and written again (merge, regrade) must keep both.
  // The schemas transform nothing, so a value that passed is exactly the output type.
  if (result.success) return value as v.InferOutput<S>;
  const problems = result.issues.map(describe);
  const more = problems.length > SHOWN_PROBLEMS ? `; and ${problems.length - SHOWN_PROBLEMS} more` : '';
  throw new InputError(`${where}: ${problems.slice(0, SHOWN_PROBLEMS).join('; ')}${more}`);
}

export function validateRecord(value: unknown, file: string, line: number): QuestionRecord {
  return validated(questionRecordSchema, value, `${file}:${line}`);
}

/** True when a summary with the fields every version wrote fails its schema only by lacking newer ones. */
function lacksNewerFieldsOnly(schema: v.GenericSchema, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !('n' in value) || !('realized' in value)) return false;
  const result = v.safeParse(schema, value);
  return !result.success && result.issues.every((issue) => describe(issue).endsWith(': missing'));
}

export function validateSummary(value: unknown, file: string): RunSummary {
  try {
    return validated(runSummarySchema, value, file);
  } catch (error) {
    // A summary that only lacks fields was written by an earlier version (before the truncation
    // rule, the per-probe figures…): its stored outputs can still be graded and summarized today.
    if (error instanceof InputError && lacksNewerFieldsOnly(runSummarySchema, value)) {
      throw new InputError(`${error.message} — an earlier version's summary; \`reach-audit regrade ${path.dirname(file)}\` writes a current run from its stored outputs`);
    }
    throw error;
  }
}

export function validateManifest(value: unknown, file: string): RunManifest {
  return validated(runManifestSchema, value, file);
}

export function validateStoredComparison(value: unknown, file: string): StoredComparison {
  return validated(storedComparisonSchema, value, file);
}

export function validateStoredTrajectory(value: unknown, file: string): StoredTrajectory {
  return validated(storedTrajectorySchema, value, file);
}
