/**
 * `reach-audit serve`: the engine child process of the VS Code extension. Reads requests as JSON
 * lines on stdin and writes events as JSON lines on stdout (src/service/protocol.ts); stdout
 * carries nothing else, diagnostics go to stderr. Requests run one at a time, in order, through the
 * same audit code as `reach-audit audit`; the last model stays loaded for the next request.
 * Cancelling stops after the current engine batch; every finished question is already on disk.
 * When stdin closes (the extension went away) everything is cancelled and the process exits.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { defaultRunName } from './auditRun';
import { readDataset, readPreSettings, runSettings, type AuditFlagValues } from './auditArgs';
import { parseFlags, parseWeights } from './engineArgs';
import { SERVE_HTTP_HELP, serveHttp } from './serveHttp';
import { InputError } from '../engine/errors';
import { ENGINE_VERSION } from '../engine/graphCache';
import { loadModel, type Model } from '../engine/index';
import { compareRuns, newComparisonFolder, writeComparison } from '../audit/run/comparisonStore';
import type { Dataset } from '../audit/dataset/dataset';
import { modelContentHash } from '../audit/run/modelFingerprint';
import type { Question } from '../audit/dataset/question';
import { runAudit, TOOL_VERSION, type AuditProgress, type RunAuditResult } from '../audit/run/runFolderAudit';
import { latestRunFolder, newRunFolder, prepareRunFolder, readRecords } from '../audit/run/runStore';
import {
  AUDIT_OPTION_FLAGS,
  LineSplitter,
  PROTOCOL_VERSION,
  decodeRequest,
  encodeLine,
  type AuditRequestOptions,
  type AuditQuestionRequest,
  type CompareRequest,
  type EngineEvent,
  type QuestionRef,
  type RunLabel,
  type WorkRequest,
} from '../service/protocol';

const help = [
  'Usage: reach-audit serve',
  '',
  'Runs the engine as a service for the VS Code extension: requests as JSON lines on stdin',
  '(audit, auditQuestion, compare, cancel, shutdown), events as JSON lines on stdout (hello,',
  'started, progress, record, log, result, stopped, error). Diagnostics go to stderr. The',
  'protocol is defined in src/service/protocol.ts. Exits when stdin closes.',
  '',
  SERVE_HTTP_HELP,
].join('\n');

const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** A run was cancelled while it had not opened its run folder yet (e.g. during the model load). */
class StoppedBeforeRun extends Error {}

interface Active {
  id: string;
  controller: AbortController;
  runDir: string | null;
  done: number;
  total: number;
  /** A run folder this request created that may still be empty (removed again if the run never starts). */
  createdFolder?: string;
}

/** Option fields that name files: relative ones are read from the request's workspace. */
const PATH_OPTIONS = ['model', 'data', 'out', 'template', 'fewshot', 'cacheDir', 'baseModel', 'tunedModel', 'baseRun', 'tunedRun'] as const;

function resolvePaths<T extends object>(options: T, workspace: string): T {
  const out: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  for (const k of PATH_OPTIONS) if (typeof out[k] === 'string') out[k] = path.resolve(workspace, out[k] as string);
  return out as T;
}

/** The request's options as the audit command's flag values, so both front ends share every check. */
function flagValues(options: Omit<AuditRequestOptions, 'model'>): AuditFlagValues {
  const values: Record<string, string | string[] | boolean> = {};
  for (const [key, { flag, kind }] of Object.entries(AUDIT_OPTION_FLAGS)) {
    const v = (options as Record<string, unknown>)[key];
    if (v === undefined || key === 'ids' || key === 'limit') continue; // the selection is made here, not from flag text
    if (kind === 'strings') values[flag] = flag === 'probe' || flag === 'stop' ? (v as string[]) : (v as string[]).join(',');
    else if (kind === 'boolean') values[flag] = v as boolean;
    else values[flag] = String(v);
  }
  return values as AuditFlagValues;
}

