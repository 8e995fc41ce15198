/**
 * The engine service protocol: how the extension talks to `reach-audit serve`, the engine child
 * process. One JSON object per line in each direction — requests on the child's stdin, events on its
 * stdout. This file is the contract and its codec only (no I/O), shared by both ends.
 *
 * Every incoming line is checked field by field before anything acts on it, so a bad line becomes
 * an `error` event (or a client-side diagnostic) that names the field, never a crash.
 */
import { isObject, type QuestionRecord, type RunSummary, type StoredComparison } from '../contract';
import type { AuditEstimate } from '../audit/runner';
import { optionFieldKinds, type AuditOptions, type CliOnlyOptionName, type OptionKind } from './auditOptions';

/** Bumped whenever a request or event changes shape; the child announces it in `hello`. */
export const PROTOCOL_VERSION = 4;

// ---------------------------------------------------------------------------------------------
// Requests (extension → engine)

/**
 * The options of `reach-audit audit`, one field per flag (camelCase, numbers as numbers, lists as
 * arrays; the table in auditOptions.ts), so a request means exactly what the same command line
 * means. `workspace` is the folder whose `.reach-audit/runs/` receives new runs (the CLI uses its
 * working directory).
 */
export type AuditRequestOptions = Omit<AuditOptions, 'data' | CliOnlyOptionName> & { model: string; data: string; workspace?: string };

/** The question under the cursor: by id, or by its 1-based line in the dataset file. */
export type QuestionRef = { id: string } | { line: number };

/** Options of one-question audits: the run settings without the selection (limit/ids). */
export type QuestionRequestOptions = Omit<AuditRequestOptions, 'limit' | 'ids'>;

/**
 * A comparison: of two finished runs, or of two models audited now with the same settings (then
 * `model` is ignored and `baseModel`/`tunedModel`/`data` are required; runs go to `out`/base and
 * `out`/tuned when `out` is given). `out` is the comparison folder in the runs form.
 */
export type CompareRequestOptions =
  | { baseRun: string; tunedRun: string; workspace?: string; out?: string; name?: string }
  | (Omit<AuditRequestOptions, 'model'> & { baseModel: string; tunedModel: string });

export interface AuditRequest {
  type: 'audit';
  id: string;
  options: AuditRequestOptions;
}

/** One question with the chosen probes; its record equals that question's record in a full run with the same settings. */
export interface AuditQuestionRequest {
  type: 'auditQuestion';
  id: string;
  question: QuestionRef;
  options: QuestionRequestOptions;
}

export interface CompareRequest {
  type: 'compare';
  id: string;
  options: CompareRequestOptions;
}

/** Stops request `id` after the current engine batch; its finished questions stay on disk. */
export interface CancelRequest {
  type: 'cancel';
  id: string;
}

/** Cancels everything and exits. */
export interface ShutdownRequest {
  type: 'shutdown';
}

export type WorkRequest = AuditRequest | AuditQuestionRequest | CompareRequest;
export type EngineRequest = WorkRequest | CancelRequest | ShutdownRequest;

// ---------------------------------------------------------------------------------------------
// Events (engine → extension)

/** First line the engine writes. */
export interface HelloEvent {
  type: 'hello';
  protocol: number;
  /** reach-audit version. */
  version: string;
  engine: string;
  pid: number;
}

/** Which run of a comparison an event is about (absent for plain audits). */
export type RunLabel = 'base' | 'tuned';

/** A run folder is open and questions are about to be audited (the folder crash messages point at). */
export interface StartedEvent {
  type: 'started';
  id: string;
  runDir: string;
  /** Questions in this run, and how many were already finished (a resumed run). */
  total: number;
  done: number;
  label?: RunLabel;
}

export interface ProgressEvent {
  type: 'progress';
  id: string;
  done: number;
  total: number;
  /** Questions per second in this session; 0 until one finishes. */
  rate: number;
  /** Seconds left, estimated from this session's measured speed; null until measured. */
  eta: number | null;
  /** The most the repair scan could add to `eta`, while its share is not measured yet (before questions finish). */
  etaRepairMost?: number;
  /** Generated tokens per second in this session; absent until measured. */
  tokensPerSecond?: number;
  /** Tokens generated in this session, counted by the engine as it goes (sent about every second, not only when a question finishes). */
  generatedTokens?: number;
  /** What the engine is doing before the first question can finish (`loading model: …`). */
  stage?: string;
  label?: RunLabel;
}

/**
 * Before an audit's first question: what it will cost, from a short measured warm-up (the audit's
 * auditEstimate.ts), so the user can cancel before it runs.
 */
export interface EstimateEvent {
  type: 'estimate';
  id: string;
  estimate: AuditEstimate;
  label?: RunLabel;
}

