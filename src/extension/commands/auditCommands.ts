/**
 * The Reach Audit commands that run the engine or show its results: Run Reachability Audit (also
 * on an explorer file), Compare Checkpoints, the per-question editor commands, Open Audit Panel,
 * Select Model, Export Results. Each engine command refuses to run in an untrusted workspace.
 * Commands accept an optional argument object (the test suite and other extensions use it) that
 * skips the pickers; without it they ask with quick picks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_PROBES, isRemoteBackend, type AuditRequestOptions, type QuestionRequestOptions, type RequestBody } from '../../service';
import { lostAnswerOptions, noDepthReason } from './lostAnswerOptions';
import { forkOptions, noForkReason } from './forkOptions';
import type { Comparison } from '../../contract';
import { AuditChoices, isBenchmarkFile } from './auditChoices';
import { isArgObject, questionAtCursor } from './questionAtCursor';
import type { RunKind } from './runOptionItems';
import { questionCommandPlan, questionCommandTitle, type QuestionCommand } from './questionCommandPlan';
import { exportRecordsInteractively, writeExport, type AuditPanelHost } from '../panel/auditPanel';
import type { AuditSession, SessionOutcome } from './auditSession';
import { readAuditSettings, runOptionsOf } from './workspaceSettings';
import type { QuestionRecords } from '../editor/questionRecords';
import { loadRunFolder } from '../panel/runData';
import { demoDataFile } from './demoData';
import { showSkippedNotice } from './skippedNotice';
import type { RunInView } from '../runInView';
import { resumePlan, workspaceOfRun } from './resumeOptions';
import { harnessLogKind, IMPORT_LOG_COMMAND } from './importLog';
import { alreadyUnreached, alreadyUnreachedText, noRepairReason } from './repairScanOutcome';
import { addProbesOptions, logSelection, missingQuestionsText, probedRunName } from './addProbesPlan';
import { readDataset } from '../../service';
import { readManifest } from '../../audit/store';
import { writeHtmlExport } from '../panel/htmlExport';

export const COMMANDS = {
  runAudit: 'reachAudit.runAudit',
  runAuditOnFile: 'reachAudit.runAuditOnFile',
  tryDemo: 'reachAudit.tryDemo',
  compare: 'reachAudit.compareCheckpoints',
  openPanel: 'reachAudit.openPanel',
  selectModel: 'reachAudit.selectModel',
  exportResults: 'reachAudit.exportResults',
  auditQuestion: 'reachAudit.auditQuestion',
  probeRoutes: 'reachAudit.probeRoutesForQuestion',
  silenceBlocks: 'reachAudit.silenceBlocksForQuestion',
  findLostAnswer: 'reachAudit.findWhereAnswerIsLost',
  findFork: 'reachAudit.findWhereAnswerForks',
  showQuestion: 'reachAudit.showQuestion',
  showLog: 'reachAudit.showLog',
  resumeRun: 'reachAudit.resumeRun',
  followRun: 'reachAudit.followRun',
  addProbes: 'reachAudit.addProbesToLog',
} as const;

/** Questions the bundled-demo command audits (the first ones of the demo benchmark). */
export const DEMO_QUESTIONS = 8;

/** Overrides a caller may pass (all optional; anything missing comes from settings or a picker). */
export type AuditArgs = Partial<AuditRequestOptions> & {
  /** Run it as a process of its own that a window reload does not stop (default: the keepRunningOnReload setting). */
  keepRunning?: boolean;
};
export type CompareArgs = Partial<AuditRequestOptions> & { baseModel?: string; tunedModel?: string };
export interface QuestionArgs {
  file?: string;
  /** 1-based line of the question. */
  line?: number;
  options?: Partial<QuestionRequestOptions>;
  /** Silence MLP Blocks: run the probes even when the run in view already shows the question out of reach. */
  force?: boolean;
}
export interface ExportArgs {
  runDir?: string;
  format?: 'csv' | 'json' | 'html';
  file?: string;
}
/** Add Probes to This Log…: the imported run (else the Runs view's row, else a pick), and what would be asked. */
export interface AddProbesArgs {
  runDir?: string;
  run?: { folder?: unknown };
  model?: string;
  data?: string;
  /** Given: the later steps (selectors, options) are not asked either. */
  probes?: string[];
  options?: Partial<AuditRequestOptions>;
}

export interface CommandResult {
  runDir?: string;
  how: 'done' | 'cancelled' | 'failed' | 'dismissed' | 'untrusted';
  message?: string;
  /** The notification of a finished run that skipped questions (how many were audited, why not the rest). */
  skipped?: string;
}

export interface CommandDeps {
  context: vscode.ExtensionContext;
  session: AuditSession;
  panel: AuditPanelHost;
  records: QuestionRecords;
  /** The one run every surface shows. */
  inView: RunInView;
  /** The run in view, else the run selected in the Runs view, else undefined. */
  selectedRun(): string | undefined;
  /** Every run folder of the workspace, newest first. */
  runFolders(): Promise<string[]>;
  /** Runs changed on disk: refresh the tree, the Audit view and the dataset editors' marks. */
  runsChanged(): void;
  /** A live run recorded more questions: re-read its row and the Audit view (throttled). */
  runProgress(runDir: string): void;
}

