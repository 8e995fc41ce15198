/**
 * Audit Checkpoint Folders…: a trajectory from checkpoint folders picked in VS Code (the open
 * dialog, several at once, or the Explorer's selection), put in training order (the last number in
 * each name, as the CLI's watch orders them; shown, and the user accepts, reverses or sets it), on
 * the dataset and with the options Run Reachability Audit asks for. It runs the bundled
 * `reach-audit trajectory --model A --model B … --data FILE` in a child process, as Watch Training
 * Run… runs its CLI (the models load there, never on the extension host's thread): its progress in
 * a notification and the status bar, Cancel as Ctrl-C (finished checkpoints are kept, and the same
 * folders picked again reuse them and resume the one cut), and the trajectory shown when it ends.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { flagsFromOptions, withServerKey, type AuditOptions } from '../../service';
import type { TablesPanelHost } from '../tables/tablesPanel';
import { buildTrajectoryMessage, trajectoryFromFile } from '../tables/tablesData';
import { parseWatchOutput } from './watchOutput';
import { runCliChild } from './cliChild';
import { readAuditSettings } from './workspaceSettings';
import type { AuditChoices } from './auditChoices';
import { nextWatchFolder, settingsConflict } from './watchSettingsConflict';
import { checkpointLabels, foldersProblem, orderText, trainingOrder, trajectoryArgs, trajectoryOutFolder } from './checkpointFolders';

export const AUDIT_CHECKPOINT_FOLDERS_COMMAND = 'reachAudit.auditCheckpointFolders';
const NEW_FOLDER = 'Audit into a New Folder';

export interface CheckpointFoldersArgs {
  /** The checkpoint folders (default: an open dialog). */
  folders?: string[];
  /** The folders are in training order already: no order step. */
  ordered?: boolean;
  /** The benchmark file (default: Run Reachability Audit's dataset step). */
  data?: string;
  /** Options over the workspace's settings; given, the probe, selector, question and option steps are skipped. */
  options?: AuditOptions;
  /** Where the checkpoints' runs and trajectory.json go (default: under the workspace, named from the dataset and the folders). */
  out?: string;
}

export interface CheckpointFoldersOutcome {
  how: 'ended' | 'cancelled' | 'failed' | 'untrusted' | 'dismissed';
  /** The folders, in the order audited. */
  folders?: string[];
  out?: string;
  /** trajectory.json, once written. */
  trajectory?: string;
  message?: string;
  /** The CLI's arguments. */
  argv?: string[];
  /** The buttons its failure's notification offered (a settings change: a new folder). */
  choices?: string[];
}

export interface CheckpointFoldersDeps {
  tables: TablesPanelHost;
  /** The bundled CLI, <extension>/dist/cli.js. */
  cliPath: string;
  output: vscode.OutputChannel;
  env(): Record<string, string>;
  choices: AuditChoices;
}

export interface CheckpointFoldersCommand extends vscode.Disposable {
  /** As the notification's Cancel on every running audit of checkpoint folders. */
  cancelAll(): void;
  /** The progress notification's messages, newest last (bounded; the test suite reads them). */
  readonly reported: readonly string[];
}

const isArgs = (v: unknown): v is CheckpointFoldersArgs => typeof v === 'object' && v !== null && !(v instanceof vscode.Uri) && !Array.isArray(v);
const isCheckpoint = (folder: string) => fs.existsSync(path.join(folder, 'config.json'));
const STAYS_OPEN = { ignoreFocusOut: true } as const;

async function pickFolders(): Promise<string[] | undefined> {
  const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: true, title: 'Audit Checkpoint Folders: two or more checkpoints of one training run', openLabel: 'Audit These' });
  return picked && picked.length > 0 ? picked.map((u) => u.fsPath) : undefined;
}

/** The order step: the training order found, accepted as is, reversed, or set one folder at a time. */
async function confirmOrder(folders: string[]): Promise<string[] | undefined> {
  let order = folders;
  for (;;) {
    const pick = await vscode.window.showQuickPick(
      [
        { label: '$(check) Audit in this order', description: orderText(order), act: 'accept' as const },
        { label: '$(arrow-swap) Reverse the order', description: orderText([...order].reverse()), act: 'reverse' as const },
        { label: '$(list-ordered) Set the order…', description: 'pick the checkpoints first to last', act: 'set' as const },
      ],
      { ...STAYS_OPEN, title: 'Audit Checkpoint Folders: training order (by the last number in each name)', placeHolder: orderText(order) },
    );
    if (!pick) return undefined;
    if (pick.act === 'accept') return order;
    if (pick.act === 'reverse') order = [...order].reverse();
    else {
      const set: string[] = [];
      const labels = new Map(order.map((f, i) => [f, checkpointLabels(order)[i]]));
      while (set.length < order.length - 1) {
        const left = order.filter((f) => !set.includes(f));
        const next = await vscode.window.showQuickPick(left.map((f) => ({ label: labels.get(f) ?? path.basename(f), detail: f, folder: f })), { ...STAYS_OPEN, title: `Audit Checkpoint Folders: checkpoint ${set.length + 1} of ${order.length}`, placeHolder: set.length > 0 ? `after ${orderText(set)}` : 'the earliest checkpoint' });
        if (!next) break;
        set.push(next.folder);
      }
      if (set.length === order.length - 1) order = [...set, ...order.filter((f) => !set.includes(f))];
    }
  }
}

