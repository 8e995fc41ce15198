/**
 * The extension's side of the engine child process. Inference never runs on the extension host:
 * this spawns the CLI bundle (`dist/cli.js serve`) with the host's own Node/Electron binary and
 * talks to it over the JSON-lines protocol of src/service/protocol.ts.
 *
 * If the child dies (a crash, an out-of-memory kill), its pending requests fail with one clear
 * message that says where the finished questions are, and the next request starts a new child.
 * No `vscode` import, so it runs (and is tested) under plain Node.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ENGINE_ALLOCATOR_ENV } from './allocatorTuning';
import {
  LineSplitter,
  PROTOCOL_VERSION,
  decodeEvent,
  encodeLine,
  type AuditQuestionRequest,
  type AuditRequest,
  type CompareRequest,
  type EngineEvent,
  type EngineRequest,
  type ErrorKind,
  type HelloEvent,
  type LogEvent,
  type ProgressEvent,
  type EstimateEvent,
  type RecordEvent,
  type ResultOf,
  type StartedEvent,
  type StoppedEvent,
  type WorkRequest,
} from './protocol';

/** A request as the caller writes it; the client adds the id. */
export type RequestBody = Omit<AuditRequest, 'id'> | Omit<AuditQuestionRequest, 'id'> | Omit<CompareRequest, 'id'>;

type WithId<B extends RequestBody> = B & { id: string } & WorkRequest;

/** How a request ended when it did not fail: its result, or stopped by cancel (finished questions kept). */
export type RequestOutcome<B extends RequestBody> = ResultOf<WithId<B>> | StoppedEvent;

/** Events of one request while it runs. */
export type RequestEvent = StartedEvent | ProgressEvent | EstimateEvent | RecordEvent | LogEvent;

/**
 * Why a request failed. `input`: the request was wrong (the message names the file, field or value).
 * `internal`: the engine reported a failure. `crashed`: the engine process died. `disposed`: the
 * client was disposed while the request ran.
 */
export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    message: string,
    readonly kind: ErrorKind | 'crashed' | 'disposed',
    /** The run folder that keeps the request's finished questions, when one was opened. */
    readonly runDir?: string,
    /** The end of the engine's stderr, for a log (not for the user-facing message). */
    readonly stderrTail?: string,
  ) {
    super(message);
  }
}

export interface EngineExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether the client meant it (dispose, or a kill to enforce a cancel). */
  expected: boolean;
  stderrTail: string;
}

export interface EngineProcessOptions {
  /** The CLI bundle, `<extension>/dist/cli.js`. */
  cliPath: string;
  /** The Node binary: default the host's own (`process.execPath`, Electron run as Node in VS Code). */
  execPath?: string;
  /** Node flags for the child, e.g. `--max-old-space-size=8192`. */
  execArgv?: string[];
  /** Added to the host's environment (e.g. REACH_AUDIT_CACHE). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** How much of the child's stderr is kept for error reports (default 16 KiB). */
  stderrTailChars?: number;
  /** After cancel(), how long the current batch may take to finish before the child is killed (default 10 s). */
  cancelGraceMs?: number;
  /** On dispose, how long the child may take to stop before it is killed (default 3 s). */
  disposeGraceMs?: number;
  /**
   * Run the child in its own process group, so a terminal's Ctrl-C reaches only the caller, which
   * then cancels (finished questions kept) instead of the child dying mid-batch. It still stops
   * when the caller goes: its stdin closes.
   */
  ownProcessGroup?: boolean;
  /** Every log event (request-bound or not), for an output channel. */
  onLog?(event: LogEvent): void;
  /** The child's stderr as it arrives, for an output channel. */
  onStderr?(text: string): void;
  /** The child ended (expectedly or not). */
  onExit?(exit: EngineExit): void;
}

export interface EngineRequestHandle<B extends RequestBody> {
  readonly id: string;
  /** Resolves with the result (or `stopped` after cancel); rejects with an EngineError. */
  readonly result: Promise<RequestOutcome<B>>;
  /** The events from the moment of iteration on; the iteration ends when the request ends. */
  readonly events: AsyncIterable<RequestEvent>;
  /** The run folder, once the engine opened it. */
  readonly runDir: string | undefined;
  /** Stops after the current engine batch; the result resolves with `stopped`. Finished questions stay on disk. */
  cancel(): void;
}