/**
 * A file picked as a dataset that is a harness log (lm-eval samples, an Inspect log, lighteval
 * details): says so and offers the import; true when it was one (the audit does not go on).
 */
function offeredImport(data: string): boolean {
  const kind = harnessLogKind(data);
  if (!kind) return false;
  const tool = kind === 'lm-eval' ? 'an lm-evaluation-harness samples log' : kind === 'inspect' ? 'an Inspect log' : 'a lighteval details file';
  void vscode.window.showWarningMessage(`Reach Audit: ${path.basename(data)} is ${tool}, not a dataset. Import it as a run (its outputs are the deployment's answers, graded by Reach Audit's rules)?`, 'Import Evaluation Log…').then((a) => {
    if (a) void vscode.commands.executeCommand(IMPORT_LOG_COMMAND, vscode.Uri.file(data));
  });
  return true;
}

/**
 * A command whose picker was closed: says in the status bar which step closed and that nothing
 * started, so an ended command is never silent.
 */
function closedStep(command: string, step: string): CommandResult {
  const message = `${command} ended at the ${step} step (its picker was closed); nothing was started.`;
  vscode.window.setStatusBarMessage(`$(circle-slash) Reach Audit: ${message}`, 10_000);
  return { how: 'dismissed', message };
}

/** reachAudit.keepRunningOnReload: Run Audit and Resume Run start the CLI as a process of its own that a window reload does not stop. */
function keepRunningOnReload(): boolean {
  return vscode.workspace.getConfiguration('reachAudit').get<boolean>('keepRunningOnReload') === true;
}

function workspaceFolder(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder?.uri.fsPath;
}

/** No engine in an untrusted workspace: a dataset or model folder could be hostile. */
function trusted(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showErrorMessage(
    'Reach Audit runs nothing in an untrusted workspace: it would load a model and read datasets from it. Trust the workspace to run audits; existing runs can still be viewed.',
    'Manage Workspace Trust',
  ).then((a) => a && vscode.commands.executeCommand('workbench.trust.manage'));
  return false;
}

