/**
 * Entry point of the Reach Audit extension: the Runs tree and the Audit view in the side bar, the
 * audit panel, the marks, hovers and cursor-line state on dataset files, and the commands that run the engine child process.
 * Activation itself runs nothing from the workspace; every command that would start the engine
 * checks workspace trust first. The returned object is the extension's API (used by the test suite).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerAuditCommands, type CommandResult } from './commands/auditCommands';
import { registerExplainCommand } from './commands/explainQuestion';
import { registerVerifyRunCommand } from './commands/verifyRun';
import { registerWatchCommand, type WatchCommand } from './commands/watchTrainingRun';
import { registerCheckpointFoldersCommand, type CheckpointFoldersCommand } from './commands/auditCheckpointFolders';
import { AuditChoices } from './commands/auditChoices';
import { AuditPanelHost } from './panel/auditPanel';
import { AuditSession } from './commands/auditSession';
import { readAuditSettings } from './commands/workspaceSettings';
import { AUDIT_VIEW_ID, AuditViewProvider } from './sidebar/auditView';
import { LiveCounts } from './sidebar/liveCounts';
import { QuestionRecords } from './editor/questionRecords';
import { QuestionHoverProvider } from './editor/questionHover';
import { CursorLineState } from './editor/cursorLineState';
import { QuestionGutter } from './editor/questionGutter';
import { datasetPathOf, loadRunFolder } from './panel/runData';
import { registerParquetRowView } from './panel/parquetRowView';
import { RUN_FILES_GLOB, RunsTreeProvider, type RunsNode } from './sidebar/runsView';
import { TablesPanelHost } from './tables/tablesPanel';
import { registerTablesCommands } from './tables/tablesCommands';
import { throttle } from './sidebar/throttle';
import { writeCliShim } from './commands/cliShim';
import { openedFolders, registerRunFolderCommands } from './commands/runFolderCommands';
import { registerServerKeyCommands, storedServerKey } from './commands/serverKeyCommands';
import { RunInView } from './runInView';
import { InterruptedRuns } from './commands/interruptedRuns';
import { detachedRunState } from './commands/detachedRun';
import { registerImportLogCommand } from './commands/importLog';
import { registerRegradeCommand } from './commands/regradeRun';
import { readRun, type RunEntry } from './sidebar/runListing';

export const RUNS_VIEW_ID = 'reachAudit.runs';
export const REFRESH_RUNS_COMMAND = 'reachAudit.refreshRuns';

export interface ReachAuditApi {
  readonly runs: RunsTreeProvider;
  readonly runsView: vscode.TreeView<RunsNode>;
  readonly session: AuditSession;
  readonly panel: AuditPanelHost;
  readonly auditView: AuditViewProvider;
  readonly records: QuestionRecords;
  readonly cursorLine: CursorLineState;
  readonly gutter: QuestionGutter;
  readonly tables: TablesPanelHost;
  /** Watch Training Run…: its Cancel. */
  readonly watches: WatchCommand;
  /** Audit Checkpoint Folders…: its Cancel. */
  readonly checkpointFolders: CheckpointFoldersCommand;
  /** The one run (or comparison) that the panel, the Audit view, the marks, the hover and the per-line commands show. */
  readonly inView: RunInView;
  /** The runs noted as going; and the runs found stopped by the last window's end at this activation. */
  readonly interrupted: InterruptedRuns;
  readonly stoppedAtActivation: Promise<string[]>;
  /** The runs found still running in processes of their own at this activation, followed again; their ends. */
  readonly followedAtActivation: Promise<CommandResult[]>;
  /** Follows again every noted run whose process still runs and that this window does not follow (what activation does). */
  followNoted(): Promise<CommandResult[]>;
}

