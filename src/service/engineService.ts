/**
 * The engine service: what `reach-audit serve` does with each request line. Requests run one at a
 * time, in order, through the same audit job as `reach-audit audit`; the last model stays loaded
 * for the next request. Cancelling stops after the current engine batch; every finished question
 * is already on disk. It knows nothing of stdin/stdout: it gets lines and sends events.
 */
import * as path from 'node:path';
import { ENGINE_VERSION, InputError, loadModel, type Model } from '../engine/index';
import { readRecords } from '../audit/store';
import type { Dataset, Question } from '../audit/dataset';
import { TOOL_VERSION, type AuditProgress } from '../audit/runner';
import { PATH_OPTION_NAMES, type AuditOptions } from './auditOptions';
import { defaultComparisonName, defaultRunName, loadOptions, prepareAuditJob, type AuditJobResult, type ModelLease, type ModelRequest, type PreparedAuditJob } from './auditJob';
import { prepareComparisonSides, writeComparisonOf } from './compareJob';
import { isRemoteBackend } from './backend';
import type { Selection } from './auditInputs';
import {
  PROTOCOL_VERSION,
  decodeRequest,
  type AuditQuestionRequest,
  type CompareRequest,
  type EngineEvent,
  type QuestionRef,
  type RunLabel,
  type WorkRequest,
} from './protocol';

/** The longest request line the service reads; a longer one is refused, not buffered. */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** A run was cancelled while it had not opened its run folder yet (e.g. during the model load). */
class StoppedBeforeRun extends Error {}

interface Active {
  id: string;
  controller: AbortController;
  runDir: string | null;
  done: number;
  total: number;
}

/** Request fields that name files besides the audit options': relative ones are read from the request's workspace. */
const OTHER_PATH_FIELDS = ['model', 'baseModel', 'tunedModel', 'baseRun', 'tunedRun'];

