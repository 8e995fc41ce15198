/**
 * Import Evaluation Log… (palette, and the explorer's menu on an lm-eval `samples_*.jsonl`, an
 * Inspect `.eval` or a lighteval `details_*.parquet`): runs the bundled `reach-audit import` on the
 * log in a child process, writes the run into the workspace's runs and opens it. It reads the log
 * only (no model runs). Also tells a harness log from a dataset, so a log picked as a dataset can be
 * offered the import instead of failing every dataset schema.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { lmEvalFileName, looksLikeLmEvalSamples } from '../../audit/imports';
import { newRunFolder } from '../../audit/store';

export const IMPORT_LOG_COMMAND = 'reachAudit.importLog';

/** What kind of harness log `file` is, from its name and (for .jsonl) its first line; undefined for anything else. */
export function harnessLogKind(file: string): 'lm-eval' | 'inspect' | 'lighteval' | undefined {
  const name = path.basename(file);
  if (/\.eval$/i.test(name)) return 'inspect';
  if (/^details_.+\.parquet$/i.test(name)) return 'lighteval';
  if (/\.jsonl$/i.test(name)) {
    if (lmEvalFileName(file).date !== null) return 'lm-eval';
    try {
      const fd = fs.openSync(file, 'r');
      try {
        const buf = Buffer.alloc(64 * 1024);
        const n = fs.readSync(fd, buf, 0, buf.length, 0);
        if (looksLikeLmEvalSamples(buf.subarray(0, n).toString('utf8'))) return 'lm-eval';
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface ImportDeps {
  cliPath: string;
  output: vscode.OutputChannel;
  /** Runs changed on disk: the Runs view re-reads before the run opens. */
  refresh(): Promise<unknown>;
  /** Opens a run in the panel (and in view everywhere). */
  showRun(folder: string): void;
}

export interface ImportOutcome {
  how: 'done' | 'failed' | 'dismissed';
  runDir?: string;
  message?: string;
}

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}

function runImport(deps: ImportDeps, log: string, out: string, cwd: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron; this makes it plain Node.
    execFile(process.execPath, [deps.cliPath, 'import', log, '--out', out], { cwd, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      deps.output.append(stdout);
      deps.output.append(stderr);
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stderr });
    });
  });
}

export function registerImportLogCommand(deps: ImportDeps): vscode.Disposable {
  return vscode.commands.registerCommand(IMPORT_LOG_COMMAND, async (arg?: unknown): Promise<ImportOutcome> => {
    let log = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? arg : undefined;
    if (!log) {
      const picked = await vscode.window.showOpenDialog({
        canSelectFiles: true,
        canSelectMany: false,
        title: 'Reach Audit: an evaluation log to import (lm-eval samples_*.jsonl, Inspect .eval or .json, lighteval details_*.parquet)',
        openLabel: 'Import Log',
        filters: { 'Evaluation logs': ['jsonl', 'eval', 'json', 'parquet'] },
      });
      log = picked?.[0]?.fsPath;
    }
    if (!log) return { how: 'dismissed' };
    const workspace = workspaceFolder();
    if (!workspace) {
      void vscode.window.showErrorMessage('Reach Audit: open a folder first: the imported run is written into its .reach-audit/runs.');
      return { how: 'failed', message: 'no workspace folder' };
    }
    const stem = path.basename(log).replace(/\.(jsonl|eval|json|parquet)$/i, '');
    const name = `${harnessLogKind(log) === 'lm-eval' ? lmEvalFileName(log).task : stem}-imported`;
    const out = newRunFolder(workspace, name, new Date());
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reach Audit: importing ${path.basename(log)}` }, () => runImport(deps, log, out, workspace));
    if (result.code !== 0) {
      const message = result.stderr.trim().split('\n').filter((l) => l.startsWith('reach-audit')).pop() ?? `reach-audit import exited with ${result.code}`;
      void vscode.window.showErrorMessage(`Reach Audit: cannot import ${path.basename(log)}: ${message.replace(/^reach-audit( import)?: /, '')}`);
      return { how: 'failed', message };
    }
    await deps.refresh();
    try {
      deps.showRun(out);
    } catch (err) {
      deps.output.appendLine(`[import] cannot show ${out}: ${(err as Error).message}`);
    }
    void vscode.window.showInformationMessage(`Reach Audit: imported ${path.basename(log)} as ${path.basename(out)}. Its questions are realized from the log; no probe ran on them (not probed).`);
    return { how: 'done', runDir: out };
  });
}