export function activate(context: vscode.ExtensionContext): ReachAuditApi {
  const liveCounts = new LiveCounts();
  const runs = new RunsTreeProvider(
    () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri),
    () => openedFolders(context.workspaceState),
    (folder) => liveCounts.get(folder),
  );
  const runsView = vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: runs, showCollapseAll: true, canSelectMany: true });
  const output = vscode.window.createOutputChannel('Reach Audit');
  // What every child the extension starts (the engine, Explain This Question, a watched run) gets: the graph cache setting.
  const childEnv = (): Record<string, string> => {
    const cache = readAuditSettings().cacheFolder;
    return cache ? { REACH_AUDIT_CACHE: cache } : {};
  };
  // The bundled CLI, which every child the extension starts runs.
  const cliPath = context.asAbsolutePath(path.join('dist', 'cli.js'));
  const session = new AuditSession(
    cliPath,
    output,
    childEnv,
    () => vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath,
    () => storedServerKey(context.secrets),
  );
  const inView = new RunInView();
  const panel = new AuditPanelHost(context.extensionUri, output, inView);
  context.subscriptions.push(registerParquetRowView());
  // `reach-audit` in VS Code's terminals: the hints name it, and an installed .vsix puts it on no PATH.
  let cliFolder: string | undefined;
  try {
    cliFolder = writeCliShim(path.join(context.globalStorageUri.fsPath, 'bin'), process.execPath, cliPath);
    context.environmentVariableCollection.description = 'Puts the Reach Audit extension\'s bundled reach-audit command on the PATH.';
    context.environmentVariableCollection.prepend('PATH', `${cliFolder}${path.delimiter}`);
  } catch (err) {
    output.appendLine(`[extension] cannot write the reach-audit launcher: ${(err as Error).message}`);
  }
  const openCliTerminal = () => {
    const terminal = vscode.window.createTerminal({
      name: 'reach-audit',
      ...(cliFolder ? { env: { PATH: `${cliFolder}${path.delimiter}${process.env.PATH ?? ''}` } } : {}),
      cwd: vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri,
    });
    terminal.show();
    return terminal;
  };
  const auditView = new AuditViewProvider((folder) => liveCounts.get(folder));
  // One count of a live run everywhere: the events that move the notification and the status bar
  // move the Runs view's row and the Audit view in the same turn.
  // A comparison's base run is over when its tuned run starts; at the request's end every run it
  // started is (the end names the comparison's folder, not its runs).
  const started = new Set<string>();
  // Runs going are noted in the workspace's state, so a window reload that stops them is told at the next activation.
  const interrupted = new InterruptedRuns(context.workspaceState);
  const foundBefore = interrupted.takeAtActivation((folder) => detachedRunState(folder) === 'running');
  const stoppedBefore = foundBefore.then((found) => found.stopped);
  // One write at a time, after the activation's reading: a run that ends fast is struck off after it was noted.
  let noting: Promise<unknown> = stoppedBefore;
  const note = (write: () => Thenable<void>) => (noting = noting.then(write, write));
  const endStarted = () => {
    for (const folder of started) {
      liveCounts.end(folder);
      void note(() => interrupted.ended(folder));
    }
    started.clear();
  };
  const counting = session.listen({
    onStarted: (e) => {
      if (e.label === 'tuned') endStarted();
      started.add(e.runDir);
      void note(() => interrupted.started(e.runDir));
      liveCounts.set(e.runDir, e.done, e.total);
    },
    onProgress: (e, runDir) => runDir && liveCounts.set(runDir, e.done, e.total),
    onEnded: (runDir) => {
      endStarted();
      if (runDir) {
        liveCounts.end(runDir);
        void note(() => interrupted.ended(runDir));
      }
    },
  });
  liveCounts.onDidChange((folder) => {
    runs.liveChanged();
    auditView.liveChanged(folder);
  });
  const runFolders = async () => (await runs.runs()).map((r) => r.folder);
  const records = new QuestionRecords(async (file) => {
    const target = path.resolve(file);
    const all = await runs.runs();
    return all.filter((r) => r.dataset && datasetPathOf(r.dataset, r.folder) === target).map((r) => r.folder);
  }, inView);
  // After a command wrote or removed a run folder: the Runs view lists it, the question marks read it again.
  const refreshRuns = async (): Promise<void> => {
    await runs.refresh();
    records.invalidate();
  };
  const gutter = new QuestionGutter(context.extensionUri, records);
  const cursorLine = new CursorLineState(records);
  // A trajectory's question opens in the audit panel, with its line in the dataset.
  const tables = new TablesPanelHost(context.extensionUri, async (runDir, id) => {
    const line = loadRunFolder(runDir).data.records.find((r) => String(r.id) === id)?.line;
    await vscode.commands.executeCommand('reachAudit.showQuestion', { runDir, id, ...(typeof line === 'number' ? { line } : {}) });
  });

  const watches = registerWatchCommand({ tables, output, cliPath, env: childEnv, choices: new AuditChoices(context.workspaceState) });
  const checkpointFolders = registerCheckpointFoldersCommand({ tables, output, cliPath, env: childEnv, choices: new AuditChoices(context.workspaceState) });

  const selectedRun = (): string | undefined => {
    const node = runsView.selection[0];
    return node && 'run' in node ? node.run.folder : undefined;
  };
  // A run clicked in the Runs view comes in view: the open panel, the Audit view and the marks follow
  // it (a question row has its own command, Show Question).
  const selectionInView = () => {
    const [node] = runsView.selection;
    if (runsView.selection.length !== 1 || node?.kind !== 'run') return;
    inView.set(node.run.folder);
  };
  // The Audit view shows the run in view; before any run was shown, the newest; after the run in view
  // was deleted, says so (it does not jump to another run while the panel has closed).
  const showInAuditView = async () => {
    const all = await runs.runs();
    const folder = inView.folder;
    if (!folder) {
      if (inView.gone) auditView.showGone(path.basename(inView.gone));
      else auditView.show(all[0]);
      return;
    }
    let entry: RunEntry | undefined = all.find((r) => path.resolve(r.folder) === folder);
    if (!entry) {
      try {
        entry = await readRun(folder);
      } catch {
        entry = undefined;
      }
    }
    // A stale answer (another run came in view while this one was read) is dropped.
    if (inView.folder === folder) auditView.show(entry);
  };
  // A run folder deleted while in view leaves the panel, the Audit view and the marks together.
  // Checked on every change the watcher reports and every two seconds (a folder deleted outside the
  // workspace, or removed whole, reports no file event).
  const dropDeleted = () => {
    if (inView.dropIfDeleted()) {
      const gone = inView.gone ? path.basename(inView.gone) : 'the run';
      void vscode.window.showInformationMessage(`Reach Audit: ${gone} was deleted; it is no longer shown.`);
      void runs.refresh();
    }
  };
  const deletedCheck = setInterval(dropDeleted, 2000);
  inView.onDidChange(() => void showInAuditView());

  // Runs written by the CLI or an audit appear without a manual refresh; bursts of writes are
  // coalesced (at most one read every half second, also while a run keeps writing).
  const refreshSoon = throttle(500, () => {
    dropDeleted();
    void runs.refresh().then(() => {
      records.invalidate();
      return showInAuditView();
    });
  });
  // A live run's counts (its row, the Audit view): that run alone is re-read, about once a second.
  const runProgress = throttle(1000, (folder: string) => {
    void runs.refreshRun(folder).then(() => showInAuditView());
  });
  // One glob for every workspace folder, including folders added later.
  const watcher = vscode.workspace.createFileSystemWatcher(`**/${RUN_FILES_GLOB}`);
  watcher.onDidCreate(() => refreshSoon(undefined));
  watcher.onDidChange(() => refreshSoon(undefined));
  watcher.onDidDelete(() => refreshSoon(undefined));

  context.subscriptions.push(
    inView,
    { dispose: () => clearInterval(deletedCheck) },
    liveCounts,
    counting,
    runs,
    runsView,
    watcher,
    output,
    session,
    panel,
    records,
    gutter,
    cursorLine,
    tables,
    watches,
    checkpointFolders,
    vscode.window.registerWebviewViewProvider(AUDIT_VIEW_ID, auditView),
    vscode.languages.registerHoverProvider([{ scheme: 'file', pattern: '**/*.jsonl' }, { scheme: 'file', pattern: '**/*.json' }], new QuestionHoverProvider(records)),
    runsView.onDidChangeSelection(selectionInView),
    vscode.commands.registerCommand(REFRESH_RUNS_COMMAND, async () => {
      dropDeleted();
      const result = await runs.refresh();
      records.invalidate();
      await showInAuditView();
      return result;
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void runs.refresh()),
    vscode.commands.registerCommand('reachAudit.openCliTerminal', openCliTerminal),
    ...registerTablesCommands({ tables, selection: () => runsView.selection, runs: () => runs.runs() }),
    registerExplainCommand({
      panel,
      output,
      cliPath,
      runFolders,
      runInView: () => inView.folder,
      env: childEnv,
    }),
    registerVerifyRunCommand({ cliPath, output, env: childEnv, selectedRun }),
    ...registerAuditCommands({ context, session, panel, records, inView, selectedRun: () => inView.folder ?? selectedRun(), runFolders, runsChanged: () => refreshSoon(undefined), runProgress }),
    ...registerServerKeyCommands(context.secrets, output),
    registerImportLogCommand({
      cliPath,
      output,
      refresh: refreshRuns,
      showRun: (folder) => panel.show(folder),
    }),
    registerRegradeCommand({
      cliPath,
      output,
      refresh: refreshRuns,
      showRun: (folder) => panel.show(folder),
      selectedRun: () => inView.folder ?? selectedRun(),
      runFolders,
    }),
    ...registerRunFolderCommands({
      state: context.workspaceState,
      refresh: refreshRuns,
      showRun: (folder) => {
        // Opened in the panel, and in view everywhere even where the panel cannot show it.
        inView.set(folder);
        panel.show(folder);
      },
      selectedRun,
    }),
    { dispose: () => (refreshSoon.cancel(), runProgress.cancel()) },
  );
  void showInAuditView();
  // Runs the last window was running when it went away: they stopped; say so and offer Resume.
  const stoppedNotice = stoppedBefore.then((folders) => {
    for (const folder of folders) {
      void vscode.window.showWarningMessage(`Reach Audit: the audit in ${path.basename(folder)} stopped when the window reloaded or closed; its finished questions are kept.`, 'Resume', 'Show Run').then((a) => {
        if (a === 'Resume') void vscode.commands.executeCommand('reachAudit.resumeRun', folder);
        else if (a === 'Show Run') void vscode.commands.executeCommand('reachAudit.openPanel', { runDir: folder });
      });
    }
    return folders;
  });
  // Runs started as processes of their own that outlived the window before: followed again (panel, progress, Cancel).
  const followNoted = async (): Promise<CommandResult[]> => {
    const running = interrupted.noted().filter((f) => !session.follows(f) && detachedRunState(f) === 'running');
    return Promise.all(running.map((f) => vscode.commands.executeCommand<CommandResult>('reachAudit.followRun', f)));
  };
  const followedAtActivation = foundBefore.then(() => followNoted());
  return { runs, runsView, session, panel, auditView, records, cursorLine, gutter, tables, watches, checkpointFolders, inView, interrupted, stoppedAtActivation: stoppedNotice, followedAtActivation, followNoted };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
