/**
 * Watch Training Run…: audits the checkpoints a training run writes into a folder, as they
 * appear, by running the bundled `reach-audit trajectory --watch` in a child process (the one
 * implementation of the watch; the models load there, never on the extension host's thread),
 * under the workspace's audit settings. From the palette it first asks, as Run Reachability Audit
 * does, how many questions of the benchmark and which probes with what budget. Its status line,
 * the checkpoint's estimate and then its questions done show in a notification and the status
 * bar; Cancel sends it Ctrl-C, so the audit in progress keeps its finished questions and the same
 * command resumes it. The Trajectory tab is updated each time a checkpoint finishes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { flagsFromOptions, reproduceCommand, withServerKey, type AuditOptions } from '../../service';
import type { RunManifest } from '../../contract';
import { auditFlagsOf, conflictMessage, earlierCheckpointRun, nextWatchFolder, settingsConflict, type SettingsConflict } from './watchSettingsConflict';
import { TRAJECTORY_FILE } from '../../audit/store';
import type { TablesPanelHost } from '../tables/tablesPanel';
import { trajectoryFromFile } from '../tables/tablesData';
import { parseWatchOutput } from './watchOutput';
import { readAuditSettings } from './workspaceSettings';
import { runCliChild } from './cliChild';
import type { AuditChoices } from './auditChoices';

export const WATCH_TRAINING_RUN_COMMAND = 'reachAudit.watchTrainingRun';
const NEW_FOLDER = 'Watch into a New Folder';
const KEEP_SETTINGS = 'Keep the Earlier Settings';

/** The command that audits an earlier checkpoint's run again (its manifest's settings); undefined for an unreadable manifest. */
function reproduceOf(runFolder: string): ReturnType<typeof reproduceCommand> | undefined {
  try {
    return reproduceCommand(JSON.parse(fs.readFileSync(path.join(runFolder, 'manifest.json'), 'utf8')) as RunManifest);
  } catch {
    return undefined;
  }
}

export interface WatchArgs {
  /** The folder the trainer writes checkpoint folders into (default: a folder picker). */
  dir?: string;
  /** The benchmark file (default: the dataset open in the editor, else a file picker). */
  data?: string;
  /** Options over the workspace's settings (the suite's small budgets). */
  options?: AuditOptions;
  /** Audit flags that replace the settings' and `options` (the earlier checkpoints' settings, kept). */
  flags?: string[];
  /** Where the checkpoints' runs and the trajectory go (the CLI's --out; default: under the workspace). */
  out?: string;
  /** Seconds between looks at the folder (the CLI's --poll). */
  poll?: number;
  /** The CLI's --until-idle and --max-checkpoints: end the watch on its own. */
  untilIdle?: number;
  maxCheckpoints?: number;
}

export interface WatchOutcome {
  how: 'ended' | 'cancelled' | 'failed' | 'untrusted' | 'dismissed';
  /** The trajectory.json last written. */
  trajectory?: string;
  /** The last status line. */
  status?: string;
  message?: string;
  /** The buttons its failure's notification offered (a settings change: the ways forward). */
  choices?: string[];
  /** The CLI's arguments after `trajectory` (what was asked or given). */
  argv?: string[];
}

export interface WatchDeps {
  tables: TablesPanelHost;
  /** The bundled CLI, <extension>/dist/cli.js. */
  cliPath: string;
  output: vscode.OutputChannel;
  /** Environment for the child (the graph cache setting), as the engine child gets it. */
  env(): Record<string, string>;
  /** The pickers Run Reachability Audit asks with (questions, probes and budget). */
  choices: AuditChoices;
}

const isArgs = (v: unknown): v is WatchArgs => typeof v === 'object' && v !== null && !(v instanceof vscode.Uri);

async function pickFolder(): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, title: 'Watch Training Run: the folder your trainer writes checkpoints into', openLabel: 'Watch' });
  return picked?.[0]?.fsPath;
}

async function pickDataset(): Promise<string | undefined> {
  const open = vscode.window.activeTextEditor?.document.uri;
  if (open?.scheme === 'file' && /\.(jsonl|json)$/i.test(open.fsPath)) return open.fsPath;
  const picked = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectMany: false, filters: { 'Benchmark (JSONL, JSON)': ['jsonl', 'json'] }, title: 'Watch Training Run: the benchmark to audit each checkpoint on', openLabel: 'Audit on this' });
  return picked?.[0]?.fsPath;
}