/** --limit / --ids, as `selectQuestions` does, but from a list (ids may contain commas). */
function selectQuestions(dataset: Dataset, limit: number | undefined, ids: string[] | undefined): { questions: Question[]; limit: number | null; ids: string[] | null } {
  let questions = dataset.questions;
  if (limit !== undefined && limit < 1) throw new InputError(`options.limit: expected a whole number >= 1, got ${limit}`);
  if (ids !== undefined) {
    if (ids.length === 0) throw new InputError('options.ids: expected at least one question id');
    const known = new Set(questions.map((q) => q.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new InputError(`options.ids: no question with id ${unknown.map((u) => JSON.stringify(u)).join(', ')} in ${dataset.path}`);
    const wanted = new Set(ids);
    questions = questions.filter((q) => wanted.has(q.id));
  }
  if (limit !== undefined) questions = questions.slice(0, limit);
  return { questions, limit: limit ?? null, ids: ids ?? null };
}

/** A new run folder; two runs started within the same second (two quick per-question audits) get distinct folders. */
function freshRunFolder(workspace: string, name: string): string {
  const folder = newRunFolder(workspace, name, new Date());
  let candidate = folder;
  for (let n = 2; fs.existsSync(candidate); n++) candidate = `${folder}-${n}`;
  return candidate;
}

/** A run that never started (stopped or failed while the model loaded) leaves no empty folder behind. */
function removeIfEmpty(folder: string | undefined): void {
  if (!folder) return;
  try {
    if (fs.readdirSync(folder).length === 0) fs.rmdirSync(folder);
  } catch {
    // Gone already, or not ours to remove: nothing to tidy.
  }
}

/** The question under the cursor: its exact line, or (JSON arrays) the object the line is inside. */
export function questionAt(dataset: Dataset, ref: QuestionRef): Question {
  if ('id' in ref) {
    const q = dataset.questions.find((x) => x.id === ref.id);
    if (!q) throw new InputError(`${dataset.path}: no question with id ${JSON.stringify(ref.id)}`);
    return q;
  }
  const exact = dataset.questions.find((x) => x.line === ref.line);
  if (exact) return exact;
  const issue = dataset.issues.find((i) => i.line === ref.line);
  if (issue) throw new InputError(`${dataset.path}:${ref.line}: this line holds no usable question: ${issue.message}`);
  if (!/\.jsonl$/i.test(dataset.path)) {
    const before = dataset.questions.filter((x) => x.line <= ref.line);
    if (before.length > 0) return before[before.length - 1];
  }
  throw new InputError(`${dataset.path}:${ref.line}: no question on this line; put the cursor on a question`);
}

class EngineService {
  private readonly queue: WorkRequest[] = [];
  private readonly pendingIds = new Set<string>();
  private active: Active | undefined;
  private working = false;
  private closing = false;
  private cached: { key: string; model: Model } | undefined;
  private idle: (() => void) | undefined;

  constructor(
    private readonly send: (event: EngineEvent) => void,
    /** Called once, when a shutdown has finished. */
    private readonly onClosed: () => void,
  ) {}

  tooLong(bytes: number): void {
    this.send({ type: 'error', id: null, message: `a request line of ${bytes} bytes is over the ${MAX_REQUEST_BYTES / 1024 / 1024} MiB limit; ignored`, kind: 'input' });
  }

  hello(): void {
    this.send({ type: 'hello', protocol: PROTOCOL_VERSION, version: TOOL_VERSION, engine: ENGINE_VERSION, pid: process.pid });
  }

  /** One request line from stdin. */
  receive(line: string): void {
    const decoded = decodeRequest(line);
    if (!decoded.ok) {
      this.send({ type: 'error', id: decoded.id, message: decoded.message, kind: 'input' });
      return;
    }
    const request = decoded.value;
    if (request.type === 'shutdown') {
      void this.shutdown();
      return;
    }
    if (request.type === 'cancel') {
      this.cancel(request.id);
      return;
    }
    if (this.closing) {
      this.send({ type: 'error', id: request.id, message: 'the engine is shutting down; send the request to a new engine', kind: 'internal' });
      return;
    }
    if (this.pendingIds.has(request.id)) {
      this.send({ type: 'error', id: null, message: `request id ${JSON.stringify(request.id)} is already in use by a pending request; use a new id`, kind: 'input' });
      return;
    }
    this.pendingIds.add(request.id);
    this.queue.push(request);
    void this.pump();
  }

  cancel(id: string): void {
    if (this.active?.id === id) {
      this.active.controller.abort();
      return;
    }
    const at = this.queue.findIndex((r) => r.id === id);
    if (at >= 0) {
      this.queue.splice(at, 1);
      this.pendingIds.delete(id);
      this.send({ type: 'stopped', id, runDir: null, done: 0, total: 0 });
      return;
    }
    this.send({ type: 'log', id, level: 'info', message: `cancel: no pending request ${JSON.stringify(id)} (it has already finished)` });
  }

  /** Cancels everything, waits for the current batch to end, releases the model. */
  async shutdown(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const r of this.queue.splice(0)) {
      this.pendingIds.delete(r.id);
      this.send({ type: 'stopped', id: r.id, runDir: null, done: 0, total: 0 });
    }
    if (this.working) {
      this.active?.controller.abort();
      await new Promise<void>((resolve) => (this.idle = resolve));
    }
    await this.releaseModel();
    this.onClosed();
  }

  private async pump(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      for (let request = this.queue.shift(); request; request = this.queue.shift()) {
        const active: Active = { id: request.id, controller: new AbortController(), runDir: null, done: 0, total: 0 };
        this.active = active;
        try {
          await this.handle(request, active);
        } catch (err) {
          if (err instanceof StoppedBeforeRun || (active.controller.signal.aborted && !(err instanceof InputError))) {
            this.send({ type: 'stopped', id: request.id, runDir: active.runDir, done: active.done, total: active.total });
          } else if (err instanceof InputError) {
            this.send({ type: 'error', id: request.id, message: err.message, kind: 'input' });
          } else {
            const message = err instanceof Error ? err.message : String(err);
            process.stderr.write(`reach-audit serve: request ${request.id} failed: ${err instanceof Error ? err.stack : message}\n`);
            this.send({ type: 'error', id: request.id, message, kind: 'internal' });
            await this.releaseModel(); // a failed engine may be in a bad state; the next request loads afresh
          }
        } finally {
          removeIfEmpty(active.createdFolder);
          this.pendingIds.delete(request.id);
          this.active = undefined;
        }
      }
    } finally {
      this.working = false;
      this.idle?.();
      this.idle = undefined;
    }
  }

  private async handle(request: WorkRequest, active: Active): Promise<void> {
    if (request.type === 'audit') {
      const workspace = path.resolve(request.options.workspace ?? process.cwd());
      const options = resolvePaths(request.options, workspace);
      const result = await this.auditRun(active, options, workspace, (d) => selectQuestions(d, options.limit, options.ids), options.name ?? defaultRunName(options.model, options.data));
      if (!result.summary) return this.stopped(active);
      this.send({ type: 'result', id: request.id, request: 'audit', runDir: result.folder, summary: result.summary });
    } else if (request.type === 'auditQuestion') {
      await this.auditQuestion(request, active);
    } else {
      await this.compare(request, active);
    }
  }

  private stopped(active: Active): void {
    this.send({ type: 'stopped', id: active.id, runDir: active.runDir, done: active.done, total: active.total });
  }

  private async auditQuestion(request: AuditQuestionRequest, active: Active): Promise<void> {
    const workspace = path.resolve(request.options.workspace ?? process.cwd());
    const options = resolvePaths(request.options, workspace);
    let chosen: Question | undefined;
    const select = (d: Dataset) => {
      chosen = questionAt(d, request.question);
      // The same selection as `reach-audit audit --ids <id>`, so the run's manifest matches the CLI's.
      return { questions: [chosen], limit: null, ids: [chosen.id] };
    };
    const name = (q: Question | undefined) => options.name ?? `${defaultRunName(options.model, options.data)}-${q?.id ?? 'question'}`;
    const result = await this.auditRun(active, options, workspace, select, name);
    if (!result.summary) return this.stopped(active);
    const record = result.records.find((r) => r.id === chosen?.id);
    if (!record) throw new Error(`the audit of question ${chosen?.id} finished without its record`);
    this.send({ type: 'result', id: request.id, request: 'auditQuestion', runDir: result.folder, summary: result.summary, record });
  }

  private async compare(request: CompareRequest, active: Active): Promise<void> {
    const workspace = path.resolve(request.options.workspace ?? process.cwd());
    const warn = (message: string) => this.send({ type: 'log', id: request.id, level: 'warning', message });
    let baseFolder: string;
    let tunedFolder: string;
    let name: string;
    let out: string | undefined;
    if ('baseRun' in request.options) {
      const o = resolvePaths(request.options, workspace);
      baseFolder = o.baseRun;
      tunedFolder = o.tunedRun;
      out = o.out;
      name = o.name ?? `${path.basename(baseFolder)}-vs-${path.basename(tunedFolder)}`;
    } else {
      const o = resolvePaths(request.options, workspace);
      out = o.out;
      name = o.name ?? `${path.basename(o.baseModel)}-vs-${path.basename(o.tunedModel)}-${path.basename(o.data).replace(/\.(jsonl|json)$/i, '')}`;
      const select = (d: Dataset) => selectQuestions(d, o.limit, o.ids);
      const runs: string[] = [];
      for (const [label, model] of [['base', o.baseModel], ['tuned', o.tunedModel]] as const) {
        const result = await this.auditRun(active, { ...o, model, out: out ? path.join(out, label) : undefined }, workspace, select, `${name}-${label}`, label);
        if (!result.summary) return this.stopped(active);
        runs.push(result.folder);
      }
      [baseFolder, tunedFolder] = runs;
    }
    const stored = compareRuns(baseFolder, tunedFolder, warn);
    const folder = out ?? newComparisonFolder(workspace, name, new Date());
    writeComparison(folder, stored);
    this.send({ type: 'result', id: request.id, request: 'compare', runDir: path.resolve(folder), comparison: stored });
  }

  /** One audit into a run folder, as `reach-audit audit` runs it, streaming its events. */
  private async auditRun(
    active: Active,
    options: Omit<AuditRequestOptions, 'limit' | 'ids'> & { limit?: number; ids?: string[] },
    workspace: string,
    select: (d: Dataset) => { questions: Question[]; limit: number | null; ids: string[] | null },
    runName: string | ((q: Question | undefined) => string),
    label?: RunLabel,
  ): Promise<RunAuditResult> {
    const { id } = active;
    const signal = active.controller.signal;
    const labelled = label ? { label } : {};
    const values = flagValues(options);
    const pre = readPreSettings(values);
    const dataset = readDataset(values);
    const shown = dataset.issues.slice(0, 10);
    for (const issue of shown) this.send({ type: 'log', id, level: 'warning', message: `${dataset.path}:${issue.line}: ${issue.message} (skipped)` });
    if (dataset.issues.length > shown.length) this.send({ type: 'log', id, level: 'warning', message: `${dataset.path}: ${dataset.issues.length - shown.length} more malformed lines skipped` });
    const selected = select(dataset);
    const name = typeof runName === 'string' ? runName : runName(selected.questions[0]);
    let folder = options.out;
    if (options.resume && !folder) {
      folder = latestRunFolder(workspace, name);
      if (!folder) throw new InputError(`resume: no run named '${name}' under ${path.join(workspace, '.reach-audit', 'runs')}; give the run folder as options.out`);
    }
    folder ??= freshRunFolder(workspace, name);
    if (!options.resume) {
      if (!fs.existsSync(folder)) active.createdFolder = folder;
      prepareRunFolder(folder); // an unwritable folder fails now, not after the model loads
    }
    active.total = selected.questions.length;
    active.done = 0;

    const contentHash = await modelContentHash(options.model);
    const model = await this.model(options, contentHash, (m) =>
      this.send({ type: 'progress', id, done: 0, total: active.total, rate: 0, eta: null, stage: `loading model: ${m}`, ...labelled }),
    );
    if (signal.aborted) throw new StoppedBeforeRun();

    const settings = runSettings(pre, model.numBlocks, { limit: selected.limit, ids: selected.ids }, selected.questions.length);
    if (settings.globalRoutes.skipped) this.send({ type: 'log', id, level: 'warning', message: settings.globalRoutes.skipped });
    const wanted = new Set(selected.questions.map((q) => q.id));
    let started = false;
    const onProgress = (p: AuditProgress) => {
      active.done = p.done;
      if (!started) {
        // runAudit reports progress first once the folder is open (and a resumed run checked).
        started = true;
        active.runDir = folder;
        this.send({ type: 'started', id, runDir: folder, total: p.total, done: p.done, ...labelled });
        if (options.resume && p.done > 0) {
          for (const record of readRecords(folder).values) if (wanted.has(record.id)) this.send({ type: 'record', id, record, resumed: true, ...labelled });
        }
      }
      const rate = p.doneThisSession > 0 && p.elapsedMs > 0 ? p.doneThisSession / (p.elapsedMs / 1000) : 0;
      const eta = rate > 0 ? (p.total - p.done) / rate : p.done === p.total ? 0 : null;
      this.send({ type: 'progress', id, done: p.done, total: p.total, rate, eta, ...(p.stage ? { stage: p.stage } : {}), ...labelled });
    };
    const result = await runAudit({
      model,
      modelInfo: { path: options.model, contentHash },
      engineVersion: ENGINE_VERSION,
      dataset,
      questions: selected.questions,
      settings,
      name,
      folder,
      resume: options.resume === true,
      chunkSize: pre.chunkSize,
      signal,
      onProgress,
      onRecord: (record) => this.send({ type: 'record', id, record, ...labelled }),
      onWarning: (message) => this.send({ type: 'log', id, level: 'warning', message }),
    });
    active.runDir = result.folder;
    active.done = result.records.length;
    const stages = Object.entries(result.timings).map(([s, t]) => `${s} ${(t.ms / 1000).toFixed(1)} s (${t.generations} generations)`);
    if (stages.length > 0) this.send({ type: 'log', id, level: 'info', message: `${label ?? 'audit'}: ${stages.join(', ')}` });
    return result;
  }

  /** The loaded model for these options: the previous one when nothing changed, else a fresh load. */
  private async model(options: Pick<AuditRequestOptions, 'model' | 'threads' | 'cacheDir' | 'maxBatch' | 'weights'>, contentHash: string, onProgress: (m: string) => void): Promise<Model> {
    const key = JSON.stringify([path.resolve(options.model), contentHash, options.threads ?? null, options.cacheDir ?? null, options.maxBatch ?? null, options.weights ?? null]);
    if (this.cached?.key === key) return this.cached.model;
    await this.releaseModel();
    const model = await loadModel(options.model, {
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
      ...(options.maxBatch !== undefined ? { maxBatch: options.maxBatch } : {}),
      weights: parseWeights(options.weights),
      onProgress,
    });
    this.cached = { key, model };
    return model;
  }

  private async releaseModel(): Promise<void> {
    const cached = this.cached;
    this.cached = undefined;
    if (cached) await cached.model.dispose();
  }
}

