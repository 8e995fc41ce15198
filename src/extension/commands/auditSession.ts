/**
 * Runs engine requests for the extension: a progress notification with Cancel (and before each
 * run its estimate, with Cancel, closed when that run ends), a status-bar item
 * while work is going, every engine log line in the "Reach Audit" output channel, and the events
 * (run opened, record finished, request ended) passed on to the panel, the tree and the dataset editors.
 * A cancelled or crashed run keeps its finished questions; the message offers Resume.
 *
 * The stored server API key reaches the engine child in its environment, and only a request on
 * servers names it (withServerKey); when the key or the cache folder changes, the next request
 * starts a fresh child with the new environment (a child's environment is fixed at its start).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import type { QuestionRecord } from '../../contract';
import { RECORDS_FILE } from '../../audit/store';
import {
  type AuditRequestOptions,
  type ProgressEvent,
  type RecordEvent,
  type StartedEvent,
  EngineError,
  EngineProcess,
  type EngineRequestHandle,
  type RequestBody,
  type RequestOutcome,
  type RunLabel,
  serverKeyEnv,
  withServerKey,
} from '../../service';
import { estimateText } from '../../audit/runner';
import { estimateMessage, measuredEstimateText, progressMessage, progressShare } from './progressMessage';
import { OPEN_SETTINGS, SET_SERVER_KEY, SHOW_LOG, failureActions } from './failureActions';
import { withSettingNames } from './settingNames';
import { SERVER_KEY_COMMANDS } from './serverKeyCommands';
import { DETACHED_LOG_FILE, detachedAuditArgs, startDetachedCli, detachedRunState, lastError, lastProgress, plannedRunFolder, writerPid } from './detachedRun';

/** How a followed run (a CLI process of its own) ended for this window; 'left': the window stopped following while it runs. */
export interface FollowOutcome {
  how: 'done' | 'cancelled' | 'failed' | 'left';
  runDir: string;
  /** Questions of the run, as its last progress line said (the records kept, when none did). */
  total: number;
  message?: string;
}

const FOLLOW_MS = 250;

export interface SessionListener {
  /** A run folder was opened (a resumed run included); `label` tells base from tuned in a comparison. */
  onStarted?(event: StartedEvent): void;
  onRecord?(event: RecordEvent, runDir: string | undefined): void;
  /** Questions done of the total (a resumed run counts its kept ones): the panel's header and the Runs view follow it. */
  onProgress?(event: ProgressEvent, runDir: string | undefined): void;
  /** The request ended: result, stopped (cancelled) or failed. */
  onEnded?(runDir: string | undefined, how: 'done' | 'cancelled' | 'failed', message?: string): void;
  /** The progress notification's message changed (questions done, tokens/s, time left once measured). */
  onProgressMessage?(message: string): void;
  /** The pre-run estimate was offered with its Cancel button (the message as shown); it closes when its run ends. */
  onEstimate?(message: string): void;
}

export interface SessionOutcome<B extends RequestBody> {
  outcome?: RequestOutcome<B>;
  error?: EngineError;
  runDir?: string;
}

/** An estimate notification on screen: the run it is for, and how to close it. */
interface EstimateOffer {
  label: RunLabel | undefined;
  close(): void;
  /** Shows the measured estimate under the planned range, once the engine has measured one. */
  update(message: string): void;
}

function describeError(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  return new EngineError(err instanceof Error ? err.message : String(err), 'internal');
}

export class AuditSession implements vscode.Disposable {
  private engine: EngineProcess | undefined;
  /** The environment the engine child was started with (compared, never logged: it may hold the key). */
  private engineStartedWith: Record<string, string | undefined> | undefined;
  private readonly statusBar = vscode.window.createStatusBarItem('reachAudit.activeRun', vscode.StatusBarAlignment.Left, 10);
  private active = 0;
  private readonly listeners = new Set<SessionListener>();
  private readonly handles = new Set<{ cancel(): void }>();

  constructor(
    private readonly cliPath: string,
    readonly output: vscode.OutputChannel,
    private readonly engineEnv: () => Record<string, string | undefined>,
    private readonly cwd: () => string | undefined,
    /** The stored server API key (VS Code's secret storage); undefined when none is. */
    private readonly serverKey: () => Thenable<string | undefined> = async () => undefined,
  ) {
    this.statusBar.name = 'Reach Audit run';
    this.statusBar.command = 'reachAudit.showLog';
  }