/** The command line's arguments: the settings' options, then the command's own. */
function cliArgs(dir: string, data: string, args: WatchArgs): string[] {
  // The run folders and resuming are the watch's to decide; the dataset is the one picked.
  const { data: _data, out: _out, resume: _resume, name: _name, ...fromSettings } = readAuditSettings().options;
  // Server settings go only with a remote backend, which the watch refuses (every checkpoint would
  // be the one served model), so the stored key never goes to this child.
  const options: AuditOptions = withServerKey({ ...fromSettings, ...(args.options ?? {}) }, false);
  return [
    'trajectory', '--watch', dir, '--data', data, ...(args.flags ?? flagsFromOptions(options)),
    ...(args.out !== undefined ? ['--out', args.out] : []),
    ...(args.poll !== undefined ? ['--poll', String(args.poll)] : []),
    ...(args.untilIdle !== undefined ? ['--until-idle', String(args.untilIdle)] : []),
    ...(args.maxCheckpoints !== undefined ? ['--max-checkpoints', String(args.maxCheckpoints)] : []),
  ];
}

/** The command, and a Cancel for the watches it is running (the extension's API; the suite uses it). */
export interface WatchCommand extends vscode.Disposable {
  /** As the notification's Cancel on every running watch. */
  cancelAll(): void;
  /** The progress notification's messages, newest last (bounded; the test suite reads them). */
  readonly reported: readonly string[];
}

/** "about 0s–1s at 1,140.5 tokens/s" from the CLI's estimate; the whole text when it has no such part. */
function shortEstimate(text: string): string {
  const m = /(about \S+ at [\d.,]+ tokens\/s)/.exec(text);
  return m ? m[1] : text;
}