export const serveCommand: Command = {
  help,
  async run(args) {
    if (args.some((a) => a === '--http' || a.startsWith('--http='))) return serveHttp(args);
    parseFlags(args, {});
    // stdout is the protocol channel: anything else that writes there (a library's console.log)
    // goes to stderr instead, so it cannot corrupt an event line.
    const stdout = process.stdout;
    const writeEvent = stdout.write.bind(stdout) as (text: string) => boolean;
    stdout.write = ((...a: Parameters<typeof process.stderr.write>) => process.stderr.write(...a)) as typeof stdout.write;

    let closed!: () => void;
    const finished = new Promise<void>((resolve) => (closed = resolve));
    const service = new EngineService((event) => {
      writeEvent(encodeLine(event));
    }, closed);
    // The extension went away (or closed our stdin): stop; finished questions are on disk.
    const stop = () => void service.shutdown();
    stdout.on('error', stop);
    const splitter = new LineSplitter(
      (line) => service.receive(line),
      MAX_REQUEST_BYTES,
      (bytes) => service.tooLong(bytes),
    );
    process.stdin.on('data', (chunk: Buffer) => splitter.push(chunk));
    process.stdin.on('end', () => {
      splitter.end();
      stop();
    });
    process.stdin.on('error', stop);
    service.hello();
    await finished;
    process.stdin.destroy();
    // Native runtime threads must not keep a finished engine alive.
    setTimeout(() => process.exit(0), 2000).unref();
    return 0;
  },
};
