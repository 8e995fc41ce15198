/**
 * Regrade Run… (the Runs view's menu on a finished run, the palette): asks the grading choices
 * (regradeChoices.ts), runs the bundled `reach-audit regrade RUN --out <new run>` in a child process
 * — no model runs, the outputs are the run's own — then opens the new run in view and says how many
 * verdicts changed. A dataset or log that moved, or a regex run's pattern, is asked for and the
 * regrade tried again. Refused in an untrusted workspace, like every command that runs something.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { newRunFolder, readManifest, SUMMARY_FILE } from '../../audit/store';
import { loadRunFolder } from '../panel/runData';
import { correctByItems, markersProblem, regradeArgs, regradeFailure, regradeOutcomeText, runHasThoughts, truncatedItems, type CorrectBy, type RegradeChoice, type TruncatedRule } from './regradeChoices';

export const REGRADE_RUN_COMMAND = 'reachAudit.regradeRun';

export interface RegradeDeps {
  cliPath: string;
  output: vscode.OutputChannel;
  /** Runs changed on disk: the Runs view re-reads before the run opens. */
  refresh(): Promise<unknown>;
  /** Opens a run in the panel (and in view everywhere). */
  showRun(folder: string): void;
  /** The run in view, else the Runs view's selection. */
  selectedRun(): string | undefined;
  /** Every run folder of the workspace, newest first. */
  runFolders(): Promise<string[]>;
}

/** What a caller may give (the test suite, other extensions); anything missing is asked. */
export interface RegradeArgs extends Partial<RegradeChoice> {
  runDir?: string;
  run?: { folder?: unknown };
}

export interface RegradeOutcome {
  how: 'done' | 'failed' | 'dismissed' | 'untrusted';
  runDir?: string;
  /** Verdicts that changed, as regrade counted them. */
  changed?: number;
  message?: string;
}

const STAYS_OPEN = { ignoreFocusOut: true } as const;

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof vscode.Uri);
}

function runRegrade(deps: RegradeDeps, args: string[], cwd: string | undefined, token: vscode.CancellationToken): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron; this makes it plain Node.
    const child = execFile(process.execPath, [deps.cliPath, ...args], { cwd, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      deps.output.append(stdout);
      deps.output.append(stderr);
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stderr });
    });
    token.onCancellationRequested(() => child.kill());
  });
}

