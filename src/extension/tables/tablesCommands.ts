/**
 * Build Tables (runs and comparisons selected in the Runs view, or picked) and Show Training
 * Trajectory (a trajectory.json written by `reach-audit trajectory`, or picked from the workspace).
 * Both only read run files, so they work in untrusted workspaces too. Commands accept an argument
 * object (`{ folders }`, `{ file }` or `{ runs, labels }`) that skips the pickers; the test suite uses it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CLI_HINT } from '../commands/cliShim';
import type { RunsNode } from '../sidebar/runsView';
import { readRun, type RunEntry } from '../sidebar/runListing';
import { buildTablesMessage, buildTrajectoryMessage, comparisonsOf, trajectoryFileOf, trajectoryFromFile, type TablesMessage, type TrajectoryMessage } from './tablesData';
import { TRAJECTORIES_FOLDER, TRAJECTORY_FILE } from '../../audit/store';
import type { TablesPanelHost } from './tablesPanel';
import { AUDIT_CHECKPOINT_FOLDERS, noTrajectoryNotice, OPEN_TERMINAL, PICK_SOURCES, selectionNotice, WATCH_TRAINING_RUN } from './tableSourceNotices';
import { WATCH_TRAINING_RUN_COMMAND } from '../commands/watchTrainingRun';
import { AUDIT_CHECKPOINT_FOLDERS_COMMAND } from '../commands/auditCheckpointFolders';
import { runsAsTrajectory } from './runsAsTrajectory';

/** reachAudit.equivalenceMargin (percentage points) as a proportion; an out-of-range value falls back to 5 points. */
function marginSetting(): number {
  const points = vscode.workspace.getConfiguration('reachAudit').get<number>('equivalenceMargin', 5);
  return typeof points === 'number' && points > 0 && points < 100 ? points / 100 : 0.05;
}

export const TABLES_COMMANDS = {
  buildTables: 'reachAudit.buildTables',
  showTrajectory: 'reachAudit.showTrajectory',
  showRunsAsTrajectory: 'reachAudit.showRunsAsTrajectory',
} as const;

/** Where `reach-audit trajectory` writes by default, inside a workspace folder. */
const COMPARISONS_FOLDER = path.join('.reach-audit', 'comparisons');

export interface TablesDeps {
  tables: TablesPanelHost;
  /** The Runs view's selected nodes. */
  selection: () => readonly RunsNode[];
  /** Every run of the workspace (the Runs view's list). */
  runs: () => Promise<readonly RunEntry[]>;
}

/** What a command answers (the suite reads it). */
export interface TablesResult {
  message?: TablesMessage | TrajectoryMessage;
  error?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof vscode.Uri);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);

function runFoldersOf(nodes: readonly unknown[]): string[] {
  const folders = nodes.flatMap((n) => (isRecord(n) && n.kind === 'run' && isRecord(n.run) && typeof n.run.folder === 'string' ? [n.run.folder] : []));
  return [...new Set(folders)];
}

function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/** `<workspace>/<sub>/*` folders holding `file`. */
function foldersWith(sub: string, file: string, depth: 1 | 2): string[] {
  const out: string[] = [];
  for (const ws of workspaceFolders()) {
    const top = path.join(ws, sub);
    let names: string[];
    try {
      names = fs.readdirSync(top).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const one = path.join(top, name);
      if (depth === 1 && fs.existsSync(path.join(one, file))) out.push(one);
      if (depth === 2) {
        let inner: string[];
        try {
          inner = fs.readdirSync(one).sort();
        } catch {
          continue;
        }
        for (const n of inner) if (fs.existsSync(path.join(one, n, file))) out.push(path.join(one, n));
      }
    }
  }
  return out;
}