  /**
   * A failed request's notification: the settings it names in place of their flags (the user sets
   * them in VS Code), with Open Settings on the first; Set Server API Key… for a refused key.
   */
  private showFailure(message: string): void {
    const named = withSettingNames(message);
    void vscode.window.showErrorMessage(`Reach Audit: ${named.text}`, ...failureActions(message, named.settings.length > 0)).then((a) => {
      if (a === SHOW_LOG) this.output.show();
      else if (a === SET_SERVER_KEY) void vscode.commands.executeCommand(SERVER_KEY_COMMANDS.set);
      else if (a === OPEN_SETTINGS) void vscode.commands.executeCommand('workbench.action.openSettings', named.settings[0]);
    });
  }

  listen(listener: SessionListener): vscode.Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  get running(): boolean {
    return this.active > 0;
  }

  /** What the status-bar item says while work goes (the test suite reads it); undefined when it is hidden. */
  get statusBarText(): string | undefined {
    return this.active > 0 ? this.statusBar.text : undefined;
  }

  /** The engine child's pid, undefined until a request has started one. */
  get enginePid(): number | undefined {
    return this.engine?.pid;
  }

  private emit(call: (l: SessionListener) => void): void {
    for (const l of this.listeners) {
      try {
        call(l);
      } catch (err) {
        this.output.appendLine(`[extension] a listener failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private engineProcess(key: string | undefined): EngineProcess {
    const env = { ...this.engineEnv(), ...serverKeyEnv(key) };
    if (this.engine && this.engineStartedWith && !isDeepStrictEqual(env, this.engineStartedWith)) {
      if (this.handles.size === 0) {
        this.output.appendLine('[extension] the server API key or the cache folder changed: starting a new engine process');
        void this.engine.dispose();
        this.engine = undefined;
      } else {
        this.output.appendLine('[extension] the server API key or the cache folder changed while the engine is busy: the change applies from the next request after the running one');
      }
    }
    // One engine child per extension host; a dead child is replaced by EngineProcess on the next request.
    this.engineStartedWith = this.engine ? this.engineStartedWith : env;
    this.engine ??= new EngineProcess({
      cliPath: this.cliPath,
      env,
      cwd: this.cwd(),
      onLog: (e) => this.output.appendLine(`[engine ${e.level}] ${e.message}`),
      onStderr: (t) => this.output.append(t),
      onExit: (x) => {
        if (!x.expected) this.output.appendLine(`[engine] exited unexpectedly (${x.signal ?? `code ${x.code}`})`);
      },
    });
    return this.engine;
  }

  /**
   * Sends one request with a progress notification (Cancel stops it after the current batch).
   * Resolves when the request ends; never rejects (the error is in the outcome, already shown).
   */
  async run<B extends RequestBody>(given: B, title: string, options: { quiet?: boolean } = {}): Promise<SessionOutcome<B>> {
    this.active++;
    const key = await Promise.resolve(this.serverKey()).catch((err: unknown) => {
      this.output.appendLine(`[extension] cannot read the server API key from VS Code's secret storage (${err instanceof Error ? err.message : String(err)}); sending none`);
      return undefined;
    });
    // The key's variable is named only for a request on servers; the body names it, never holds it.
    const body: B = { ...given, options: withServerKey(given.options, key !== undefined) };
    this.output.appendLine(`[extension] ${title}: ${JSON.stringify(body)}`);
    let runDir: string | undefined;
    let report: ((p: { message: string; increment?: number }) => void) | undefined;
    let lastMessage = 'starting';
    let last = 0;
    /** The estimate on screen, for the run it estimates (a comparison has two, one after the other). */
    let offer: EstimateOffer | undefined;
    const updateStatus = (text: string) => {
      this.statusBar.text = `$(beaker~spin) Reach Audit: ${text}`;
      this.statusBar.tooltip = `${title} — click for the log`;
      this.statusBar.show();
    };
    updateStatus('starting');
    // Events are handled as they arrive (the listener is synchronous), so none is missed before
    // the progress notification exists.
    let handle: EngineRequestHandle<B>;
    try {
      handle = this.engineProcess(key).request(body, (event) => {
        // A comparison's next run began — its first event, whichever comes first (its model loads
        // before it starts): the offer for the run before has nothing left to cancel.
        if (offer && (event.type === 'started' || event.type === 'progress' || event.type === 'estimate') && event.label !== offer.label) {
          offer.close();
          offer = undefined;
        }
        if (event.type === 'started') {
          runDir = event.runDir;
          this.emit((l) => l.onStarted?.(event));
          lastMessage = progressMessage({ done: event.done, total: event.total, eta: null, label: event.label });
          report?.({ message: lastMessage });
          this.emit((l) => l.onProgressMessage?.(lastMessage));
        } else if (event.type === 'progress') {
          const pct = 100 * progressShare(event);
          // One step per finished question; no time left until the engine has measured one.
          lastMessage = progressMessage(event);
          report?.({ increment: Math.max(0, pct - last), message: lastMessage });
          last = Math.max(last, pct);
          updateStatus(`${event.label ? `${event.label} ` : ''}${event.done}/${event.total}`);
          this.emit((l) => l.onProgressMessage?.(lastMessage));
          this.emit((l) => l.onProgress?.(event, runDir));
          // The planned range is wide before anything is measured: once it is, the offer says the measured time left.
          const measured = measuredEstimateText(event);
          if (offer && event.label === offer.label && measured) offer.update(measured);
          if (offer && event.label === offer.label && event.done >= event.total) {
            offer.close();
            offer = undefined;
          }
        } else if (event.type === 'estimate') {
          // Before the first question: the plan and its measured cost, with a way out.
          const text = estimateText(event.estimate);
          this.output.appendLine(`[extension] ${title}: plan ${text.plan}; estimate ${text.cost}${text.learnedRoute ? `; learned route: ${text.learnedRoute}` : ''}`);
          lastMessage = `${text.cost}`;
          report?.({ message: lastMessage });
          this.emit((l) => l.onProgressMessage?.(lastMessage));
          offer?.close();
          offer = undefined;
          if (event.estimate.questions > 1) {
            const message = estimateMessage(event.estimate, event.label);
            offer = this.offerEstimate(message, event.label, () => {
              this.output.appendLine(`[extension] cancel requested from the estimate: ${title}`);
              handle.cancel();
            });
            this.emit((l) => l.onEstimate?.(message));
          }
        } else if (event.type === 'record') {
          this.emit((l) => l.onRecord?.(event, runDir));
        }
      });
    } catch (err) {
      this.active--;
      if (this.active === 0) this.statusBar.hide();
      const error = describeError(err);
      this.showFailure(error.message);
      return { error };
    }
    this.handles.add(handle);
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        async (progress, token) => {
          report = (p) => progress.report(p);
          progress.report({ message: lastMessage, increment: last });
          const cancel = token.onCancellationRequested(() => {
            this.output.appendLine(`[extension] cancel requested: ${title}`);
            handle.cancel();
          });
          try {
            const outcome = await handle.result;
            runDir = handle.runDir ?? runDir;
            const how = outcome.type === 'stopped' ? 'cancelled' : 'done';
            this.output.appendLine(`[extension] ${title}: ${how}${runDir ? ` (${runDir})` : ''}`);
            this.emit((l) => l.onEnded?.(runDir, how));
            return { outcome, runDir };
          } catch (err) {
            const error = describeError(err);
            runDir = error.runDir ?? runDir;
            this.output.appendLine(`[extension] ${title} failed (${error.kind}): ${error.message}`);
            if (error.stderrTail) this.output.appendLine(error.stderrTail);
            this.emit((l) => l.onEnded?.(runDir, 'failed', error.message));
            if (!options.quiet) {
              this.showFailure(error.message);
            }
            return { error, runDir };
          } finally {
            cancel.dispose();
            report = undefined;
          }
        },
      );
    } finally {
      offer?.close();
      this.handles.delete(handle);
      this.active--;
      if (this.active === 0) this.statusBar.hide();
    }
  }

  /**
   * The pre-run estimate as a notification with Cancel that stays while its run works and closes
   * when that run ends (a plain message would stay up after it, and during a comparison's next run
   * offer to cancel a run that had finished). A progress notification is the one VS Code closes
   * from code; its button is VS Code's Cancel.
   */
  private offerEstimate(message: string, label: RunLabel | undefined, cancel: () => void): EstimateOffer {
    let close!: () => void;
    const closed = new Promise<void>((resolve) => (close = resolve));
    let open = true;
    let report: ((message: string) => void) | undefined;
    let pending: string | undefined;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: message, cancellable: true }, (progress, token) => {
      report = (m) => progress.report({ message: m });
      if (pending) report(pending);
      const listener = token.onCancellationRequested(() => {
        if (open) cancel();
      });
      return closed.finally(() => listener.dispose());
    });
    return {
      label,
      close: () => {
        open = false;
        close();
      },
      update: (m) => {
        pending = m;
        report?.(m);
      },
    };
  }

  /** Cancels every request of this session's engine (used by tests and the Cancel command). */
  cancelAll(): void {
    for (const h of this.handles) h.cancel();
  }

  /** Runs followed in their folders (started by this window or found running at activation), by folder. */
  private readonly followed = new Map<string, { leave(): void }>();

  /**
   * Starts an audit as a CLI process of its own (its own process group, so the extension host's end
   * does not end it), writing `--out` a folder chosen now, its output in a file there and its pid
   * beside it; then follows the folder. The window may reload while it runs: the next activation
   * finds it running and follows it again.
   */
  async runDetached(given: AuditRequestOptions, title: string): Promise<FollowOutcome | { how: 'failed'; message: string; runDir?: string }> {
    const key = await Promise.resolve(this.serverKey()).catch(() => undefined);
    const options = withServerKey(given, key !== undefined);
    const workspace = options.workspace ?? this.cwd() ?? process.cwd();
    let folder: string | undefined;
    try {
      folder = plannedRunFolder(options, workspace);
      const args = detachedAuditArgs(options, folder);
      this.output.appendLine(`[extension] ${title}, in a process of its own: reach-audit ${args.join(' ')}`);
      const pid = startDetachedCli({ node: process.execPath, cliPath: this.cliPath, args, cwd: workspace, env: { ...process.env, ...this.engineEnv(), ...serverKeyEnv(key) }, folder });
      this.output.appendLine(`[extension] reach-audit runs as process ${pid}; its output: ${path.join(folder, DETACHED_LOG_FILE)}`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.showFailure(message);
      return { how: 'failed', message, ...(folder ? { runDir: folder } : {}) };
    }
    return this.follow(folder, title);
  }

  /** Whether this window follows the run in `runDir`. */
  follows(runDir: string): boolean {
    return this.followed.has(path.resolve(runDir));
  }

  /**
   * Follows a run a CLI process writes: its records as they appear (the listeners' onRecord), its
   * progress lines (the notification, the status bar, onProgress), its summary (done). Cancel sends
   * the process Ctrl-C: it stops after the current batch and keeps its finished questions.
   */
  follow(runDir: string, title: string): Promise<FollowOutcome> {
    const dir = path.resolve(runDir);
    this.followed.get(dir)?.leave();
    this.active++;
    const logFile = path.join(dir, DETACHED_LOG_FILE);
    const recordsFile = path.join(dir, RECORDS_FILE);
    // The log's end is enough (the last progress line, the last error), however long the run.
    const readText = (file: string) => {
      try {
        const size = fs.statSync(file).size;
        const bytes = Buffer.alloc(Math.min(size, 64 * 1024));
        const fd = fs.openSync(file, 'r');
        try {
          fs.readSync(fd, bytes, 0, bytes.length, size - bytes.length);
        } finally {
          fs.closeSync(fd);
        }
        return bytes.toString('utf8');
      } catch {
        return '';
      }
    };
    // Records already on disk are read by whoever shows the folder: only those written from now on are passed on.
    let offset = fs.existsSync(recordsFile) ? fs.statSync(recordsFile).size : 0;
    let startedSeen = false;
    let done = 0;
    let total = 0;
    let cancelled = false;
    let lastLine = '';
    const event = { id: `follow:${dir}` };
    const updateStatus = (text: string) => {
      this.statusBar.text = `$(beaker~spin) Reach Audit: ${text}`;
      this.statusBar.tooltip = `${title} — click for the log`;
      this.statusBar.show();
    };
    updateStatus('starting');
    let finish!: (o: FollowOutcome) => void;
    const ended = new Promise<FollowOutcome>((resolve) => (finish = resolve));
    let report: ((m: string) => void) | undefined;
    const readNewRecords = (): QuestionRecord[] => {
      let size: number;
      try {
        size = fs.statSync(recordsFile).size;
      } catch {
        return [];
      }
      if (size <= offset) return [];
      const fd = fs.openSync(recordsFile, 'r');
      const bytes = Buffer.alloc(size - offset);
      try {
        fs.readSync(fd, bytes, 0, bytes.length, offset);
      } finally {
        fs.closeSync(fd);
      }
      // Whole lines only: a line being written is read on the next look.
      const end = bytes.lastIndexOf(0x0a);
      if (end < 0) return [];
      offset += end + 1;
      const out: QuestionRecord[] = [];
      for (const line of bytes.subarray(0, end).toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        try {
          out.push(JSON.parse(line) as QuestionRecord);
        } catch {
          this.output.appendLine(`[extension] ${path.basename(dir)}: a record line that is not JSON was skipped while following`);
        }
      }
      return out;
    };
    const look = () => {
      const log = readText(logFile);
      const p = lastProgress(log);
      if (p) total = p.total;
      if (!startedSeen && fs.existsSync(path.join(dir, 'manifest.json'))) {
        startedSeen = true;
        done = p?.done ?? 0;
        this.emit((l) => l.onStarted?.({ type: 'started', ...event, runDir: dir, done, total: Math.max(total, done) }));
      }
      if (startedSeen) {
        for (const record of readNewRecords()) this.emit((l) => l.onRecord?.({ type: 'record', ...event, record }, dir));
        if (p && p.line !== lastLine) {
          lastLine = p.line;
          done = p.done;
          const progress = { type: 'progress' as const, ...event, done, total, rate: 0, eta: null };
          // The CLI's own line says tokens/s and time left as the terminal shows them.
          const message = p.line || progressMessage(progress);
          report?.(message);
          updateStatus(`${done}/${total}`);
          this.emit((l) => l.onProgressMessage?.(message));
          this.emit((l) => l.onProgress?.(progress, dir));
        }
      }
      const state = detachedRunState(dir);
      if (state === 'running') return;
      // The last records and progress line are on disk before the summary or the exit.
      for (const record of readNewRecords()) this.emit((l) => l.onRecord?.({ type: 'record', ...event, record }, dir));
      const how = state === 'finished' ? 'done' : cancelled ? 'cancelled' : /stopped with \d+ questions finished/.test(log) ? 'cancelled' : 'failed';
      const message = how === 'failed' ? (lastError(log) ?? `reach-audit ended without finishing ${path.basename(dir)}; its output is in ${logFile}`) : undefined;
      stop({ how, runDir: dir, total: Math.max(total, done), ...(message ? { message } : {}) });
    };
    const timer = setInterval(look, FOLLOW_MS);
    const cancel = () => {
      const pid = writerPid(dir);
      this.output.appendLine(`[extension] cancel requested: ${title}${pid ? ` (Ctrl-C to process ${pid})` : ''}`);
      cancelled = true;
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGINT');
        } catch (err) {
          this.output.appendLine(`[extension] cannot signal ${pid}: ${(err as Error).message}`);
        }
      }
    };
    const handle = { cancel };
    this.handles.add(handle);
    const stop = (outcome: FollowOutcome) => {
      clearInterval(timer);
      this.handles.delete(handle);
      this.followed.delete(dir);
      this.active--;
      if (this.active === 0) this.statusBar.hide();
      if (outcome.how !== 'left') {
        this.output.appendLine(`[extension] ${title}: ${outcome.how} (${dir})`);
        this.emit((l) => l.onEnded?.(dir, outcome.how === 'left' ? 'cancelled' : outcome.how, outcome.message));
        if (outcome.how === 'failed') this.showFailure(outcome.message ?? 'the audit failed');
      }
      finish(outcome);
    };
    this.followed.set(dir, { leave: () => stop({ how: 'left', runDir: dir, total: Math.max(total, done) }) });
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
      report = (message) => progress.report({ message });
      const listener = token.onCancellationRequested(cancel);
      return ended.finally(() => listener.dispose());
    });
    look();
    return ended;
  }

  /**
   * Stops following every run without touching its process, as a window that goes away does (the
   * suite's stand-in for a reload: the run goes on and its note stays for the next activation).
   */
  leaveFollowed(): void {
    for (const f of [...this.followed.values()]) f.leave();
  }

  dispose(): void {
    // Followed runs go on in their own processes; the next activation follows them again.
    this.leaveFollowed();
    this.statusBar.dispose();
    void this.engine?.dispose();
  }
}