/** A finished question, after it was appended and flushed to records.jsonl. */
export interface RecordEvent {
  type: 'record';
  id: string;
  record: QuestionRecord;
  /** Finished in an earlier session of a resumed run (sent once, when the run starts). */
  resumed?: boolean;
  label?: RunLabel;
}

export type LogLevel = 'info' | 'warning' | 'error';

export interface LogEvent {
  type: 'log';
  /** The request it is about, when there is one. */
  id?: string;
  level: LogLevel;
  message: string;
}

export interface AuditResultEvent {
  type: 'result';
  id: string;
  request: 'audit';
  runDir: string;
  summary: RunSummary;
}

export interface QuestionResultEvent {
  type: 'result';
  id: string;
  request: 'auditQuestion';
  runDir: string;
  summary: RunSummary;
  record: QuestionRecord;
}

export interface CompareResultEvent {
  type: 'result';
  id: string;
  request: 'compare';
  /** The comparison folder (comparison.json). */
  runDir: string;
  comparison: StoredComparison;
}

export type ResultEvent = AuditResultEvent | QuestionResultEvent | CompareResultEvent;

/** The request was cancelled; `runDir` (null when it had not started a run) keeps every finished question. */
export interface StoppedEvent {
  type: 'stopped';
  id: string;
  runDir: string | null;
  done: number;
  total: number;
}

/** `input`: the request was wrong (names the file, field or value); `internal`: the engine failed. */
export type ErrorKind = 'input' | 'internal';

export interface ErrorEvent {
  type: 'error';
  /** Null when the bad line had no usable id. */
  id: string | null;
  message: string;
  kind: ErrorKind;
}

export type EngineEvent = HelloEvent | StartedEvent | ProgressEvent | EstimateEvent | RecordEvent | LogEvent | ResultEvent | StoppedEvent | ErrorEvent;

/** The event that ends a request of each kind. */
export type ResultOf<R extends WorkRequest> = R extends AuditRequest ? AuditResultEvent : R extends AuditQuestionRequest ? QuestionResultEvent : CompareResultEvent;

// ---------------------------------------------------------------------------------------------
// Encoding

/** One line: JSON without newlines (JSON.stringify escapes them inside strings) plus `\n`. */
export function encodeLine(message: EngineRequest | EngineEvent): string {
  return JSON.stringify(message) + '\n';
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; id: string | null; message: string };

type FieldKind = OptionKind;

const AUDIT_FIELDS: Record<string, FieldKind> = { model: 'string', workspace: 'string', ...optionFieldKinds({ selection: true }) };
const QUESTION_FIELDS: Record<string, FieldKind> = { model: 'string', workspace: 'string', ...optionFieldKinds({ selection: false }) };

/** A message naming what is wrong; decode turns it into a Decoded failure. */
class ProtocolViolation extends Error {}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function checkKind(value: unknown, kind: FieldKind, where: string): void {
  const ok =
    kind === 'string' ? typeof value === 'string'
    : kind === 'number' ? typeof value === 'number' && Number.isFinite(value)
    : kind === 'wholeNumber' ? typeof value === 'number' && Number.isInteger(value) && value >= 0
    : kind === 'boolean' ? typeof value === 'boolean'
    : Array.isArray(value) && value.every((x) => typeof x === 'string');
  if (!ok) {
    const expected = { string: 'a string', number: 'a finite number', wholeNumber: 'a whole number >= 0', boolean: 'true or false', strings: 'an array of strings' }[kind];
    throw new ProtocolViolation(`${where}: expected ${expected}, got ${describe(value)}`);
  }
}

/**
 * Checks an options object field by field against `fields` (the table each request's options type
 * is written from) and its required fields; `T` is the type that table describes, so a checked
 * value is typed without a cast at the call.
 */
function checkObject<T = Record<string, unknown>>(value: unknown, fields: Record<string, FieldKind>, required: readonly string[], where: string): asserts value is T {
  if (!isObject(value)) throw new ProtocolViolation(`${where}: expected an object, got ${describe(value)}`);
  for (const name of required) {
    if (value[name] === undefined) throw new ProtocolViolation(`${where}.${name}: missing (required)`);
  }
  for (const [name, v] of Object.entries(value)) {
    const kind = fields[name];
    if (!kind) throw new ProtocolViolation(`${where}.${name}: unknown option; expected one of ${Object.keys(fields).join(', ')}`);
    if (v !== undefined) checkKind(v, kind, `${where}.${name}`);
  }
}

function requireId(value: Record<string, unknown>, field = 'id'): string {
  const id = value[field];
  if (typeof id !== 'string' || id === '' || id.length > 200) throw new ProtocolViolation(`${field}: expected a non-empty string of at most 200 characters, got ${describe(id)}`);
  return id;
}