export function registerAuditCommands(deps: CommandDeps): vscode.Disposable[] {
  const { context, session, panel, records } = deps;
  const choices = new AuditChoices(context.workspaceState, path.join(context.extensionPath, 'media', 'demo'));

  /** Runs an audit-like request with the panel filling live; on cancel or crash, offers Resume. */
  async function runLive(body: Extract<RequestBody, { type: 'audit' }>, title: string, dataset: string, keepRunning = keepRunningOnReload()): Promise<CommandResult> {
    return followLive(dataset, async () => {
      if (keepRunning) {
        const r = await session.runDetached(body.options, title);
        return r.how === 'failed' && !('total' in r) ? { how: 'failed', runDir: r.runDir, message: r.message } : r;
      }
      const result = await session.run(body, title);
      return {
        how: result.outcome?.type === 'result' ? 'done' : result.outcome?.type === 'stopped' ? 'cancelled' : 'failed',
        runDir: result.runDir,
        total: result.outcome?.type === 'stopped' ? result.outcome.total : undefined,
        message: result.error?.message,
      };
    }, (runDir) => resume(body, dataset, runDir));
  }

  /**
   * The panel, the dataset's marks and the Runs view following a run while `go` runs it (the engine
   * child, or a CLI process of its own), then its end said with Resume where it stopped.
   */
  async function followLive(dataset: string, go: () => Promise<{ how: 'done' | 'cancelled' | 'failed' | 'left'; runDir?: string; total?: number; message?: string }>, resumeIt: (runDir: string) => Promise<CommandResult>): Promise<CommandResult> {
    let liveDir: string | undefined;
    const listener = session.listen({
      onStarted: (e) => {
        liveDir = e.runDir;
        try {
          panel.show(e.runDir, { preserveFocus: true, status: { status: 'running', done: e.done, total: e.total } });
        } catch (err) {
          session.output.appendLine(`[panel] cannot show ${e.runDir}: ${(err as Error).message}`);
        }
      },
      onRecord: (e, runDir) => {
        const dir = runDir ?? liveDir;
        if (!dir) return;
        panel.appendRecord(dir, e.record);
        records.addRecord(dataset, dir, e.record);
        deps.runProgress(dir);
      },
      onProgress: (e, runDir) => {
        const dir = runDir ?? liveDir;
        if (dir) panel.progress(dir, e.done, e.total);
      },
    });
    let result: Awaited<ReturnType<typeof go>>;
    try {
      result = await go();
    } finally {
      listener.dispose();
    }
    deps.runsChanged();
    const runDir = result.runDir ?? liveDir;
    // The window stopped following a run that goes on in its own process (the next activation follows it again).
    if (result.how === 'left') return { runDir, how: 'dismissed', message: 'still running in its own process; no longer followed by this window' };
    const keptRecords = runDir && fs.existsSync(path.join(runDir, 'manifest.json')) ? loadRunFolder(runDir).data.records : [];
    const kept = keptRecords.length;
    if (result.how === 'done') {
      if (runDir) panel.setStatus(runDir, { status: 'done', done: kept, total: kept });
      const skipped = showSkippedNotice(keptRecords, session.output);
      return { runDir, how: 'done', ...(skipped ? { skipped } : {}) };
    }
    const how = result.how;
    if (runDir && fs.existsSync(path.join(runDir, 'manifest.json'))) {
      panel.setStatus(runDir, { status: how, done: kept, total: how === 'cancelled' && result.total !== undefined ? result.total : kept, message: result.message });
      const message = how === 'cancelled'
        ? `Reach Audit: audit stopped; ${kept} finished question${kept === 1 ? '' : 's'} kept in ${path.basename(runDir)}.`
        : `Reach Audit: the audit failed; ${kept} finished question${kept === 1 ? '' : 's'} kept in ${path.basename(runDir)}.`;
      void vscode.window.showInformationMessage(message, 'Resume').then((a) => {
        if (a) void resumeIt(runDir);
      });
    }
    return { runDir, how, message: result.message };
  }

  /**
   * Follows a run a CLI process of its own is writing (one this window started before a reload):
   * the panel, progress with Cancel, the end with Resume. Resume goes through Resume Run (its manifest's options).
   */
  async function followRun(arg?: unknown): Promise<CommandResult> {
    const runDir = typeof arg === 'string' ? arg : isArgObject(arg) && typeof arg.runDir === 'string' ? arg.runDir : undefined;
    if (!runDir) return { how: 'dismissed' };
    let dataset = '';
    try {
      const m = readManifest(runDir);
      dataset = path.resolve(workspaceOfRun(runDir), m.dataset.path);
    } catch {
      // Not written yet (the model still loads): the dataset's marks follow from the next start.
    }
    return followLive(dataset, async () => session.follow(runDir, `Reach Audit: auditing ${path.basename(runDir)} (kept running through a reload)`), (dir) => resumeRun(dir));
  }

  /** Continues a stopped run in its folder: same options, resume on. */
  function resume(body: Extract<RequestBody, { type: 'audit' }>, dataset: string, runDir: string): Promise<CommandResult> {
    if (!trusted()) return Promise.resolve({ how: 'untrusted' });
    return runLive({ type: 'audit', options: { ...body.options, out: runDir, resume: true } }, `Reach Audit: resuming ${path.basename(runDir)}`, dataset);
  }

  /**
   * The steps after the probes: the answer-blind selectors, the questions (all or the first N), then
   * preset, weights and the rest of the options table for this run (the settings hold the defaults).
   * `{ closed }` names the step that was dismissed.
   */
  async function askRunSteps(settings: ReturnType<typeof readAuditSettings>, probes: string[], data: string, kind: RunKind): Promise<Partial<AuditRequestOptions> | { closed: string }> {
    const select = await choices.selectors(probes, settings.selectors);
    if (!select) return { closed: 'answer-blind selection' };
    const scope = await choices.limit(data);
    if (!scope) return { closed: 'questions' };
    const asked: Partial<AuditRequestOptions> = { select };
    if (scope.limit !== undefined) asked.limit = scope.limit;
    const chosen = await choices.runOptions({ ...runOptionsOf(settings), ...asked, probes }, kind);
    return chosen ? { ...asked, ...chosen } : { closed: 'options' };
  }

  async function runAudit(arg?: unknown): Promise<CommandResult> {
    if (!trusted()) return { how: 'untrusted' };
    const { keepRunning, ...given }: AuditArgs = isArgObject(arg) ? (arg as AuditArgs) : {};
    const uri = arg instanceof vscode.Uri ? arg : undefined;
    const settings = readAuditSettings();
    const closedAt = (step: string): CommandResult => closedStep('Run Reachability Audit', step);
    const data = given.data ?? (isBenchmarkFile(uri) ? uri.fsPath : await choices.dataset());
    if (!data) return closedAt('dataset');
    if (offeredImport(data)) return { how: 'dismissed', message: 'a harness log, not a dataset' };
    const model = given.model ?? (await choices.model('model', settings.modelPath, isRemoteBackend({ ...settings.options, ...given })));
    if (!model) return closedAt('model');
    const probes = given.probes ?? (await choices.probes(settings.probes));
    if (!probes) return closedAt('probes');
    // From the palette or the explorer (no argument object): the scope and the selectors too, so the
    // plan offered before the first question counts only what was picked here.
    const asked = isArgObject(arg) ? {} : await askRunSteps(settings, probes, data, 'audit');
    if ('closed' in asked) return closedAt(asked.closed);
    if (settings.problems.length > 0) void vscode.window.showWarningMessage(`Reach Audit: settings left out (wrong type): ${settings.problems.join('; ')}`);
    const options: AuditRequestOptions = { ...runOptionsOf(settings), ...asked, ...given, model, data, probes };
    const ws = workspaceFolder();
    if (ws && !options.workspace) options.workspace = ws;
    return runLive({ type: 'audit', options }, `Reach Audit: auditing ${path.basename(data)}`, data, keepRunning ?? keepRunningOnReload());
  }

  async function compare(arg?: unknown): Promise<CommandResult> {
    if (!trusted()) return { how: 'untrusted' };
    const given: CompareArgs = isArgObject(arg) ? (arg as CompareArgs) : {};
    const settings = readAuditSettings();
    const closedAt = (step: string): CommandResult => closedStep('Compare Checkpoints', step);
    const data = given.data ?? (await choices.dataset());
    if (!data) return closedAt('dataset');
    if (offeredImport(data)) return { how: 'dismissed', message: 'a harness log, not a dataset' };
    const baseModel = given.baseModel ?? (await choices.model('base', settings.baseModelPath));
    if (!baseModel) return closedAt('base model');
    const tunedModel = given.tunedModel ?? (await choices.model('tuned', settings.tunedModelPath));
    if (!tunedModel) return closedAt('trained model');
    const probes = given.probes ?? (await choices.probes(settings.probes));
    if (!probes) return closedAt('probes');
    // From the palette: the same steps as Run Reachability Audit (selectors, questions, the
    // options of the run), for both runs; the estimate before each run counts what was picked here.
    const asked = isArgObject(arg) ? {} : await askRunSteps(settings, probes, data, 'comparison');
    if ('closed' in asked) return closedAt(asked.closed);
    if (settings.problems.length > 0) void vscode.window.showWarningMessage(`Reach Audit: settings left out (wrong type): ${settings.problems.join('; ')}`);
    const rest: Partial<AuditRequestOptions> = { ...asked, ...given };
    delete rest.model;
    const options = { ...runOptionsOf(settings), ...rest, data, probes, baseModel, tunedModel, workspace: given.workspace ?? workspaceFolder() };
    const runs: Partial<Record<'base' | 'tuned', string>> = {};
    const listener = session.listen({
      onStarted: (e) => e.label && (runs[e.label] = e.runDir),
      onRecord: (_e, runDir) => runDir && deps.runProgress(runDir),
    });
    let result: SessionOutcome<{ type: 'compare'; options: typeof options }>;
    try {
      result = await session.run({ type: 'compare', options }, `Reach Audit: comparing ${path.basename(baseModel)} → ${path.basename(tunedModel)}`);
    } finally {
      listener.dispose();
    }
    deps.runsChanged();
    // Only a finished comparison has its numbers; a stopped one still shows both runs side by side.
    let compareSummary: Comparison | undefined;
    if (result.outcome?.type === 'result' && 'comparison' in result.outcome) {
      const c = result.outcome.comparison;
      runs.base ??= c.base.folder;
      runs.tuned ??= c.tuned.folder;
      compareSummary = c.comparison;
    }
    if (runs.tuned) panel.show(runs.tuned, { baseFolder: runs.base, compare: compareSummary });
    const how = result.outcome?.type === 'result' ? 'done' : result.outcome?.type === 'stopped' ? 'cancelled' : 'failed';
    if (how !== 'done') {
      // Stopped or failed: both runs keep their finished questions; Resume continues the comparison with the same options.
      const said = how === 'cancelled' ? 'Reach Audit: comparison stopped; finished questions are kept in both run folders.' : `Reach Audit: the comparison failed${result.error?.message ? ` (${result.error.message})` : ''}; finished questions are kept in both run folders.`;
      void vscode.window.showInformationMessage(said, 'Resume').then((a) => {
        if (a && trusted()) void compare({ ...given, ...options, resume: true });
      });
    }
    // Both runs audit the same prompts under the same budget: the tuned run's skips are the comparison's.
    const skipped = how === 'done' && runs.tuned ? showSkippedNotice(loadRunFolder(runs.tuned).data.records, session.output, 'comparison') : undefined;
    return { runDir: result.runDir, how, message: result.error?.message, ...(skipped ? { skipped } : {}) };
  }

  /**
   * The Runs view's first step for a new user: Compare Checkpoints on the bundled demo pair and its
   * arithmetic benchmark, on the first few questions with small budgets so it finishes in about
   * 20 seconds; the panel then shows the comparison. Arguments override the demo's settings.
   */
  async function tryDemo(arg?: unknown): Promise<CommandResult> {
    if (!trusted()) return { how: 'untrusted' };
    const demo = path.join(context.extensionPath, 'media', 'demo');
    const given: CompareArgs = isArgObject(arg) ? (arg as CompareArgs) : {};
    // The workspace's copy of the demo data, so its lines carry the run's marks in the user's editor.
    let data = given.data;
    if (!data) {
      try {
        data = demoDataFile(path.join(demo, 'data', 'arith-test.jsonl'), workspaceFolder());
      } catch (err) {
        session.output.appendLine(`[demo] cannot copy the demo data into the workspace (${(err as Error).message}); auditing the bundled copy`);
        data = path.join(demo, 'data', 'arith-test.jsonl');
      }
    }
    const result = await compare({
      baseModel: path.join(demo, 'base'),
      tunedModel: path.join(demo, 'tuned'),
      data,
      limit: DEMO_QUESTIONS,
      probes: ['sample:8', 'routes:8', 'search:8'],
      repair: true,
      maxNewTokens: 64,
      name: 'demo',
      // The bundled pair is on this machine: servers set in the settings serve some other model.
      backend: 'local',
      ...given,
    });
    // The audited lines beside the panel, marked.
    if (result.how === 'done' && !given.data && panel.visible) await panel.revealInDataset(data, 1);
    return result;
  }

  /** The per-question editor commands: the question under the cursor, with the chosen probes. */
  async function auditQuestion(kind: QuestionCommand | 'depth' | 'fork', arg?: unknown): Promise<CommandResult> {
    if (!trusted()) return { how: 'untrusted' };
    const given: QuestionArgs = isArgObject(arg) ? (arg as QuestionArgs) : {};
    const place = questionAtCursor(arg, given);
    if (!place) return { how: 'dismissed' };
    const { file, line } = place;
    const editor = vscode.window.activeTextEditor;
    if (editor?.document.isDirty && editor.document.uri.fsPath === file) await editor.document.save();
    const settings = readAuditSettings();
    const model = given.options?.model ?? (await choices.model('model', settings.modelPath, isRemoteBackend({ ...settings.options, ...given.options })));
    if (!model) return { how: 'dismissed' };
    const planned = questionCommandPlan<QuestionRequestOptions>(kind === 'depth' || kind === 'fork' ? 'all' : kind, { ...runOptionsOf(settings), ...(choices.rememberedProbes() ? { probes: choices.rememberedProbes() } : {}), ...given.options, model, data: file });
    // Find Where This Answer Is Lost: the question's audit with the depth probe (lostAnswerOptions.ts);
    // Find Where the Answer Forks: with the fork probe (forkOptions.ts).
    const base = kind === 'depth' ? lostAnswerOptions(planned) : kind === 'fork' ? forkOptions(planned) : planned;
    const ws = workspaceFolder();
    if (ws && !base.workspace) base.workspace = ws;
    // Silence MLP Blocks on a question the run in view already shows out of reach under these probes:
    // the probes would learn that again and the scan would not run. Say so now, with a way to run anyway.
    if (kind === 'repair' && !given.force) {
      const known = await records.recordsFor(file);
      const record = known?.byLine.get(line);
      let recordModel: string | undefined;
      try {
        recordModel = known ? loadRunFolder(known.runDir).data.manifest?.model.path : undefined;
      } catch {
        recordModel = undefined; // unreadable: run the probes
      }
      if (known && record && alreadyUnreached(record, recordModel, model, base.probes ?? DEFAULT_PROBES)) {
        const text = `Reach Audit: ${alreadyUnreachedText(record, known.runDir)}`;
        void vscode.window.showInformationMessage(text, 'Run the Probes Anyway').then((a) => {
          if (a) void vscode.commands.executeCommand(COMMANDS.silenceBlocks, { file, line, options: given.options, force: true });
        });
        return { runDir: known.runDir, how: 'dismissed', message: text };
      }
    }
    const title =
      kind === 'depth' ? `Reach Audit: finding where the answer is lost in the question on line ${line}`
        : kind === 'fork' ? `Reach Audit: finding where the answer forks in the question on line ${line} (fork probe, B = ${base.forkProbe ?? ''})`
          : questionCommandTitle(kind, line, base);
    const result = await session.run({ type: 'auditQuestion', question: { line }, options: base }, title);
    deps.runsChanged();
    if (result.outcome?.type === 'result' && 'record' in result.outcome && result.runDir) {
      const record = result.outcome.record;
      // A one-question run is its own run: it comes in view everywhere (panel, side bar, marks), and
      // the notice says so and offers the run that was in view back, so its marks are not lost unseen.
      const before = deps.inView.folder;
      panel.show(result.runDir, { preserveFocus: true });
      records.addRecord(file, result.runDir, record);
      if (before && before !== path.resolve(result.runDir)) {
        const back = `Back to ${path.basename(before)}`;
        void vscode.window.showInformationMessage(`Reach Audit: question ${String(record.id)} was audited in a run of its own (${path.basename(result.runDir)}); the panel, the Audit view and the dataset's marks show that one-question run now.`, back).then((a) => {
          if (a === back && fs.existsSync(before)) panel.show(before, { preserveFocus: true });
        });
      }
      await panel.whenReady();
      panel.selectQuestion(record.id, kind === 'depth' && record.depth ? 'depth' : undefined);
      const why = kind === 'depth' ? noDepthReason(record) : kind === 'fork' ? noForkReason(record) : kind === 'repair' ? noRepairReason(record) : undefined;
      if (why) void vscode.window.showInformationMessage(`Reach Audit: ${why}`);
      return { runDir: result.runDir, how: 'done', ...(why ? { message: why } : {}) };
    }
    return { runDir: result.runDir, how: result.outcome?.type === 'stopped' ? 'cancelled' : 'failed', message: result.error?.message };
  }

  /**
   * Resume (Runs view, panel, the notices): continues a stopped run in its folder with the options
   * its manifest records. With `baseRunDir` (the panel's Resume on a comparison): each unfinished
   * run of the pair, base first, then the two are compared.
   */
  async function resumeRun(arg?: unknown): Promise<CommandResult> {
    if (!trusted()) return { how: 'untrusted' };
    const runDir = typeof arg === 'string' ? arg : await targetRun(arg);
    if (!runDir) return { how: 'dismissed' };
    const baseRunDir = isArgObject(arg) && typeof arg.baseRunDir === 'string' ? arg.baseRunDir : undefined;
    if (baseRunDir) return resumeComparison(baseRunDir, runDir);
    return resumeOne(runDir);
  }

  async function resumeOne(runDir: string): Promise<CommandResult> {
    let plan;
    try {
      plan = resumePlan(runDir);
    } catch (err) {
      plan = { problem: `cannot read ${path.basename(runDir)}: ${(err as Error).message}` };
    }
    if ('problem' in plan) {
      void vscode.window.showWarningMessage(`Reach Audit: ${plan.problem}`);
      return { runDir, how: 'failed', message: plan.problem };
    }
    return runLive({ type: 'audit', options: plan.options }, `Reach Audit: resuming ${path.basename(runDir)}`, plan.dataset);
  }

  /** The imported run Add Probes works on: the argument, else a pick among the workspace's imported runs (the one in view first). */
  async function importedRunOf(given: AddProbesArgs, arg: unknown): Promise<string | undefined> {
    const named = typeof arg === 'string' ? arg : typeof given.runDir === 'string' ? given.runDir : typeof given.run?.folder === 'string' ? given.run.folder : undefined;
    if (named) return named;
    const imported = (await deps.runFolders()).filter((f) => {
      try {
        return readManifest(f).imported !== undefined;
      } catch {
        return false;
      }
    });
    if (imported.length === 0) {
      void vscode.window.showInformationMessage('Reach Audit: no imported run in this workspace. Import an evaluation log first (lm-eval samples, an Inspect log, lighteval details).', 'Import Evaluation Log…').then((a) => {
        if (a) void vscode.commands.executeCommand(IMPORT_LOG_COMMAND);
      });
      return undefined;
    }
    const inView = deps.inView.folder;
    const ordered = [...imported].sort((a, b) => Number(path.resolve(b) === inView) - Number(path.resolve(a) === inView));
    const pick = await vscode.window.showQuickPick(
      ordered.map((folder) => {
        const m = readManifest(folder);
        return { label: m.name, description: `${m.imported?.tool ?? 'log'} · ${m.dataset.questions} questions${path.resolve(folder) === inView ? ' · in view' : ''}`, detail: folder, folder };
      }),
      { ignoreFocusOut: true, title: 'Reach Audit: the imported log to add probes to', matchOnDetail: true },
    );
    return pick?.folder;
  }

  /**
   * Add Probes to This Log… (the Runs view's menu on an imported run, its panel, the palette): an
   * audit whose deployment outputs are the log's (--realized-from the imported run) while the
   * probes run on the model the log was made with, on the log's questions. Asks what Run Audit
   * asks where it applies (model, dataset, probes and budgets, selectors, options), then runs live
   * like any audit: progress, Cancel, Resume, the new run in view.
   */
  async function addProbes(arg?: unknown): Promise<CommandResult> {
    if (!trusted()) return { how: 'untrusted' };
    const given: AddProbesArgs = isArgObject(arg) ? (arg as AddProbesArgs) : {};
    const closedAt = (step: string): CommandResult => closedStep('Add Probes to This Log', step);
    const runDir = await importedRunOf(given, arg);
    if (!runDir) return closedAt('imported run');
    let manifest;
    try {
      manifest = readManifest(runDir);
    } catch (err) {
      const message = `cannot read ${path.join(runDir, 'manifest.json')}: ${(err as Error).message}`;
      void vscode.window.showErrorMessage(`Reach Audit: ${message}`);
      return { runDir, how: 'failed', message };
    }
    if (!manifest.imported) {
      const message = `${path.basename(runDir)} was not imported from a log: its outputs are the audit's own. Add Probes works on a run made by Import Evaluation Log….`;
      void vscode.window.showWarningMessage(`Reach Audit: ${message}`);
      return { runDir, how: 'failed', message };
    }
    const settings = readAuditSettings();
    const logModel = manifest.imported.model ? ` (the log names ${manifest.imported.model})` : '';
    const model = given.model ?? (await choices.pickModel('model', `the model folder ${manifest.name} was made with${logModel}`));
    if (!model) return closedAt('model');
    const data = given.data ?? (await choices.dataset('The benchmark file the log\'s questions come from (matched by id)'));
    if (!data) return closedAt('dataset');
    // The log's questions in that file, before a model loads: a wrong file is said here, with the fix.
    const logIds = loadRunFolder(runDir).data.records.map((r) => String(r.id));
    let datasetIds: string[];
    try {
      datasetIds = (await readDataset({ ...runOptionsOf(settings), ...given.options, data })).questions.map((q) => q.id);
    } catch (err) {
      const message = (err as Error).message;
      void vscode.window.showErrorMessage(`Reach Audit: cannot read ${path.basename(data)}: ${message}`);
      return { runDir, how: 'failed', message };
    }
    const chosen = logSelection(datasetIds, logIds);
    if ('missing' in chosen) {
      const message = missingQuestionsText(chosen.missing, logIds.length, data);
      void vscode.window.showErrorMessage(`Reach Audit: ${message}`, 'Pick Another Dataset').then((a) => {
        if (a) void vscode.commands.executeCommand(COMMANDS.addProbes, { ...given, runDir, model, data: undefined });
      });
      return { runDir, how: 'failed', message };
    }
    const probes = given.probes ?? (await choices.probes(settings.probes));
    if (!probes) return closedAt('probes');
    let asked: Partial<AuditRequestOptions> = {};
    if (!given.probes) {
      const select = await choices.selectors(probes, settings.selectors);
      if (!select) return closedAt('answer-blind selection');
      const options = await choices.runOptions({ ...runOptionsOf(settings), select, probes });
      if (!options) return closedAt('options');
      asked = { select, ...options };
    }
    if (settings.problems.length > 0) void vscode.window.showWarningMessage(`Reach Audit: settings left out (wrong type): ${settings.problems.join('; ')}`);
    const options = addProbesOptions({ ...runOptionsOf(settings), ...asked, ...given.options, probes, workspace: given.options?.workspace ?? workspaceFolder() }, runDir, chosen.selection, model, data, probedRunName(manifest.name));
    return runLive({ type: 'audit', options }, `Reach Audit: adding probes to ${manifest.name} (${probes.join(', ')} on ${path.basename(model)})`, data);
  }

  /** A stopped comparison: its unfinished runs resumed in their folders, then compared (comparison.json, the panel). */
  async function resumeComparison(baseRunDir: string, tunedRunDir: string): Promise<CommandResult> {
    for (const dir of [baseRunDir, tunedRunDir]) {
      if (fs.existsSync(path.join(dir, 'summary.json'))) continue;
      const resumed = await resumeOne(dir);
      if (resumed.how !== 'done') return resumed;
    }
    let name: string | undefined;
    try {
      name = /^(.+)-tuned$/.exec(loadRunFolder(tunedRunDir).data.manifest?.name ?? '')?.[1];
    } catch {
      name = undefined; // the engine names it from the two folders
    }
    const result = await session.run({ type: 'compare', options: { baseRun: baseRunDir, tunedRun: tunedRunDir, workspace: workspaceOfRun(tunedRunDir), ...(name ? { name } : {}) } }, `Reach Audit: comparing ${path.basename(baseRunDir)} → ${path.basename(tunedRunDir)}`);
    deps.runsChanged();
    if (result.outcome?.type === 'result' && 'comparison' in result.outcome) {
      panel.show(tunedRunDir, { baseFolder: baseRunDir, compare: result.outcome.comparison.comparison });
      return { runDir: result.runDir, how: 'done' };
    }
    return { runDir: tunedRunDir, how: result.outcome?.type === 'stopped' ? 'cancelled' : 'failed', message: result.error?.message };
  }

  /** The run a command is about: the argument, the Runs view's selection, or the newest run. */
  async function targetRun(arg: unknown): Promise<string | undefined> {
    if (isArgObject(arg)) {
      if (typeof arg.runDir === 'string') return arg.runDir;
      const run = (arg as { run?: { folder?: unknown } }).run;
      if (run && typeof run.folder === 'string') return run.folder;
    }
    const selected = deps.selectedRun();
    if (selected) return selected;
    const all = await deps.runFolders();
    if (all.length === 0) void vscode.window.showInformationMessage('Reach Audit: no audit runs in this workspace yet. Run Reach Audit: Run Reachability Audit first.');
    return all[0];
  }

  async function openPanel(arg?: unknown): Promise<string | undefined> {
    const runDir = await targetRun(arg);
    if (!runDir) return undefined;
    try {
      panel.show(runDir);
    } catch (err) {
      void vscode.window.showErrorMessage(`Reach Audit: cannot open ${runDir}: ${(err as Error).message}`);
      return undefined;
    }
    return runDir;
  }

  async function exportResults(arg?: unknown): Promise<string | undefined> {
    const given: ExportArgs = isArgObject(arg) ? (arg as ExportArgs) : {};
    const runDir = await targetRun(arg);
    if (!runDir) return undefined;
    const run = loadRunFolder(runDir);
    const format = given.format ?? (await vscode.window.showQuickPick(
      [
        { label: 'CSV', description: 'one row per question', format: 'csv' as const },
        { label: 'JSON', description: 'the full records', format: 'json' as const },
        { label: 'HTML Report', description: 'every rate with its n and interval, the charts and the questions, in one page (reach-audit report --html)', format: 'html' as const },
      ],
      { title: `Export ${run.data.label ?? run.data.runId}` },
    ))?.format;
    if (!format) return undefined;
    if (format === 'html') return exportHtmlReport(runDir, given.file);
    if (given.file) {
      writeExport(run, format, given.file);
      return given.file;
    }
    return exportRecordsInteractively(run, format);
  }

  /** The run's HTML report, saved where the user says (beside the run by default) and offered to open. */
  async function exportHtmlReport(runDir: string, file?: string): Promise<string | undefined> {
    let target = file;
    if (!target) {
      const where = fs.existsSync(runDir) ? runDir : workspaceFolder() ?? path.dirname(runDir);
      target = (await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.file(path.join(where, `${path.basename(runDir)}-report.html`)), filters: { HTML: ['html'] }, title: `Export ${path.basename(runDir)} as an HTML report` }))?.fsPath;
    }
    if (!target) return undefined;
    try {
      writeHtmlExport(runDir, target);
    } catch (err) {
      void vscode.window.showErrorMessage(`Reach Audit: cannot write the report ${target}: ${(err as Error).message}`);
      return undefined;
    }
    if (!file) {
      const saved = target;
      void vscode.window.showInformationMessage(`Reach Audit: the HTML report of ${path.basename(runDir)} is in ${saved}.`, 'Open in Browser').then((a) => {
        if (a) void vscode.env.openExternal(vscode.Uri.file(saved));
      });
    }
    return target;
  }

  async function selectModel(): Promise<string | undefined> {
    if (!trusted()) return undefined;
    const folder = await choices.pickModel('model');
    if (folder) void vscode.window.showInformationMessage(`Reach Audit: audits in this workspace will use ${folder}.`);
    return folder;
  }

  /** A question in the panel: the one an argument names (hover link, Runs view), else the audited line under the cursor (the editor's context menu). */
  async function showQuestion(arg?: unknown): Promise<void> {
    if (!isArgObject(arg) || typeof arg.runDir !== 'string') {
      const place = questionAtCursor(arg, {});
      if (!place) return;
      const entry = await records.recordsFor(place.file);
      const record = entry?.byLine.get(place.line);
      if (!entry || !record) {
        void vscode.window.showInformationMessage(`Reach Audit: line ${place.line} of ${path.basename(place.file)} has not been audited.`);
        return;
      }
      panel.show(entry.runDir, { preserveFocus: true });
      await panel.whenReady();
      panel.selectQuestion(String(record.id));
      return;
    }
    const runDir = arg.runDir;
    panel.show(runDir, { preserveFocus: true });
    await panel.whenReady();
    if (arg.id !== undefined) panel.selectQuestion(String(arg.id));
    if (typeof arg.line === 'number') {
      const dataset = loadRunFolder(runDir).datasetPath;
      // Beside the panel: the Runs view and the Trajectory tab must not replace it.
      if (dataset) await panel.revealInDataset(dataset, arg.line);
    }
  }

  const r = vscode.commands.registerCommand;
  return [
    r(COMMANDS.runAudit, runAudit),
    r(COMMANDS.runAuditOnFile, (uri?: vscode.Uri) => runAudit(uri ?? vscode.window.activeTextEditor?.document.uri)),
    r(COMMANDS.compare, compare),
    r(COMMANDS.tryDemo, tryDemo),
    r(COMMANDS.auditQuestion, (a?: unknown) => auditQuestion('all', a)),
    r(COMMANDS.probeRoutes, (a?: unknown) => auditQuestion('routes', a)),
    r(COMMANDS.silenceBlocks, (a?: unknown) => auditQuestion('repair', a)),
    r(COMMANDS.findLostAnswer, (a?: unknown) => auditQuestion('depth', a)),
    r(COMMANDS.findFork, (a?: unknown) => auditQuestion('fork', a)),
    r(COMMANDS.openPanel, openPanel),
    r(COMMANDS.exportResults, exportResults),
    r(COMMANDS.selectModel, selectModel),
    r(COMMANDS.showQuestion, showQuestion),
    r(COMMANDS.showLog, () => session.output.show()),
    r(COMMANDS.resumeRun, resumeRun),
    r(COMMANDS.followRun, followRun),
    r(COMMANDS.addProbes, addProbes),
  ];
}
