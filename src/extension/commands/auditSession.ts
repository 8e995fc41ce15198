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
import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import {
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

  dispose(): void {
    this.statusBar.dispose();
    void this.engine?.dispose();
  }
}