export function registerCheckpointFoldersCommand(deps: CheckpointFoldersDeps): CheckpointFoldersCommand {
  const running = new Set<() => void>();
  const reported: string[] = [];

  async function auditFolders(first?: unknown, all?: unknown): Promise<CheckpointFoldersOutcome> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage('Reach Audit runs nothing in an untrusted workspace: auditing checkpoint folders loads each model. Trust the workspace first.');
      return { how: 'untrusted' };
    }
    const args: CheckpointFoldersArgs = isArgs(first) ? first : {};
    // From the Explorer: (the clicked folder, every selected one).
    const fromExplorer = Array.isArray(all) && all.every((u) => u instanceof vscode.Uri) ? (all as vscode.Uri[]).map((u) => u.fsPath) : first instanceof vscode.Uri ? [first.fsPath] : undefined;
    let folders = args.folders ?? (fromExplorer && fromExplorer.length >= 2 ? fromExplorer : await pickFolders());
    if (!folders) return { how: 'dismissed' };
    folders = [...new Set(folders.map((f) => path.resolve(f)))];
    const problem = foldersProblem(folders, isCheckpoint);
    if (problem) {
      void vscode.window.showErrorMessage(`Reach Audit: ${problem}`, 'Pick Folders…').then((a) => a && void vscode.commands.executeCommand(AUDIT_CHECKPOINT_FOLDERS_COMMAND));
      return { how: 'failed', message: problem };
    }
    if (!args.ordered) {
      const ordered = await confirmOrder(trainingOrder(folders));
      if (!ordered) return { how: 'dismissed' };
      folders = ordered;
    }
    const settings = readAuditSettings();
    const data = args.data ?? (await deps.choices.dataset());
    if (!data) return { how: 'dismissed' };
    let options = args.options;
    if (!options) {
      // Run Reachability Audit's steps: every checkpoint is audited with these probes, selectors, questions and options.
      const probes = await deps.choices.probes(settings.probes);
      if (!probes) return { how: 'dismissed' };
      const select = await deps.choices.selectors(probes, settings.selectors);
      if (!select) return { how: 'dismissed' };
      const scope = await deps.choices.limit(data);
      if (!scope) return { how: 'dismissed' };
      const asked: AuditOptions = { probes, select, ...(scope.limit !== undefined ? { limit: scope.limit } : {}) };
      const chosen = await deps.choices.runOptions({ ...settings.options, ...asked }, 'trajectory');
      if (!chosen) return { how: 'dismissed' };
      options = { ...asked, ...chosen };
    }
    const workspace = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? path.dirname(folders[0]);
    const out = args.out ?? trajectoryOutFolder(workspace, data, folders);
    // The run folders, resuming and the dataset are this command's to decide.
    const { data: _data, out: _out, resume: _resume, name: _name, ...fromSettings } = settings.options;
    // Every checkpoint on one served model would be no trajectory (the CLI refuses it): no server key goes to this child.
    const flags = flagsFromOptions(withServerKey({ ...fromSettings, ...options }, false));
    const argv = trajectoryArgs(folders, data, flags, out);
    const result = await runCli(argv, folders, out, workspace);
    const conflict = result.how === 'failed' ? settingsConflict((result.message ?? '').split('\n')) : undefined;
    if (conflict) {
      // The same folders audited before with other options: their runs cannot be resumed with these.
      const text = `Reach Audit: the checkpoints already audited in ${path.basename(out)} were made with other settings — ${conflict.problems.join('; ')}. Audit into a new folder with these settings, or pick the earlier ones again.`;
      void vscode.window.showWarningMessage(text, NEW_FOLDER, 'Show Log').then((a) => {
        if (a === NEW_FOLDER) void vscode.commands.executeCommand(AUDIT_CHECKPOINT_FOLDERS_COMMAND, { folders, ordered: true, data, options, out: nextWatchFolder(out) });
        else if (a) deps.output.show();
      });
      return { ...result, choices: [NEW_FOLDER, 'Show Log'] };
    }
    if (result.how === 'failed') {
      void vscode.window.showErrorMessage(`Reach Audit: ${(result.message ?? 'reach-audit trajectory failed').split('\n').map((l) => l.trim()).join(' ')}`, 'Show Log').then((a) => a && deps.output.show());
    } else if (result.how === 'cancelled') {
      void vscode.window.showInformationMessage(`Reach Audit: stopped; the finished checkpoints are kept in ${path.basename(out)}, and Resume audits the rest.`, 'Resume').then((a) => {
        if (a) void vscode.commands.executeCommand(AUDIT_CHECKPOINT_FOLDERS_COMMAND, { folders, ordered: true, data, options, out });
      });
    }
    return result;
  }

  function runCli(argv: string[], folders: string[], out: string, cwd: string): Promise<CheckpointFoldersOutcome> {
    const outcome: CheckpointFoldersOutcome = { how: 'ended', folders, out, argv: argv.slice(1) };
    const labels = checkpointLabels(folders);
    const bar = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left);
    return Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Reach Audit: auditing ${folders.length} checkpoints`, cancellable: true },
        (progress, token) => {
          deps.output.appendLine(`[checkpoints] reach-audit ${argv.join(' ')}`);
          const tell = (text: string) => {
            progress.report({ message: text });
            reported.push(text);
            if (reported.length > 500) reported.splice(0, reported.length - 500);
            bar.text = `$(sync~spin) Reach Audit: ${text.replace(/ · .*$/, '')}`;
            bar.tooltip = `reach-audit trajectory into ${out}: ${text}`;
            bar.show();
          };
          const position = (label: string) => `checkpoint ${labels.indexOf(label) + 1} of ${labels.length}, ${label}`;
          // The CLI's last error: its first line and the indented ones that go on from it (a settings change lists the differences).
          let errorLines: string[] = [];
          let inError = false;
          // The CLI writes trajectory.json once, at its end: the curve grows here as each checkpoint finishes.
          const finished: { label: string; folder: string }[] = [];
          const onLine = (line: string) => {
            deps.output.appendLine(line);
            const seen = parseWatchOutput(line);
            const ran = /^(.+?): run folder (.+)$/.exec(line.replace(/\r$/, ''));
            if (ran && labels.includes(ran[1]) && fs.existsSync(path.join(ran[2], 'summary.json')) && !finished.some((f) => f.label === ran[1])) {
              finished.push({ label: ran[1], folder: ran[2] });
              try {
                deps.tables.showTrajectory(buildTrajectoryMessage(finished, `${finished.length} of ${labels.length} checkpoints in ${out}`), { update: true });
              } catch (err) {
                deps.output.appendLine(`[checkpoints] cannot show the checkpoints finished so far: ${(err as Error).message}`);
              }
            } else if (seen?.kind === 'estimate' && labels.includes(seen.checkpoint)) tell(`${position(seen.checkpoint)}: starting`);
            else if (seen?.kind === 'questions' && labels.includes(seen.checkpoint)) tell(`${position(seen.checkpoint)}: ${seen.line}`);
            else if (seen?.kind === 'trajectory') {
              try {
                deps.tables.showTrajectory(trajectoryFromFile(seen.file));
                outcome.trajectory = seen.file;
              } catch (err) {
                deps.output.appendLine(`[checkpoints] cannot show ${seen.file}: ${(err as Error).message}`);
              }
            }
            const error = !seen && !ran && /^reach-audit( trajectory)?: /.test(line) && !/^reach-audit: (warning|wrote|stopped)/.test(line);
            if (error) errorLines = [line.replace(/^reach-audit( trajectory)?: /, '')];
            else if (inError && /^\s+\S/.test(line)) errorLines.push(line.replace(/\r$/, ''));
            inError = error || (inError && /^\s+\S/.test(line));
          };
          const ended = runCliChild({ cliPath: deps.cliPath, argv, cwd, env: deps.env(), onLine, onStdout: (text) => deps.output.append(text), token, running });
          tell('starting');
          return ended.then((end): CheckpointFoldersOutcome => {
            if (end.how === 'cancelled') return { ...outcome, how: 'cancelled' };
            if (end.how === 'ended') return outcome;
            if ('spawnError' in end) return { ...outcome, how: 'failed', message: end.spawnError };
            return { ...outcome, how: 'failed', message: errorLines.length > 0 ? errorLines.join('\n') : `reach-audit trajectory exited with ${end.code}` };
          });
        },
      ),
    ).finally(() => bar.dispose());
  }

  const command = vscode.commands.registerCommand(AUDIT_CHECKPOINT_FOLDERS_COMMAND, auditFolders);
  return { dispose: () => command.dispose(), cancelAll: () => [...running].forEach((stop) => stop()), reported };
}