/** The last `max` characters of a stream: enough to explain a crash, bounded whatever the child writes. */
export class StderrTail {
  private text = '';
  constructor(private readonly max = 16 * 1024) {}
  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > 2 * this.max) this.text = this.text.slice(-this.max);
  }
  toString(): string {
    return this.text.length > this.max ? this.text.slice(-this.max) : this.text;
  }
  /** The last non-empty line. */
  lastLine(): string | undefined {
    const lines = this.toString().split('\n').map((l) => l.trim()).filter((l) => l !== '');
    return lines[lines.length - 1];
  }
}

/** Async iteration over events pushed from elsewhere; ends when closed. */
class EventStream<T> {
  private readonly subscribers = new Set<{ queue: T[]; wake?: () => void; closed: boolean }>();
  private closed = false;

  push(value: T): void {
    for (const s of this.subscribers) {
      s.queue.push(value);
      s.wake?.();
    }
  }

  close(): void {
    this.closed = true;
    for (const s of this.subscribers) {
      s.closed = true;
      s.wake?.();
    }
  }

  iterable(): AsyncIterable<T> {
    return {
      [Symbol.asyncIterator]: () => {
        const sub: { queue: T[]; wake?: () => void; closed: boolean } = { queue: [], closed: this.closed };
        this.subscribers.add(sub);
        const iterator: AsyncIterableIterator<T> = {
          next: async (): Promise<IteratorResult<T>> => {
            for (;;) {
              if (sub.queue.length > 0) return { value: sub.queue.shift()!, done: false };
              if (sub.closed) {
                this.subscribers.delete(sub);
                return { value: undefined, done: true };
              }
              await new Promise<void>((resolve) => (sub.wake = resolve));
              sub.wake = undefined;
            }
          },
          return: async (): Promise<IteratorResult<T>> => {
            this.subscribers.delete(sub);
            sub.queue = [];
            return { value: undefined, done: true };
          },
          [Symbol.asyncIterator]: () => iterator,
        };
        return iterator;
      },
    };
  }
}

interface Pending {
  id: string;
  runDir?: string;
  done: number;
  total: number;
  cancelTimer?: NodeJS.Timeout;
  listener?: (event: RequestEvent) => void;
  stream: EventStream<RequestEvent>;
  resolve(outcome: ResultEvent | StoppedEvent): void;
  reject(error: EngineError): void;
}

type ResultEvent = Extract<EngineEvent, { type: 'result' }>;

interface Child {
  proc: ChildProcessWithoutNullStreams;
  pending: Map<string, Pending>;
  tail: StderrTail;
  hello?: HelloEvent;
  /** Set when the client kills the child itself: why. */
  killedFor?: { reason: 'cancel'; requestId: string } | { reason: 'dispose' } | { reason: 'protocol'; message: string };
  ended: boolean;
}

export class EngineProcess {
  private child: Child | undefined;
  private nextId = 1;
  private disposed = false;
  private readonly helloWaiters: { resolve(hello: HelloEvent): void; reject(error: EngineError): void }[] = [];

  constructor(private readonly options: EngineProcessOptions) {}

  /** The running child's process id (undefined when none runs). */
  get pid(): number | undefined {
    return this.child && !this.child.ended ? this.child.proc.pid : undefined;
  }

  /** Whether a child is running now. */
  get running(): boolean {
    return this.child !== undefined && !this.child.ended;
  }

  /** Starts the child if none runs and resolves with its hello (version check included). */
  start(): Promise<HelloEvent> {
    const child = this.ensureChild();
    if (child.hello) return Promise.resolve(child.hello);
    return new Promise((resolve, reject) => this.helloWaiters.push({ resolve, reject }));
  }

  /**
   * Sends a request to the engine (starting a child when none runs). `onEvent` sees every event of
   * the request; `handle.events` is the same as an async iterable.
   */
  request<B extends RequestBody>(body: B, onEvent?: (event: RequestEvent) => void): EngineRequestHandle<B> {
    if (this.disposed) throw new EngineError('The Reach Audit engine client was disposed.', 'disposed');
    const child = this.ensureChild();
    const id = `r${this.nextId++}`;
    const stream = new EventStream<RequestEvent>();
    let pending!: Pending;
    const result = new Promise<RequestOutcome<B>>((resolve, reject) => {
      pending = {
        id,
        done: 0,
        total: 0,
        listener: onEvent,
        stream,
        resolve: (outcome) => resolve(outcome as RequestOutcome<B>),
        reject,
      };
    });
    child.pending.set(id, pending);
    this.write(child, { ...body, id } as EngineRequest);
    return {
      id,
      result,
      events: stream.iterable(),
      get runDir() {
        return pending.runDir;
      },
      cancel: () => this.cancel(child, id),
    };
  }

