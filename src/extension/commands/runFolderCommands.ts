/**
 * Runs from anywhere, and the command behind each: Open Run Folder… lists a folder outside the
 * workspace's runs in the Runs view (a merged shard run, a colleague's run, another project's
 * runs; remembered per workspace), Forget Run Folder takes it off again, and Copy Command Line puts
 * the `reach-audit audit` line that audits a run again on the clipboard. Opening a folder reads
 * its JSON files only, so it needs no workspace trust.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadRunFolder } from '../panel/runData';
import { openedKind } from '../sidebar/openedRuns';

const OPENED_KEY = 'reachAudit.openedRunFolders';

export interface RunFolderDeps {
  state: vscode.Memento;
  /** Re-reads the Runs view. */
  refresh(): Promise<unknown>;
  /** Opens a run in the panel. */
  showRun(folder: string): void;
  /** The run a command is about when no argument names one (the Runs view's selection). */
  selectedRun(): string | undefined;
}

/** The folders opened so far (the Runs view lists their runs). */
export function openedFolders(state: vscode.Memento): string[] {
  const v = state.get<unknown>(OPENED_KEY);
  return Array.isArray(v) ? v.filter((f): f is string => typeof f === 'string') : [];
}

/** The run folder a command is given (a path, a Uri, a Runs view item, an object naming runDir) or, with none, the selected run. */
export function runFolderOf(arg: unknown, deps: Pick<RunFolderDeps, 'selectedRun'>): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  if (typeof arg === 'object' && arg !== null) {
    const o = arg as { runDir?: unknown; folder?: unknown; run?: { folder?: unknown } };
    for (const v of [o.runDir, o.folder, o.run?.folder]) if (typeof v === 'string') return v;
  }
  return deps.selectedRun();
}

export function registerRunFolderCommands(deps: RunFolderDeps): vscode.Disposable[] {
  /** Resolves to the folder added (undefined when dismissed or holding no run). */
  async function openRunFolder(arg?: unknown): Promise<string | undefined> {
    let folder = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : undefined;
    if (!folder) {
      const chosen = await vscode.window.showOpenDialog({
        canSelectFiles: false,
        canSelectFolders: true,
        canSelectMany: false,
        title: 'Reach Audit: a run folder (with manifest.json), a folder of runs, or a project with .reach-audit',
        openLabel: 'Open Run Folder',
      });
      folder = chosen?.[0]?.fsPath;
    }
    if (!folder) return undefined;
    folder = path.resolve(folder);
    const kind = await openedKind(folder);
    if (kind === 'none') {
      void vscode.window.showWarningMessage(`Reach Audit: ${folder} holds no audit run (a folder with manifest.json, run folders, or .reach-audit/runs).`);
      return undefined;
    }
    const opened = openedFolders(deps.state);
    if (!opened.includes(folder)) await deps.state.update(OPENED_KEY, [...opened, folder]);
    await deps.refresh();
    if (kind === 'run') {
      try {
        deps.showRun(folder);
      } catch (err) {
        void vscode.window.showErrorMessage(`Reach Audit: cannot open ${folder}: ${(err as Error).message}`);
      }
    }
    return folder;
  }

  async function forgetRunFolder(arg?: unknown): Promise<string | undefined> {
    const folder = runFolderOf(arg, deps);
    if (!folder) return undefined;
    // The run itself, or the opened folder that holds it.
    const opened = openedFolders(deps.state);
    const kept = opened.filter((f) => f !== folder && !folder.startsWith(`${f}${path.sep}`));
    await deps.state.update(OPENED_KEY, kept);
    await deps.refresh();
    return folder;
  }

  async function copyRunCommand(arg?: unknown): Promise<string | undefined> {
    const folder = runFolderOf(arg, deps);
    if (!folder) return undefined;
    let reproduce;
    try {
      reproduce = loadRunFolder(folder).data.reproduce;
    } catch (err) {
      void vscode.window.showErrorMessage(`Reach Audit: cannot read ${folder}: ${(err as Error).message}`);
      return undefined;
    }
    if (!reproduce) {
      void vscode.window.showWarningMessage(`Reach Audit: ${path.basename(folder)} has no manifest a command can be made from.`);
      return undefined;
    }
    await vscode.env.clipboard.writeText(reproduce.command);
    const gaps = reproduce.gaps.length > 0 ? ` Not in it: ${reproduce.gaps.join('; ')}.` : '';
    void vscode.window.showInformationMessage(`Reach Audit: the command that audits ${path.basename(folder)} again is on the clipboard.${gaps}`);
    return reproduce.command;
  }

  return [
    vscode.commands.registerCommand('reachAudit.openRunFolder', openRunFolder),
    vscode.commands.registerCommand('reachAudit.forgetRunFolder', forgetRunFolder),
    vscode.commands.registerCommand('reachAudit.copyRunCommand', copyRunCommand),
  ];
}