export function registerWatchCommand(deps: WatchDeps): WatchCommand {
  const running = new Set<() => void>();
  const reported: string[] = [];
  const command = vscode.commands.registerCommand(WATCH_TRAINING_RUN_COMMAND, async (arg?: unknown): Promise<WatchOutcome> => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage('Reach Audit runs nothing in an untrusted workspace: watching a training run loads each checkpoint. Trust the workspace first.');
      return { how: 'untrusted' };
    }
    let args: WatchArgs = isArgs(arg) ? arg : {};
    const dir = args.dir ?? (arg instanceof vscode.Uri ? arg.fsPath : await pickFolder());
    if (!dir) return { how: 'dismissed' };
    const data = args.data ?? (await pickDataset());
    if (!data) return { how: 'dismissed' };
    if (!args.options && !args.flags) {
      // Sized like a Run Reachability Audit: every checkpoint is audited on these questions at this budget.
      const scope = await deps.choices.limit(data);
      if (!scope) return { how: 'dismissed' };
      const probes = await deps.choices.probes(readAuditSettings().probes);
      if (!probes) return { how: 'dismissed' };
      args = { ...args, options: { ...(scope.limit !== undefined ? { limit: scope.limit } : {}), probes } };
    }
    const workspace = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? path.dirname(path.resolve(dir));

    const outcome: WatchOutcome = { how: 'ended', argv: cliArgs(dir, data, args).slice(1) };
    const bar = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left);
    const show = (file: string, update: boolean) => {
      try {
        deps.tables.showTrajectory(trajectoryFromFile(file), { update });
        outcome.trajectory = file;
      } catch (err) {
        deps.output.appendLine(`[watch] cannot show ${file}: ${(err as Error).message}`);
      }
    };
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Reach Audit: watching ${path.basename(dir)}`, cancellable: true },
        (progress, token) => {
          const argv = cliArgs(dir, data, args);
          deps.output.appendLine(`[watch] reach-audit ${argv.join(' ')}`);
          /** The checkpoint being audited: its estimate, then its questions done. */
          let current: { checkpoint: string; estimate?: string; questions?: { done: number; total: number; line: string } } | undefined;
          const tell = () => {
            const status = outcome.status ?? 'starting';
            const audit = current?.questions ? `${current.checkpoint}: ${current.questions.line}${current.estimate && current.questions.done === 0 ? ` · estimate ${current.estimate}` : ''}` : current?.estimate ? `${current.checkpoint}: estimate ${current.estimate}` : '';
            const message = audit ? `${status} — ${audit}` : status;
            progress.report({ message });
            reported.push(message);
            if (reported.length > 500) reported.splice(0, reported.length - 500);
            // The bar is narrow: the counts without the reasons (the tooltip and the notification have them).
            const counts = status.split(' · ').filter((p) => !p.startsWith('skipped ')).map((p) => p.replace(/ being written \(.*$/, ' being written'));
            const questions = current?.questions ? ` ${current.questions.done}/${current.questions.total}` : '';
            bar.text = `$(sync~spin) Reach Audit: ${counts[0] ?? ''}${questions}${counts.length > 1 ? ` · ${counts.slice(1).join(' · ')}` : ''}`;
            bar.tooltip = `Watching ${dir}: ${message}`;
            bar.show();
          };
          // The CLI's last error, its first line and the ones that go on from it (a settings change lists the differences).
          let errorLines: string[] = [];
          let inError = false;
          const onLine = (line: string) => {
            deps.output.appendLine(line);
            const seen = parseWatchOutput(line);
            // The CLI's errors: `reach-audit: …`, or `reach-audit trajectory: …` for a flag; not its notes.
            const error = !seen && /^reach-audit( trajectory)?: /.test(line) && !/^reach-audit: (warning|wrote|watch ended|watch stopped)/.test(line);
            if (error) errorLines = [line.replace(/^reach-audit( trajectory)?: /, '')];
            else if (inError && !/^reach-audit/.test(line) && line.trim() !== '') errorLines.push(line.replace(/\r$/, ''));
            inError = error || (inError && !/^reach-audit/.test(line));
            if (seen?.kind === 'status') {
              outcome.status = seen.line;
              const auditing = /^auditing (\S+)/.exec(seen.line)?.[1];
              if (auditing !== current?.checkpoint) current = auditing ? { checkpoint: auditing } : undefined;
              tell();
            } else if (seen?.kind === 'estimate' && seen.checkpoint === current?.checkpoint) {
              current.estimate = shortEstimate(seen.text);
              tell();
            } else if (seen?.kind === 'questions' && seen.checkpoint === current?.checkpoint) {
              current.questions = seen;
              tell();
            } else if (seen?.kind === 'trajectory') show(seen.file, true);
            else if (seen?.kind === 'watching' && fs.existsSync(path.join(seen.out, TRAJECTORY_FILE))) show(path.join(seen.out, TRAJECTORY_FILE), false);
          };
          return runCliChild({ cliPath: deps.cliPath, argv, cwd: workspace, env: deps.env(), onLine, onStdout: (text) => deps.output.append(text), token, running }).then((end): WatchOutcome => {
            if (end.how === 'cancelled') return { ...outcome, how: 'cancelled' };
            if (end.how === 'ended') return outcome;
            if ('spawnError' in end) return { ...outcome, how: 'failed', message: end.spawnError };
            return { ...outcome, how: 'failed', message: errorLines.length > 0 ? errorLines.join('\n') : `reach-audit trajectory --watch exited with ${end.code}` };
          });
        },
      ).then((result) => {
        const conflict = result.how === 'failed' ? settingsConflict((result.message ?? '').split('\n')) : undefined;
        if (conflict) return offerWaysForward(conflict, { ...args, dir, data }, result);
        if (result.how === 'failed') void vscode.window.showErrorMessage(`Reach Audit: ${(result.message ?? '').split('\n').map((l) => l.trim()).join(' ')}`, 'Show Log').then((a) => a && deps.output.show());
        else void vscode.window.showInformationMessage(`Reach Audit: ${result.how === 'cancelled' ? 'watch stopped; finished checkpoints are kept, and watching the same folder again resumes' : 'watch ended'} (${result.status ?? 'no checkpoint seen'}).`);
        return result;
      });
    } finally {
      bar.dispose();
    }
  });
  /**
   * A watch refused for a settings change: the whole message, and a button for each way forward,
   * each of which starts the watch again (a new folder with the new settings, or the same folder
   * with the earlier checkpoints' settings, when their command line says all of them).
   */
  function offerWaysForward(conflict: SettingsConflict, args: WatchArgs & { dir: string; data: string }, result: WatchOutcome): WatchOutcome {
    const newFolder = nextWatchFolder(conflict.out);
    const earlier = earlierCheckpointRun(conflict.out);
    const reproduce = earlier ? reproduceOf(earlier) : undefined;
    const keep = reproduce && reproduce.gaps.length === 0 ? auditFlagsOf(reproduce.args) : undefined;
    const choices = [NEW_FOLDER, ...(keep ? [KEEP_SETTINGS] : []), 'Show Log'];
    deps.output.appendLine(`[watch] ${conflictMessage(conflict)}`);
    void vscode.window.showWarningMessage(conflictMessage(conflict), ...choices).then((a) => {
      if (a === NEW_FOLDER) void vscode.commands.executeCommand(WATCH_TRAINING_RUN_COMMAND, { ...args, out: newFolder });
      else if (a === KEEP_SETTINGS && keep) void vscode.commands.executeCommand(WATCH_TRAINING_RUN_COMMAND, { ...args, out: conflict.out, flags: keep });
      else if (a) deps.output.show();
    });
    return { ...result, choices };
  }

  return { dispose: () => command.dispose(), cancelAll: () => [...running].forEach((stop) => stop()), reported };
}
