/**
 * Verify Run (command palette, and the Runs view's context menu on a finished run): runs the
 * bundled `reach-audit verify RUN --json` in a child process (the model loads there, never on the
 * extension host's thread; Cancel kills it), shows its progress, and says the outcome in a
 * notification: reproduced, or which fields of which questions differ and whether the numerics
 * platform does. The run folder is only read.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { verifyText, type VerifyOutcome } from '../../service';
import { runFolderOf } from './runFolderCommands';

export const VERIFY_RUN_COMMAND = 'reachAudit.verifyRun';

export interface VerifyRunDeps {
  /** The bundled CLI, <extension>/dist/cli.js. */
  cliPath: string;
  output: vscode.OutputChannel;
  /** Environment for the child (the graph cache setting), as the engine child gets it. */
  env(): Record<string, string>;
  /** The run a command is about when no argument names one (the Runs view's selection). */
  selectedRun(): string | undefined;
}

export interface VerifyRunOutcome {
  how: 'reproduced' | 'differs' | 'refused' | 'failed' | 'cancelled' | 'dismissed' | 'untrusted';
  runDir?: string;
  /** The notification's text. */
  message?: string;
  outcome?: VerifyOutcome;
}

/** Arguments beside the run: how many questions and which sample (the CLI's defaults otherwise). */
interface VerifyArgs {
  questions?: number;
  seed?: number;
  cacheDir?: string;
}

function verifyArgs(arg: unknown): VerifyArgs {
  if (typeof arg !== 'object' || arg === null || arg instanceof vscode.Uri) return {};
  const o = arg as Record<string, unknown>;
  return {
    ...(typeof o.questions === 'number' ? { questions: o.questions } : {}),
    ...(typeof o.seed === 'number' ? { seed: o.seed } : {}),
    ...(typeof o.cacheDir === 'string' ? { cacheDir: o.cacheDir } : {}),
  };
}

/** "verify run: 3/5 questions (60%) · …" → "3/5 questions". */
function progressOf(line: string): string | undefined {
  return /: (\d+\/\d+ questions)/.exec(line)?.[1];
}

function runVerify(deps: VerifyRunDeps, runDir: string, given: VerifyArgs, progress: vscode.Progress<{ message?: string }>, token: vscode.CancellationToken): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [deps.cliPath, 'verify', runDir, '--json'];
  if (given.questions !== undefined) args.push('--questions', String(given.questions));
  if (given.seed !== undefined) args.push('--seed', String(given.seed));
  if (given.cacheDir !== undefined) args.push('--cache-dir', given.cacheDir);
  return new Promise((resolve) => {
    // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron; this makes it plain Node.
    const child = spawn(process.execPath, args, { cwd: path.dirname(runDir), env: { ...process.env, ...deps.env(), ELECTRON_RUN_AS_NODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      stderr += text;
      deps.output.append(text);
      const done = text.split(/[\r\n]/).map(progressOf).filter((p) => p !== undefined).pop();
      if (done) progress.report({ message: done });
    });
    const cancel = token.onCancellationRequested(() => child.kill());
    child.on('close', (code) => {
      cancel.dispose();
      resolve({ code, stdout, stderr });
    });
    child.on('error', (err) => {
      cancel.dispose();
      resolve({ code: -1, stdout, stderr: err.message });
    });
  });
}

export function registerVerifyRunCommand(deps: VerifyRunDeps): vscode.Disposable {
  return vscode.commands.registerCommand(VERIFY_RUN_COMMAND, async (arg?: unknown): Promise<VerifyRunOutcome> => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage('Reach Audit runs nothing in an untrusted workspace: verifying a run loads its model and audits again. Trust the workspace first.');
      return { how: 'untrusted' };
    }
    const runDir = runFolderOf(arg, deps);
    if (!runDir) {
      void vscode.window.showInformationMessage('Reach Audit: select a run in the Runs view to verify.');
      return { how: 'dismissed' };
    }
    const name = path.basename(runDir);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Reach Audit: verifying ${name}`, cancellable: true },
      (progress, token) => runVerify(deps, runDir, verifyArgs(arg), progress, token).then((r) => ({ ...r, cancelled: token.isCancellationRequested })),
    );
    if (result.cancelled) return { how: 'cancelled', runDir };
    if (result.code === 0 || result.code === 1) {
      const outcome = JSON.parse(result.stdout) as VerifyOutcome;
      const lines = verifyText(outcome);
      deps.output.appendLine(lines.join('\n'));
      // The notification holds the verdict and the first differing fields; the output channel has them all.
      const message = `Reach Audit: ${name} ${lines.slice(0, 6).join(' · ')}${lines.length > 6 ? ` · (${lines.length - 6} more lines in the output)` : ''}`;
      if (outcome.reproduced) void vscode.window.showInformationMessage(message);
      else
        void vscode.window.showWarningMessage(message, 'Show Details').then((choice) => {
          if (choice) deps.output.show(true);
        });
      return { how: outcome.reproduced ? 'reproduced' : 'differs', runDir, message, outcome };
    }
    const said = result.stderr.trim().split('\n').filter((l) => l.startsWith('reach-audit')).pop() ?? `reach-audit verify exited with ${result.code}`;
    const message = `Reach Audit: ${said}`;
    void vscode.window.showErrorMessage(message);
    return { how: result.code === 2 ? 'refused' : 'failed', runDir, message };
  });
}
