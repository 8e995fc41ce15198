/**
 * How a record computed again differs from the one a run wrote (`reach-audit verify`): equal bytes
 * is the claim a run makes about itself; where the bytes differ, which fields changed and by how
 * much, grouped the way a reader weighs them — outputs and grades (a different answer), token
 * counts and costs (a different length), log-probabilities (by their largest absolute difference).
 */

/** What a changed field is, for the reader: a changed grade matters more than a log-prob in the 12th digit. */
export type FieldKind = 'output' | 'grade' | 'tokens' | 'logprob' | 'other';

export interface FieldDifference {
  /** Where in the record: `probes.sample.attempts[1].output`. */
  path: string;
  kind: FieldKind;
  /** The run's value and the value computed again, as JSON (cut to a readable length); absent: the field is missing on that side. */
  run?: string;
  again?: string;
  /** Numbers on both sides: |run − again|. */
  absDiff?: number;
}

export interface RecordDifference {
  id: string;
  /** The bytes differ but every value is equal (key order, number spelling). */
  bytesOnly: boolean;
  fields: FieldDifference[];
}

/** Per kind: the fields that differ, in how many records, and the largest numeric difference. */
export interface KindTally {
  fields: number;
  records: number;
  maxAbsDiff?: number;
}

/** Characters of a value kept in a difference (a whole output can be kilobytes). */
const SHOWN_CHARS = 120;

const GRADE_KEYS = new Set(['answer', 'correct', 'rule', 'match', 'strict', 'flexible', 'reachable', 'blind', 'thought', 'truncated', 'attempt', 'dropped', 'note']);
const TOKEN_KEYS = new Set(['tokens', 'generations', 'blockApplications', 'route', 'promptTokens', 'fromTokens', 'toTokens', 'cost', 'evaluated', 'reused']);

/** The kind of the field at `path` (its keys from the record's top down; array indices left out). */
export function fieldKind(keys: readonly string[]): FieldKind {
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i];
    if (/logprob/i.test(key)) return 'logprob';
    if (key === 'output') return 'output';
    if (GRADE_KEYS.has(key)) return 'grade';
    if (TOKEN_KEYS.has(key)) return 'tokens';
  }
  return 'other';
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters)` : text;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every leaf where `a` and `b` differ, depth first, in `a`'s key order then `b`'s new keys. */
function walk(a: unknown, b: unknown, keys: string[], where: string, out: FieldDifference[]): void {
  if (isObject(a) && isObject(b)) {
    const names = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    for (const k of names) walk(a[k], b[k], [...keys, k], where ? `${where}.${k}` : k, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    // A route or an attempt list of another length is one difference, not one per shifted item.
    if (a.length !== b.length && (a.every((x) => typeof x !== 'object') || b.every((x) => typeof x !== 'object'))) {
      out.push({ path: where, kind: fieldKind(keys), run: shown(a), again: shown(b) });
      return;
    }
    for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], keys, `${where}[${i}]`, out);
    return;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  const d: FieldDifference = { path: where, kind: fieldKind(keys) };
  if (a !== undefined) d.run = shown(a);
  if (b !== undefined) d.again = shown(b);
  if (typeof a === 'number' && typeof b === 'number') d.absDiff = Math.abs(a - b);
  out.push(d);
}

/**
 * Compares the run's line for a question with the line computed again; null when the bytes are
 * equal. Both lines are JSON objects (the run's has been read and validated already).
 */
export function recordDifference(id: string, runLine: string, againLine: string): RecordDifference | null {
  if (runLine === againLine) return null;
  const fields: FieldDifference[] = [];
  walk(JSON.parse(runLine) as unknown, JSON.parse(againLine) as unknown, [], '', fields);
  return { id, bytesOnly: fields.length === 0, fields };
}

/** The differences tallied per kind, in a fixed order (kinds without any are left out). */
export function tallyByKind(differences: readonly RecordDifference[]): Partial<Record<FieldKind, KindTally>> {
  const out: Partial<Record<FieldKind, KindTally>> = {};
  for (const kind of ['output', 'grade', 'tokens', 'logprob', 'other'] as const) {
    let fields = 0;
    let records = 0;
    let maxAbsDiff: number | undefined;
    for (const r of differences) {
      const ofKind = r.fields.filter((f) => f.kind === kind);
      if (ofKind.length === 0) continue;
      records++;
      fields += ofKind.length;
      for (const f of ofKind) if (f.absDiff !== undefined) maxAbsDiff = Math.max(maxAbsDiff ?? 0, f.absDiff);
    }
    if (fields > 0) out[kind] = { fields, records, ...(maxAbsDiff !== undefined ? { maxAbsDiff } : {}) };
  }
  return out;
}

const KIND_WORDS: Record<FieldKind, string> = { output: 'outputs', grade: 'grades and answers', tokens: 'token counts, routes and costs', logprob: 'log-probabilities', other: 'other fields' };

/** One line per kind: "log-probabilities: 4 fields in 2 records, largest difference 3.1e-7". */
export function describeTally(tally: Partial<Record<FieldKind, KindTally>>): string[] {
  return Object.entries(tally).map(([kind, t]) => {
    const max = t.maxAbsDiff !== undefined ? `, largest difference ${t.maxAbsDiff.toPrecision(3)}` : '';
    return `${KIND_WORDS[kind as FieldKind]}: ${t.fields} field${t.fields === 1 ? '' : 's'} in ${t.records} record${t.records === 1 ? '' : 's'}${max}`;
  });
}

/**
 * `count` of `ids` chosen by a seeded draw, in the order they stand in `ids` (the run's order),
 * so the same run and seed always re-run the same questions. `random` yields uniform [0, 1).
 */
export function sampleIds(ids: readonly string[], count: number, random: () => number): string[] {
  if (count >= ids.length) return [...ids];
  // A partial Fisher–Yates shuffle of the positions: the first `count` are a uniform sample.
  const positions = ids.map((_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (positions.length - i));
    [positions[i], positions[j]] = [positions[j], positions[i]];
  }
  return positions.slice(0, count).sort((a, b) => a - b).map((i) => ids[i]);
}