const COMPARE_RUN_FIELDS: Record<string, FieldKind> = { baseRun: 'string', tunedRun: 'string', workspace: 'string', out: 'string', name: 'string' };
const COMPARE_MODEL_FIELDS: Record<string, FieldKind> = (() => {
  const fields: Record<string, FieldKind> = { ...AUDIT_FIELDS, baseModel: 'string', tunedModel: 'string' };
  delete fields.model;
  return fields;
})();

const REQUEST_TYPES = ['audit', 'auditQuestion', 'compare', 'cancel', 'shutdown'];

function parseLine(line: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(line) as unknown };
  } catch (err) {
    return { error: `not valid JSON (${(err as Error).message}); expected one JSON object per line` };
  }
}

function idOf(value: unknown): string | null {
  return isObject(value) && typeof value.id === 'string' && value.id !== '' ? value.id : null;
}

/** Checks one request line from the extension. */
export function decodeRequest(line: string): Decoded<EngineRequest> {
  const parsed = parseLine(line);
  if ('error' in parsed) return { ok: false, id: null, message: `request line: ${parsed.error}` };
  const v = parsed.value;
  try {
    if (!isObject(v)) throw new ProtocolViolation(`expected a JSON object, got ${describe(v)}`);
    const type = v.type;
    const only = (allowed: string[]) => {
      for (const k of Object.keys(v)) if (!allowed.includes(k)) throw new ProtocolViolation(`${k}: unknown field of a '${String(type)}' request; expected ${allowed.join(', ')}`);
    };
    switch (type) {
      case 'audit': {
        only(['type', 'id', 'options']);
        const id = requireId(v);
        const options = v.options;
        checkObject<AuditRequestOptions>(options, AUDIT_FIELDS, ['model', 'data'], 'options');
        return { ok: true, value: { type, id, options } };
      }
      case 'auditQuestion': {
        only(['type', 'id', 'question', 'options']);
        const id = requireId(v);
        const q = v.question;
        if (isObject(q) && q.id !== undefined && q.line === undefined) checkObject(q, { id: 'string' }, ['id'], 'question');
        else if (isObject(q) && q.line !== undefined && q.id === undefined) {
          checkObject(q, { line: 'wholeNumber' }, ['line'], 'question');
          if ((q.line as number) < 1) throw new ProtocolViolation('question.line: expected a line number >= 1');
        } else throw new ProtocolViolation(`question: expected {"id": "..."} or {"line": N}, got ${q === undefined ? 'nothing' : JSON.stringify(q)}`);
        const options = v.options;
        checkObject<QuestionRequestOptions>(options, QUESTION_FIELDS, ['model', 'data'], 'options');
        return { ok: true, value: { type, id, question: q as QuestionRef, options } };
      }
      case 'compare': {
        only(['type', 'id', 'options']);
        const id = requireId(v);
        const o = v.options;
        if (isObject(o) && (o.baseRun !== undefined || o.tunedRun !== undefined)) {
          checkObject<CompareRequestOptions>(o, COMPARE_RUN_FIELDS, ['baseRun', 'tunedRun'], 'options');
          return { ok: true, value: { type, id, options: o } };
        }
        checkObject<CompareRequestOptions>(o, COMPARE_MODEL_FIELDS, ['baseModel', 'tunedModel', 'data'], 'options');
        return { ok: true, value: { type, id, options: o } };
      }
      case 'cancel':
        only(['type', 'id']);
        return { ok: true, value: { type, id: requireId(v) } };
      case 'shutdown':
        only(['type', 'id']);
        return { ok: true, value: { type } };
      default:
        throw new ProtocolViolation(`type: expected one of ${REQUEST_TYPES.join(', ')}, got ${describe(type)}`);
    }
  } catch (err) {
    if (!(err instanceof ProtocolViolation)) throw err;
    return { ok: false, id: idOf(v), message: `request: ${err.message}` };
  }
}

const EVENT_FIELDS: Record<EngineEvent['type'], Record<string, FieldKind | 'object' | 'nullableString' | 'nullableNumber' | 'label'>> = {
  hello: { protocol: 'number', version: 'string', engine: 'string', pid: 'number' },
  started: { id: 'string', runDir: 'string', total: 'wholeNumber', done: 'wholeNumber' },
  progress: { id: 'string', done: 'wholeNumber', total: 'wholeNumber', rate: 'number', eta: 'nullableNumber' },
  estimate: { id: 'string', estimate: 'object' },
  record: { id: 'string', record: 'object' },
  log: { level: 'string', message: 'string' },
  result: { id: 'string', request: 'string', runDir: 'string' },
  stopped: { id: 'string', runDir: 'nullableString', done: 'wholeNumber', total: 'wholeNumber' },
  error: { id: 'nullableString', message: 'string', kind: 'string' },
};

/**
 * Throws a ProtocolViolation naming the first field of an engine event that is not as its type says;
 * past it, the value is that event (the checks are read from EVENT_FIELDS, which the compiler cannot follow).
 */