export function registerRegradeCommand(deps: RegradeDeps): vscode.Disposable {
  /** The run: the argument, the Runs view's row, else a pick among the finished runs (the one in view first). */
  async function runOf(arg: unknown, given: RegradeArgs): Promise<string | undefined> {
    const named = typeof arg === 'string' ? arg : typeof given.runDir === 'string' ? given.runDir : typeof given.run?.folder === 'string' ? given.run.folder : undefined;
    if (named) return named;
    const finished = (await deps.runFolders()).filter((f) => fs.existsSync(path.join(f, SUMMARY_FILE)));
    if (finished.length === 0) {
      void vscode.window.showInformationMessage('Reach Audit: no finished run in this workspace to regrade.');
      return undefined;
    }
    const first = deps.selectedRun();
    const ordered = [...finished].sort((a, b) => Number(path.resolve(b) === first) - Number(path.resolve(a) === first));
    const pick = await vscode.window.showQuickPick(
      ordered.map((folder) => ({ label: path.basename(folder), description: path.resolve(folder) === first ? 'in view' : undefined, folder })),
      { ...STAYS_OPEN, title: 'Reach Audit: the run to regrade' },
    );
    return pick?.folder;
  }

  /** The grading choices not given; undefined when a picker was closed. */
  async function ask(runDir: string, given: RegradeArgs): Promise<RegradeChoice | undefined> {
    const manifest = readManifest(runDir);
    const grading = manifest.grading;
    const name = path.basename(runDir);
    const gradeTruncated = given.gradeTruncated ?? (await vscode.window.showQuickPick(truncatedItems(grading?.truncated), { ...STAYS_OPEN, title: `Reach Audit: regrade ${name}: outputs cut at the token limit` }))?.value;
    if (!gradeTruncated) return undefined;
    let thinkingMarkers = given.thinkingMarkers;
    const thoughts = runHasThoughts(grading?.thinking, loadRunFolder(runDir).data.records);
    let correctBy: CorrectBy | undefined = given.correctBy;
    while (!correctBy) {
      // A run without thoughts is not asked for markers; its picker offers them last for a user who wants them.
      const offerMarkers = !thoughts && thinkingMarkers === undefined ? [{ label: '$(ellipsis) Thinking Markers…', description: 'no output of this run has a thought; set the markers a reasoning model writes', value: undefined }] : [];
      const pick = await vscode.window.showQuickPick([...correctByItems(grading?.correctBy), ...offerMarkers], { ...STAYS_OPEN, title: `Reach Audit: regrade ${name}: the reading that defines correct` });
      if (!pick) return undefined;
      if (pick.value) correctBy = pick.value;
      else {
        thinkingMarkers = await askMarkers(undefined);
        if (thinkingMarkers === undefined) return undefined;
      }
    }
    if (thoughts && thinkingMarkers === undefined) {
      const own = grading?.thinking ? `${grading.thinking.open}…${grading.thinking.close}` : '<think>…</think>';
      const pick = await vscode.window.showQuickPick([{ label: `Keep ${own}`, description: "this run's thinking markers (default)", other: false }, { label: 'Other Markers…', description: 'OPEN,CLOSE', other: true }], { ...STAYS_OPEN, title: `Reach Audit: regrade ${name}: thinking markers` });
      if (!pick) return undefined;
      if (pick.other) {
        thinkingMarkers = await askMarkers(grading?.thinking ? `${grading.thinking.open},${grading.thinking.close}` : undefined);
        if (thinkingMarkers === undefined) return undefined;
      }
    }
    return { gradeTruncated: gradeTruncated as TruncatedRule, correctBy, ...(thinkingMarkers ? { thinkingMarkers } : {}), ...(given.data ? { data: given.data } : {}), ...(given.pattern ? { pattern: given.pattern } : {}) };
  }

  function askMarkers(value: string | undefined): Thenable<string | undefined> {
    return vscode.window.showInputBox({ ...STAYS_OPEN, title: 'Reach Audit: thinking markers', prompt: "The markers around a reasoning model's thought, OPEN,CLOSE: the answer is read after the last closing one", value: value ?? '<think>,</think>', validateInput: markersProblem });
  }

  /** Where the new run goes: the workspace's runs (so the Runs view lists it), else beside the run. */
  function outFolder(runDir: string): string {
    const workspace = workspaceFolder();
    let name: string;
    try {
      name = readManifest(runDir).name;
    } catch {
      name = path.basename(runDir);
    }
    if (workspace) return newRunFolder(workspace, `${name}-regraded`, new Date());
    let out = `${runDir.replace(/[\\/]+$/, '')}-regraded`;
    for (let i = 2; fs.existsSync(out); i++) out = `${runDir.replace(/[\\/]+$/, '')}-regraded-${i}`;
    return out;
  }

  async function regrade(arg?: unknown): Promise<RegradeOutcome> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage('Reach Audit runs nothing in an untrusted workspace. Trust the workspace to regrade runs; existing runs can still be viewed.', 'Manage Workspace Trust').then((a) => a && vscode.commands.executeCommand('workbench.trust.manage'));
      return { how: 'untrusted' };
    }
    const given: RegradeArgs = isObject(arg) ? (arg as RegradeArgs) : {};
    const runDir = await runOf(arg, given);
    if (!runDir) return { how: 'dismissed' };
    let choice: RegradeChoice | undefined;
    try {
      choice = await ask(runDir, given);
    } catch (err) {
      const message = `cannot read ${runDir}: ${(err as Error).message}`;
      void vscode.window.showErrorMessage(`Reach Audit: ${message}`);
      return { how: 'failed', runDir, message };
    }
    if (!choice) {
      vscode.window.setStatusBarMessage('$(circle-slash) Reach Audit: Regrade Run ended (a picker was closed); nothing was regraded.', 10_000);
      return { how: 'dismissed', runDir };
    }
    const chosen = choice;
    const out = outFolder(runDir);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Reach Audit: regrading ${path.basename(runDir)} (${choice.gradeTruncated} truncated, correct by ${choice.correctBy})`, cancellable: true },
      (_progress, token) => runRegrade(deps, regradeArgs(runDir, out, chosen), workspaceFolder(), token),
    );
    if (result.code !== 0) {
      const failure = regradeFailure(result.stderr, result.code);
      const fix = failure.fix === 'pattern' ? 'Enter Pattern…' : failure.fix === 'log' ? 'Locate Log…' : failure.fix === 'data' ? 'Locate Dataset…' : 'Show Log';
      void vscode.window.showErrorMessage(`Reach Audit: cannot regrade ${path.basename(runDir)}: ${failure.message}`, fix).then(async (a) => {
        if (a === 'Show Log') deps.output.show();
        else if (a === 'Enter Pattern…') {
          const pattern = await vscode.window.showInputBox({ ...STAYS_OPEN, title: 'Reach Audit: the prediction pattern of this regex-format run', prompt: 'A regular expression whose first group is the answer' });
          if (pattern) void vscode.commands.executeCommand(REGRADE_RUN_COMMAND, { ...choice, runDir, pattern });
        } else if (a) {
          const picked = await vscode.window.showOpenDialog({ canSelectMany: false, title: failure.fix === 'log' ? 'Reach Audit: the log this run was imported from' : 'Reach Audit: the dataset this run audited' });
          if (picked?.[0]) void vscode.commands.executeCommand(REGRADE_RUN_COMMAND, { ...choice, runDir, data: picked[0].fsPath });
        }
      });
      return { how: 'failed', runDir, message: failure.message };
    }
    await deps.refresh();
    try {
      deps.showRun(out);
    } catch (err) {
      deps.output.appendLine(`[regrade] cannot show ${out}: ${(err as Error).message}`);
    }
    const said = regradeOutcomeText(result.stderr);
    void vscode.window.showInformationMessage(`Reach Audit: regraded ${path.basename(runDir)} into ${path.basename(out)}: ${said.text}`);
    return { how: 'done', runDir: out, ...(said.changed !== undefined ? { changed: said.changed } : {}), message: said.text };
  }

  return vscode.commands.registerCommand(REGRADE_RUN_COMMAND, regrade);
}