  /** Stops the child (cancelling its requests, which resolve `stopped`), killing it if it does not stop in time. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const child = this.child;
    if (!child || child.ended) return;
    const closed = new Promise<void>((resolve) => child.proc.once('close', () => resolve()));
    this.write(child, { type: 'shutdown' });
    child.proc.stdin.end();
    const timer = setTimeout(() => this.kill(child, { reason: 'dispose' }), this.options.disposeGraceMs ?? 3000);
    await closed;
    clearTimeout(timer);
  }

  private ensureChild(): Child {
    if (this.child && !this.child.ended) return this.child;
    const o = this.options;
    const proc = spawn(o.execPath ?? process.execPath, [...(o.execArgv ?? []), o.cliPath, 'serve'], {
      cwd: o.cwd,
      // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron; this makes it plain Node.
      env: { ...ENGINE_ALLOCATOR_ENV, ...process.env, ...o.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      detached: o.ownProcessGroup === true,
    });
    const child: Child = { proc, pending: new Map(), tail: new StderrTail(o.stderrTailChars), ended: false };
    this.child = child;
    const lines = new LineSplitter(
      (line) => this.onLine(child, line),
      256 * 1024 * 1024,
      (bytes) => child.tail.push(`[reach-audit client] dropped an engine output line of ${bytes} bytes\n`),
    );
    proc.stdout.on('data', (chunk: Buffer) => lines.push(chunk));
    proc.stdout.on('end', () => lines.end());
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (text: string) => {
      child.tail.push(text);
      this.safely(() => o.onStderr?.(text));
    });
    // A write to a child that just died fails with EPIPE; its death is handled on 'close'.
    proc.stdin.on('error', () => undefined);
    proc.on('error', (err) => {
      // Spawning failed (no such binary): nothing else will come.
      child.tail.push(`could not start ${o.execPath ?? process.execPath} ${o.cliPath} serve: ${err.message}\n`);
      if (proc.exitCode === null && proc.signalCode === null && proc.pid === undefined) this.onClose(child, null, null);
    });
    proc.on('close', (code, signal) => this.onClose(child, code, signal));
    return child;
  }

  private log(event: LogEvent): void {
    this.safely(() => this.options.onLog?.(event));
  }

  /** Runs a caller's callback; its failure must not break the engine connection (we are inside a stream handler). */
  private safely(callback: () => void): void {
    try {
      callback();
    } catch (err) {
      try {
        this.options.onLog?.({ type: 'log', level: 'error', message: `a Reach Audit engine event handler failed: ${err instanceof Error ? err.message : String(err)}` });
      } catch {
        // The log itself failed; there is nowhere left to report it.
      }
    }
  }

  private write(child: Child, request: EngineRequest): void {
    if (child.ended || !child.proc.stdin.writable) return;
    child.proc.stdin.write(encodeLine(request));
  }

  private cancel(child: Child, id: string): void {
    const pending = child.pending.get(id);
    if (!pending || child.ended || pending.cancelTimer) return;
    this.write(child, { type: 'cancel', id });
    // A batch that runs long (or a wedged runtime) must not hold a cancel hostage: kill the child.
    pending.cancelTimer = setTimeout(() => {
      if (child.pending.has(id)) this.kill(child, { reason: 'cancel', requestId: id });
    }, this.options.cancelGraceMs ?? 10_000);
  }

  private kill(child: Child, why: NonNullable<Child['killedFor']>): void {
    if (child.ended) return;
    child.killedFor ??= why;
    child.proc.kill('SIGKILL');
  }