export function registerTablesCommands(deps: TablesDeps): vscode.Disposable[] {
  const fail = (err: unknown): TablesResult => {
    const message = err instanceof Error ? err.message : String(err);
    void vscode.window.showErrorMessage(`Reach Audit: ${message}`);
    return { error: message };
  };

  /** Every run and comparison in the workspace, for the picker. */
  async function sourceItems(): Promise<{ label: string; description: string; detail: string; folder: string }[]> {
    const runs = (await deps.runs()).map((r) => ({ label: r.name, description: [r.model, r.dataset].filter(Boolean).map((p) => path.basename(p!)).join(' · '), detail: r.folder, folder: r.folder }));
    const trajectoryRuns = foldersWith(TRAJECTORIES_FOLDER, 'manifest.json', 2).map((f) => ({ label: `${path.basename(path.dirname(f))} / ${path.basename(f)}`, description: 'trajectory checkpoint', detail: f, folder: f }));
    const comparisons = foldersWith(COMPARISONS_FOLDER, 'comparison.json', 1).map((f) => ({ label: path.basename(f), description: 'checkpoint comparison', detail: f, folder: f }));
    return [...runs, ...trajectoryRuns, ...comparisons];
  }

  async function pickSources(): Promise<string[] | undefined> {
    const items = await sourceItems();
    if (items.length === 0) {
      void vscode.window.showInformationMessage('Reach Audit: no runs or comparisons in this workspace yet.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(items, { canPickMany: true, title: 'Build Tables from runs and comparisons', placeHolder: 'Runs give routes vs search and repair; comparisons give the training table' });
    return picked && picked.length > 0 ? picked.map((p) => p.folder) : undefined;
  }

  async function buildTables(first?: unknown, all?: unknown): Promise<TablesResult> {
    let folders: string[] | undefined;
    let runFolders: string[] = [];
    if (isRecord(first) && strings(first.folders)) folders = strings(first.folders);
    else {
      // From a view: (clicked node, selected nodes); from the title bar or the palette: the selection.
      const fromSelection = !(Array.isArray(all) && all.length > 0) && first === undefined;
      const nodes = fromSelection ? deps.selection() : Array.isArray(all) && all.length > 0 ? all : [first];
      runFolders = runFoldersOf(nodes);
      folders = runFolders.length > 0 ? [...runFolders, ...comparisonsOf(runFolders)] : await pickSources();
      // The title bar's or the palette's Build Tables took the Runs view's selection: say which, offer the rest.
      if (fromSelection && runFolders.length > 0) {
        const used = new Set(folders ?? []);
        const notice = selectionNotice(folders ?? [], (await sourceItems()).filter((i) => !used.has(i.folder)).length);
        void vscode.window.showInformationMessage(notice.text, ...notice.actions).then(async (a) => {
          if (a !== PICK_SOURCES) return;
          const picked = await pickSources();
          if (picked) await buildTables({ folders: picked });
        });
      }
    }
    if (!folders || folders.length === 0) return {};
    try {
      const message = buildTablesMessage(folders, { margin: marginSetting() });
      deps.tables.showTables(message);
      // The selected runs of one trajectory bring its curves too.
      const file = trajectoryFileOf(runFolders.length > 0 ? runFolders : folders);
      if (file) deps.tables.showTrajectory(trajectoryFromFile(file));
      return { message };
    } catch (err) {
      return fail(err);
    }
  }

  async function showTrajectory(arg?: unknown): Promise<TablesResult> {
    try {
      if (isRecord(arg) && strings(arg.runs)) {
        const runs = strings(arg.runs)!;
        const labels = strings(arg.labels) ?? runs.map((r) => path.basename(r));
        if (labels.length !== runs.length) throw new Error(`expected ${runs.length} labels, got ${labels.length}`);
        const message = buildTrajectoryMessage(runs.map((folder, i) => ({ label: labels[i], folder })), `${runs.length} runs`);
        deps.tables.showTrajectory(message);
        return { message };
      }
      let file = arg instanceof vscode.Uri ? arg.fsPath : isRecord(arg) && typeof arg.file === 'string' ? arg.file : undefined;
      if (!file) {
        const found = foldersWith(TRAJECTORIES_FOLDER, TRAJECTORY_FILE, 1);
        if (found.length === 0) {
          // Watch Training Run… writes one from VS Code; the CLI of an installed .vsix is on no PATH but that of VS Code's terminals.
          const notice = noTrajectoryNotice(CLI_HINT);
          void vscode.window.showInformationMessage(notice.text, ...notice.actions).then((a) => {
            if (a === AUDIT_CHECKPOINT_FOLDERS) void vscode.commands.executeCommand(AUDIT_CHECKPOINT_FOLDERS_COMMAND);
            else if (a === WATCH_TRAINING_RUN) void vscode.commands.executeCommand(WATCH_TRAINING_RUN_COMMAND);
            else if (a === OPEN_TERMINAL) void vscode.commands.executeCommand('reachAudit.openCliTerminal');
          });
          return {};
        }
        const picked = found.length === 1 ? { folder: found[0] } : await vscode.window.showQuickPick(found.map((f) => ({ label: path.basename(f), detail: f, folder: f })), { title: 'Show Training Trajectory' });
        if (!picked) return {};
        file = path.join(picked.folder, TRAJECTORY_FILE);
      }
      const message = trajectoryFromFile(file);
      deps.tables.showTrajectory(message);
      return { message };
    } catch (err) {
      return fail(err);
    }
  }

  /** The Runs view's Show as Trajectory: the selected runs (clicked, with the rest of the selection), in training order. */
  async function showRunsAsTrajectory(first?: unknown, all?: unknown): Promise<TablesResult> {
    const nodes = Array.isArray(all) && all.length > 0 ? all : first !== undefined ? [first] : deps.selection();
    const listed = new Map((await deps.runs()).map((r) => [path.resolve(r.folder), r]));
    // A trajectory's checkpoint runs are in no Runs view list of the workspace's runs: read from their folders.
    const entries = await Promise.all(runFoldersOf(nodes).map(async (f) => listed.get(path.resolve(f)) ?? (await readRun(f).catch(() => ({ folder: f, name: path.basename(f) })))));
    const plan = runsAsTrajectory(entries);
    if ('problem' in plan) {
      void vscode.window.showInformationMessage(`Reach Audit: ${plan.problem}`);
      return { error: plan.problem };
    }
    return showTrajectory(plan);
  }

  return [
    vscode.commands.registerCommand(TABLES_COMMANDS.buildTables, buildTables),
    vscode.commands.registerCommand(TABLES_COMMANDS.showTrajectory, showTrajectory),
    vscode.commands.registerCommand(TABLES_COMMANDS.showRunsAsTrajectory, showRunsAsTrajectory),
  ];
}