function checkEvent(v: unknown): asserts v is EngineEvent {
  if (!isObject(v)) throw new ProtocolViolation(`expected a JSON object, got ${describe(v)}`);
  const type = v.type as EngineEvent['type'];
  const fields = typeof type === 'string' ? EVENT_FIELDS[type] : undefined;
  if (!fields) throw new ProtocolViolation(`type: unknown event ${describe(type)}`);
  for (const [name, kind] of Object.entries(fields)) {
    const x = v[name];
    const where = `${type}.${name}`;
    if (kind === 'object') {
      if (!isObject(x)) throw new ProtocolViolation(`${where}: expected an object, got ${describe(x)}`);
    } else if (kind === 'nullableString') {
      if (x !== null && typeof x !== 'string') throw new ProtocolViolation(`${where}: expected a string or null, got ${describe(x)}`);
    } else if (kind === 'nullableNumber') {
      if (x !== null && (typeof x !== 'number' || !Number.isFinite(x))) throw new ProtocolViolation(`${where}: expected a number or null, got ${describe(x)}`);
    } else checkKind(x, kind as FieldKind, where);
  }
  if (v.label !== undefined && v.label !== 'base' && v.label !== 'tuned') throw new ProtocolViolation(`${type}.label: expected base or tuned, got ${describe(v.label)}`);
  if (type === 'log' && !['info', 'warning', 'error'].includes(v.level as string)) throw new ProtocolViolation(`log.level: expected info, warning or error, got ${describe(v.level)}`);
  if (type === 'error' && v.kind !== 'input' && v.kind !== 'internal') throw new ProtocolViolation(`error.kind: expected input or internal, got ${describe(v.kind)}`);
  if (type === 'result') {
    const needs = v.request === 'compare' ? ['comparison'] : v.request === 'auditQuestion' ? ['summary', 'record'] : v.request === 'audit' ? ['summary'] : null;
    if (!needs) throw new ProtocolViolation(`result.request: expected audit, auditQuestion or compare, got ${describe(v.request)}`);
    for (const n of needs) if (!isObject(v[n])) throw new ProtocolViolation(`result.${n}: expected an object, got ${describe(v[n])}`);
  }
}

/** Checks one event line from the engine (the client trusts nothing it cannot check). */
export function decodeEvent(line: string): Decoded<EngineEvent> {
  const parsed = parseLine(line);
  if ('error' in parsed) return { ok: false, id: null, message: `engine output: ${parsed.error}` };
  const v = parsed.value;
  try {
    checkEvent(v);
    return { ok: true, value: v };
  } catch (err) {
    if (!(err instanceof ProtocolViolation)) throw err;
    return { ok: false, id: idOf(v), message: `engine output: ${err.message}` };
  }
}

// ---------------------------------------------------------------------------------------------
// Line framing

/**
 * Splits a byte stream into lines whatever the chunk boundaries (a line may arrive in many chunks,
 * many lines in one chunk, a multi-byte character split across two). Bytes are kept until a `\n`
 * arrives, then decoded as UTF-8, so characters are never cut. A line longer than `maxLineBytes`
 * is dropped (reported once through onOverflow) rather than growing memory without bound.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private overflowed = false;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineBytes = 256 * 1024 * 1024,
    private readonly onOverflow?: (bytes: number) => void,
  ) {}

  push(chunk: Uint8Array | string): void {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(10, start);
      if (nl < 0) break;
      this.append(bytes.subarray(start, nl));
      this.emit();
      start = nl + 1;
    }
    if (start < bytes.length) this.append(bytes.subarray(start));
  }

  /** The last line, when the stream ended without a newline. */
  end(): void {
    if (this.size > 0 || this.overflowed) this.emit();
  }

  private append(part: Uint8Array): void {
    if (part.length === 0) return;
    if (this.overflowed) {
      this.size += part.length;
      return;
    }
    if (this.size + part.length > this.maxLineBytes) {
      this.overflowed = true;
      this.parts = [];
      this.size += part.length;
      return;
    }
    // Copy: the caller may reuse its buffer.
    this.parts.push(Uint8Array.from(part));
    this.size += part.length;
  }

  private emit(): void {
    const parts = this.parts;
    const size = this.size;
    const overflowed = this.overflowed;
    this.parts = [];
    this.size = 0;
    this.overflowed = false;
    if (overflowed) {
      this.onOverflow?.(size);
      return;
    }
    let whole: Uint8Array;
    if (parts.length === 1) whole = parts[0];
    else {
      whole = new Uint8Array(size);
      let at = 0;
      for (const p of parts) {
        whole.set(p, at);
        at += p.length;
      }
    }
    let line = this.decoder.decode(whole);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() !== '') this.onLine(line);
  }
}
