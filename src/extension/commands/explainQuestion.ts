/**
 * Explain This Question (editor context menu on a dataset line): finds the run in view when it
 * audited the question, else the newest run of this dataset that did, runs the bundled `reach-audit explain RUN --ids ID` on it in a
 * child process (the model loads there, never on the extension host's thread; Cancel kills it),
 * and opens the audit panel at the question, whose detail pane then has its "Why not realized"
 * section. A question outside the run's failure set has nothing to explain, and the command says so.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AuditPanelHost } from '../panel/auditPanel';
import { loadRunFolder } from '../panel/runData';
import { isArgObject, questionAtCursor } from './questionAtCursor';
import { failureSetOf } from '../../audit/mechanism';

export const EXPLAIN_QUESTION_COMMAND = 'reachAudit.explainQuestion';

export interface ExplainArgs {
  file?: string;
  /** 1-based line of the question. */
  line?: number;
  /** The run to explain it in (default: the newest run of the file that has the question). */
  runDir?: string;
  /** Graph cache for the model (default: the cacheFolder setting, else the engine's default). */
  cacheDir?: string;
}

export interface ExplainDeps {
  panel: AuditPanelHost;
  /** The bundled CLI, <extension>/dist/cli.js. */
  cliPath: string;
  /** Every run folder of the workspace, newest first. */
  runFolders(): Promise<string[]>;
  /** The run in view (runInView.ts): tried first, so the panel stays on the run the marks show. */
  runInView(): string | undefined;
  output: vscode.OutputChannel;
  /** Environment for the child (the graph cache setting), as the engine child gets it. */
  env(): Record<string, string>;
}

export interface ExplainOutcome {
  how: 'done' | 'not-in-failure-set' | 'no-run' | 'cancelled' | 'failed' | 'dismissed' | 'untrusted';
  runDir?: string;
  id?: string;
  message?: string;
}

/** The workspace a run was made in (<workspace>/.reach-audit/runs/<run>): its manifest's relative paths start there. */
function workspaceOfRun(runDir: string): string {
  return path.resolve(runDir, '..', '..', '..');
}

function runExplain(deps: ExplainDeps, runDir: string, id: string, cacheDir: string | undefined, token: vscode.CancellationToken): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron; this makes it plain Node.
    const child = spawn(process.execPath, [deps.cliPath, 'explain', runDir, '--ids', id, '--quiet', ...(cacheDir ? ['--cache-dir', cacheDir] : [])], {
      cwd: workspaceOfRun(runDir),
      env: { ...process.env, ...deps.env(), ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => deps.output.append(d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      deps.output.append(d.toString());
    });
    const cancel = token.onCancellationRequested(() => child.kill());
    child.on('close', (code) => {
      cancel.dispose();
      resolve({ code, stderr });
    });
    child.on('error', (err) => {
      cancel.dispose();
      resolve({ code: -1, stderr: err.message });
    });
  });
}

export function registerExplainCommand(deps: ExplainDeps): vscode.Disposable {
  return vscode.commands.registerCommand(EXPLAIN_QUESTION_COMMAND, async (arg?: unknown): Promise<ExplainOutcome> => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage('Reach Audit runs nothing in an untrusted workspace: explaining a question loads the model. Trust the workspace first.');
      return { how: 'untrusted' };
    }
    const given: ExplainArgs = isArgObject(arg) ? (arg as ExplainArgs) : {};
    const place = questionAtCursor(arg, given);
    if (!place) return { how: 'dismissed' };
    const { file, line } = place;

    const target = path.resolve(file);
    const viewed = deps.runInView();
    const candidates = given.runDir ? [given.runDir] : [...(viewed ? [viewed] : []), ...(await deps.runFolders()).filter((f) => path.resolve(f) !== viewed)];
    let found: { runDir: string; id: string; inFailureSet: boolean } | undefined;
    for (const runDir of candidates) {
      let run;
      try {
        run = loadRunFolder(runDir);
      } catch {
        continue;
      }
      if (!given.runDir && run.datasetPath !== target) continue;
      const record = run.data.records.find((r) => r.line === line);
      if (!record || !run.data.manifest) continue;
      found = { runDir, id: record.id, inFailureSet: failureSetOf([record], run.data.manifest).length === 1 };
      break;
    }
    if (!found) {
      void vscode.window.showInformationMessage(`Reach Audit: no run of ${path.basename(file)} has audited the question on line ${line}. Audit it first (Audit This Question).`);
      return { how: 'no-run' };
    }
    if (!found.inFailureSet) {
      void vscode.window.showInformationMessage(`Reach Audit: question ${found.id} is not in the failure set of ${path.basename(found.runDir)} (realized, or not reachable): there is no lost answer to explain.`);
      deps.panel.show(found.runDir, { preserveFocus: true });
      return { how: 'not-in-failure-set', runDir: found.runDir, id: found.id };
    }
    const { runDir, id } = found;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Reach Audit: explaining question ${id}`, cancellable: true },
      (_progress, token) => runExplain(deps, runDir, id, given.cacheDir, token).then((r) => ({ ...r, cancelled: token.isCancellationRequested })),
    );
    if (result.cancelled) return { how: 'cancelled', runDir, id };
    if (result.code !== 0) {
      const message = result.stderr.trim().split('\n').filter((l) => l.startsWith('reach-audit')).pop() ?? `reach-audit explain exited with ${result.code}`;
      void vscode.window.showErrorMessage(`Reach Audit: ${message}`);
      return { how: 'failed', runDir, id, message };
    }
    deps.panel.show(runDir, { preserveFocus: true });
    await deps.panel.whenReady();
    // The account it wrote, in sight: "Why not realized" is below the fold of the detail pane.
    deps.panel.selectQuestion(id, 'mechanism');
    return { how: 'done', runDir, id };
  });
}