function resolvePaths<T extends object>(options: T, workspace: string): T {
  const out: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  for (const k of [...PATH_OPTION_NAMES, ...OTHER_PATH_FIELDS]) if (typeof out[k] === 'string') out[k] = path.resolve(workspace, out[k] as string);
  return out as T;
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

/** What one audit of a request needs besides its options. */
interface JobOf {
  options: AuditOptions & { model: string };
  workspace: string;
  name: string | ((selection: Selection) => string);
  select?: (dataset: Dataset) => Selection;
  resumeOrStart?: boolean;
  label?: RunLabel;
}

export class EngineService {
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

  /** One request line. */
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
            this.stopped(active);
          } else if (err instanceof InputError) {
            this.send({ type: 'error', id: request.id, message: err.message, kind: 'input' });
          } else {
            const message = err instanceof Error ? err.message : String(err);
            process.stderr.write(`reach-audit serve: request ${request.id} failed: ${err instanceof Error ? err.stack : message}\n`);
            this.send({ type: 'error', id: request.id, message, kind: 'internal' });
            await this.releaseModel(); // a failed engine may be in a bad state; the next request loads afresh
          }
        } finally {
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
      const result = await this.audit(active, { options, workspace, name: options.name ?? defaultRunName(options.model, options.data) });
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
    const select = (d: Dataset): Selection => {
      chosen = questionAt(d, request.question);
      // The same selection as `reach-audit audit --ids <id>`, so the run's manifest matches the CLI's.
      return { questions: [chosen], limit: null, ids: [chosen.id] };
    };
    const name = (s: Selection) => options.name ?? `${defaultRunName(options.model, options.data)}-${s.questions[0]?.id ?? 'question'}`;
    const result = await this.audit(active, { options, workspace, select, name });
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
      name = o.name ?? defaultComparisonName(o);
    } else {
      const { baseModel, tunedModel, workspace: _w, ...o } = resolvePaths(request.options, workspace);
      out = o.out;
      name = o.name ?? defaultComparisonName({ baseModel, tunedModel, data: o.data });
      // As `reach-audit compare` does: both runs under the same settings, in out/base and out/tuned when out is given.
      const sides = prepareComparisonSides({ name, out, baseModel, tunedModel, backend: o.backend }, (side) =>
        this.prepareAudit(active, { options: { ...o, model: side.modelDir, out: side.folder }, workspace, name: side.name, resumeOrStart: true, label: side.label }),
      );
      const runs: string[] = [];
      for (const run of await Promise.all([sides.base, sides.tuned])) {
        const result = await run();
        if (!result.summary) {
          this.stopped(active);
          return;
        }
        runs.push(result.folder);
      }
      [baseFolder, tunedFolder] = runs;
    }
    const { folder, stored } = writeComparisonOf({ baseFolder, tunedFolder, out, workspace, name, warn });
    this.send({ type: 'result', id: request.id, request: 'compare', runDir: path.resolve(folder), comparison: stored });
  }

  /** One audit job into a run folder, streaming its events. */
  private async audit(active: Active, job: JobOf): Promise<AuditJobResult> {
    return (await this.prepareAudit(active, job))();
  }

  /** Checks an audit job (everything that does not need the model) and chooses its run folder; the function returned runs it. */
  private async prepareAudit(active: Active, job: JobOf): Promise<() => Promise<AuditJobResult>> {
    const { id } = active;
    const prepared = await prepareAuditJob({
      options: job.options,
      modelDir: job.options.model,
      workspace: job.workspace,
      name: job.name,
      select: job.select,
      resumeOrStart: job.resumeOrStart,
      warn: (message) => this.send({ type: 'log', id, level: 'warning', message }),
    });
    return () => this.runAudit(active, job, prepared);
  }

  private async runAudit(active: Active, job: JobOf, prepared: PreparedAuditJob): Promise<AuditJobResult> {
    const { folder, resume } = prepared;
    const { id } = active;
    const signal = active.controller.signal;
    const labelled = job.label ? { label: job.label } : {};
    active.total = prepared.selection.questions.length;
    active.done = 0;
    const wanted = new Set(prepared.selection.questions.map((q) => q.id));
    let started = false;
    const onProgress = (p: AuditProgress) => {
      active.done = p.done;
      if (!started) {
        // The job reports progress first once the folder is open (and a resumed run checked).
        started = true;
        active.runDir = folder;
        this.send({ type: 'started', id, runDir: folder, total: p.total, done: p.done, ...labelled });
        if (resume && p.done > 0) {
          for (const record of readRecords(folder).values) if (wanted.has(record.id)) this.send({ type: 'record', id, record, resumed: true, ...labelled });
        }
      }
      const rate = p.doneThisSession > 0 && p.elapsedMs > 0 ? p.doneThisSession / (p.elapsedMs / 1000) : 0;
      // No time left until one has been measured (auditEstimate.ts).
      const eta = p.done === p.total ? 0 : p.remainingMs !== undefined ? p.remainingMs / 1000 : null;
      const tokens = p.engineTokens ?? p.generatedTokens;
      this.send({
        type: 'progress',
        id,
        done: p.done,
        total: p.total,
        rate,
        eta,
        ...(p.tokensPerSecond !== undefined ? { tokensPerSecond: p.tokensPerSecond } : {}),
        ...(eta !== null && eta > 0 && p.remainingRepairMostMs !== undefined ? { etaRepairMost: p.remainingRepairMostMs / 1000 } : {}),
        ...(tokens > 0 ? { generatedTokens: tokens } : {}),
        ...labelled,
      });
    };
    const result = await prepared.run({
      signal,
      // The local engine stays loaded for the next request; remote servers are opened by the job.
      acquireModel: (request) => this.model(request),
      onModelReady: () => {
        if (signal.aborted) throw new StoppedBeforeRun();
      },
      onModelProgress: (m) => this.send({ type: 'progress', id, done: 0, total: active.total, rate: 0, eta: null, stage: isRemoteBackend(job.options) ? m : `loading model: ${m}`, ...labelled }),
      onProgress,
      onRecord: (record) => this.send({ type: 'record', id, record, ...labelled }),
      onEstimate: (estimate) => this.send({ type: 'estimate', id, estimate, ...labelled }),
      onKvMemory: (line) => this.send({ type: 'log', id, level: 'info', message: `${job.label ?? 'audit'}: ${line}` }),
      onKvCacheFidelity: (line) => this.send({ type: 'log', id, level: 'info', message: `${job.label ?? 'audit'}: ${line}` }),
    });
    active.runDir = result.folder;
    active.done = result.records.length;
    const stages = Object.entries(result.timings).map(([s, t]) => `${s} ${t.generations} generations, ${t.tokens} tokens`);
    if (stages.length > 0) this.send({ type: 'log', id, level: 'info', message: `${job.label ?? 'audit'}: ${stages.join(', ')}` });
    return result;
  }

  /** The loaded model for this request: the previous one when nothing changed, else a fresh load. It stays loaded after the job. */
  private async model(request: ModelRequest): Promise<ModelLease> {
    const key = JSON.stringify([path.resolve(request.dir), request.contentHash, request.threads ?? null, request.cacheDir ?? null, request.maxBatch ?? null, request.weights ?? null, request.tokenizer ?? null, request.kvCache ?? null]);
    if (this.cached?.key !== key) {
      await this.releaseModel();
      this.cached = { key, model: await loadModel(request.dir, loadOptions(request)) };
    }
    const model = this.cached.model;
    // Each job sets its own budget on the model kept loaded between jobs.
    return { generator: model, setKvMemory: (bytes) => { model.kvMemory = bytes; }, dispose: async () => {} };
  }

  private async releaseModel(): Promise<void> {
    const cached = this.cached;
    this.cached = undefined;
    if (cached) await cached.model.dispose();
  }
}
