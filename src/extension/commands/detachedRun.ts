/**
 * An audit that outlives the window: the bundled CLI run as a process of its own (not the engine
 * child, which dies with the extension host), writing into a run folder chosen before it starts,
 * its output in a file there and its pid beside it. What the folder and the pid say decides what
 * the extension does with a run it finds noted: follow it (running), show it (finished), or offer
 * Resume (stopped). No vscode import: the decisions are tested on their own.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultRunName, flagsFromOptions, PROGRESS_LINES_ENV, type AuditRequestOptions } from '../../service';
import { SUMMARY_FILE, newRunFolder } from '../../audit/store';

/** The CLI's stdout and stderr, in the run folder (its progress lines are how the extension counts). */
export const DETACHED_LOG_FILE = '.reach-audit-cli.log';
/**
 * The CLI's pid, written by the extension as it starts it. Not the folder lock's owner: that names
 * the extension's engine child for a run started the usual way (which another window must not take
 * for a run of its own to follow and signal), and the model loads before the lock is taken; a CLI
 * that re-runs itself for a long command line holds the lock in its child and passes Ctrl-C on.
 */
export const DETACHED_PID_FILE = '.reach-audit-cli.pid';

export type DetachedState = 'finished' | 'running' | 'stopped';

/** Whether a process runs (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string, host: string): number | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown; host?: unknown };
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return undefined;
    // A holder on another machine (a shared folder) cannot be checked from here.
    return v.host === undefined || v.host === host ? v.pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the CLI process the extension started on `runDir`; undefined for a run started otherwise. */
export function writerPid(runDir: string, host = os.hostname()): number | undefined {
  return readPid(path.join(runDir, DETACHED_PID_FILE), host);
}

/** Finished when its summary is there; running while the CLI process the extension started on it is alive; else stopped (its finished questions kept). */
export function detachedRunState(runDir: string, alive: (pid: number) => boolean = processAlive, host = os.hostname()): DetachedState {
  if (fs.existsSync(path.join(runDir, SUMMARY_FILE))) return 'finished';
  const pid = writerPid(runDir, host);
  return pid !== undefined && alive(pid) ? 'running' : 'stopped';
}

/** The folder a detached run writes: the options' --out, else a new folder as the engine would name it. */
export function plannedRunFolder(options: AuditRequestOptions, workspace: string, now = new Date()): string {
  if (options.out) return path.resolve(workspace, options.out);
  const folder = newRunFolder(workspace, options.name ?? defaultRunName(options.model, options.data), now);
  let candidate = folder;
  for (let n = 2; fs.existsSync(candidate); n++) candidate = `${folder}-${n}`;
  return candidate;
}

/** `reach-audit audit …` for the request's options, writing `folder` (the options table's flags: the same ones Copy Command Line gives). */
export function detachedAuditArgs(options: AuditRequestOptions, folder: string): string[] {
  const { model, workspace: _workspace, out: _out, ...rest } = options;
  return ['audit', '--model', model, ...flagsFromOptions({ ...rest, out: folder })];
}

/** The CLI's last "d/t questions" progress line in its output: questions done of the run's total, and the line from the count on (tokens/s, time left). */
export function lastProgress(text: string): { done: number; total: number; line: string } | undefined {
  let found: { done: number; total: number; line: string } | undefined;
  for (const m of text.matchAll(/(\d+)\/(\d+) questions[^\r\n]*/g)) found = { done: Number(m[1]), total: Number(m[2]), line: m[0] };
  return found;
}

/** The CLI's last error line (`reach-audit: …`, not its notes), for a run that stopped on its own. */
export function lastError(text: string): string | undefined {
  const lines = text.split(/\r?\n/).filter((l) => /^reach-audit( audit)?: /.test(l) && !/^reach-audit: (warning|stopping|stopped)/.test(l));
  return lines.at(-1)?.replace(/^reach-audit( audit)?: /, '');
}

/**
 * Starts the bundled CLI on `folder` as a process of its own: its own process group (`detached`,
 * so the end of the extension host, and a signal to the host's group, does not reach it), not
 * waited for (`unref`), its stdout and stderr appended to the folder's log (no pipe to the host
 * that would break when the host goes), one progress line per finished question. Writes its pid
 * beside the log and returns it.
 */
export function startDetachedCli(how: { node: string; cliPath: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; folder: string }): number {
  fs.mkdirSync(how.folder, { recursive: true });
  const log = fs.openSync(path.join(how.folder, DETACHED_LOG_FILE), 'a');
  let pid: number | undefined;
  try {
    // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron; this makes it plain Node.
    const child = spawn(how.node, [how.cliPath, ...how.args], {
      cwd: how.cwd,
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...how.env, ELECTRON_RUN_AS_NODE: '1', [PROGRESS_LINES_ENV]: 'every-question' },
    });
    // A start that fails (no such file) is reported by the caller: no pid, so the run reads as stopped.
    child.on('error', () => undefined);
    pid = child.pid;
    child.unref();
  } finally {
    fs.closeSync(log);
  }
  if (pid === undefined) throw new Error(`could not start ${how.node} ${how.cliPath}`);
  fs.writeFileSync(path.join(how.folder, DETACHED_PID_FILE), JSON.stringify({ pid, host: os.hostname() }) + '\n');
  return pid;
}