  private onLine(child: Child, line: string): void {
    const decoded = decodeEvent(line);
    if (!decoded.ok) {
      // Not protocol (a stray print, or a bad event): keep it for the error report, never act on it.
      child.tail.push(`[reach-audit client] ${decoded.message}: ${line.slice(0, 500)}\n`);
      this.log({ type: 'log', level: 'warning', message: decoded.message });
      return;
    }
    const event = decoded.value;
    if (event.type === 'hello') {
      child.hello = event;
      if (event.protocol !== PROTOCOL_VERSION) {
        const message = `The Reach Audit engine at ${this.options.cliPath} speaks protocol version ${event.protocol}, but the extension expects ${PROTOCOL_VERSION}; rebuild or reinstall the extension.`;
        this.kill(child, { reason: 'protocol', message });
        return;
      }
      for (const w of this.helloWaiters.splice(0)) w.resolve(event);
      return;
    }
    if (event.type === 'log') this.log(event);
    if (event.type === 'error' && event.id === null) {
      this.log({ type: 'log', level: 'error', message: event.message });
      return;
    }
    const id = event.id;
    const pending = typeof id === 'string' ? child.pending.get(id) : undefined;
    if (!pending) return;
    switch (event.type) {
      case 'started':
        pending.runDir = event.runDir;
        pending.done = event.done;
        pending.total = event.total;
        break;
      case 'progress':
        pending.done = event.done;
        pending.total = event.total;
        break;
      case 'result':
      case 'stopped':
        if (event.runDir) pending.runDir = event.runDir;
        this.settle(child, pending);
        pending.resolve(event);
        return;
      case 'error':
        this.settle(child, pending);
        pending.reject(new EngineError(event.message, event.kind, pending.runDir, event.kind === 'internal' ? child.tail.toString() : undefined));
        return;
    }
    this.safely(() => pending.listener?.(event));
    pending.stream.push(event);
  }

  private settle(child: Child, pending: Pending): void {
    child.pending.delete(pending.id);
    if (pending.cancelTimer) clearTimeout(pending.cancelTimer);
    pending.stream.close();
  }

  private onClose(child: Child, code: number | null, signal: NodeJS.Signals | null): void {
    if (child.ended) return;
    child.ended = true;
    if (this.child === child) this.child = undefined;
    const tail = child.tail.toString();
    const why = child.killedFor;
    for (const pending of [...child.pending.values()]) {
      this.settle(child, pending);
      if (why?.reason === 'cancel' && why.requestId === pending.id) {
        pending.resolve({ type: 'stopped', id: pending.id, runDir: pending.runDir ?? null, done: pending.done, total: pending.total });
      } else if (why?.reason === 'dispose') {
        pending.reject(new EngineError(`The Reach Audit engine was shut down.${kept(pending.runDir)}`, 'disposed', pending.runDir, tail));
      } else if (why?.reason === 'protocol') {
        pending.reject(new EngineError(why.message, 'internal', pending.runDir, tail));
      } else if (why?.reason === 'cancel') {
        pending.reject(new EngineError(`The Reach Audit engine was restarted to cancel another request.${kept(pending.runDir)}`, 'crashed', pending.runDir, tail));
      } else {
        pending.reject(new EngineError(crashMessage(code, signal, pending.runDir, child.tail), 'crashed', pending.runDir, tail));
      }
    }
    const startError = why?.reason === 'protocol' ? why.message : crashMessage(code, signal, undefined, child.tail);
    for (const w of this.helloWaiters.splice(0)) w.reject(new EngineError(startError, 'crashed', undefined, tail));
    // A child asked to shut down (dispose) and gone of itself was expected to go, as one killed for it.
    const expected = (why !== undefined && why.reason !== 'protocol') || (this.disposed && why === undefined && code === 0);
    this.safely(() => this.options.onExit?.({ code, signal, expected, stderrTail: tail }));
  }
}

function kept(runDir: string | undefined): string {
  return runDir ? ` Finished questions are kept in ${runDir}; run the audit again with resume to continue.` : '';
}

/** The message a user sees when the engine dies under a request. */
export function crashMessage(code: number | null, signal: NodeJS.Signals | null, runDir: string | undefined, tail: StderrTail): string {
  const how = signal ? `signal ${signal}` : code === null ? 'it could not be started' : `exit code ${code}`;
  const text = tail.toString();
  const outOfMemory = /out of memory|heap limit|bad_alloc|ENOMEM|Cannot allocate memory/i.test(text);
  const parts = [`The Reach Audit engine stopped unexpectedly (${how}).`];
  if (outOfMemory) parts.push('It ran out of memory; try a smaller --batch or max batch, or close other programs.');
  parts.push(runDir ? `Finished questions are kept in ${runDir}; run the audit again with resume to continue.` : 'No run folder had been opened yet; nothing was lost.');
  const last = tail.lastLine();
  if (last && !outOfMemory) parts.push(`Last engine message: ${last}`);
  return parts.join(' ');
}
