/**
 * The bundled CLI as a child of the extension host, for the commands that follow a long CLI run
 * (Watch Training Run…, Audit Checkpoint Folders…): its stderr read line by line as it comes, a
 * progress line per finished question, and Cancel as Ctrl-C in a terminal — the run in progress
 * stops after its batch and keeps its finished questions.
 */
import { spawn } from 'node:child_process';
import type * as vscode from 'vscode';
import { LineSplitter, PROGRESS_LINES_ENV } from '../../service';

export interface CliChildOptions {
  cliPath: string;
  argv: readonly string[];
  cwd: string;
  /** Added to the host's environment (the server key, allocator settings). */
  env: NodeJS.ProcessEnv;
  /** Each line of stderr, as it comes; the last partial one when the child ends. */
  onLine: (line: string) => void;
  /** stdout as it comes (the CLI's tables and JSON). */
  onStdout: (text: string) => void;
  token: vscode.CancellationToken;
  /** Every CLI child going: each one's stop is in it while it runs (the commands' cancelAll). */
  running: Set<() => void>;
}

/** How the child ended: by Cancel, with exit code 0, or otherwise (its code, or the spawn error). */
export type CliChildEnd = { how: 'ended' } | { how: 'cancelled' } | { how: 'failed'; code: number | null } | { how: 'failed'; spawnError: string };

export function runCliChild(o: CliChildOptions): Promise<CliChildEnd> {
  return new Promise((resolve) => {
    // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron; this makes it plain Node.
    const child = spawn(process.execPath, [o.cliPath, ...o.argv], { cwd: o.cwd, env: { ...process.env, ...o.env, ELECTRON_RUN_AS_NODE: '1', [PROGRESS_LINES_ENV]: 'every-question' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = new LineSplitter(o.onLine);
    child.stdout.on('data', (d: Buffer) => o.onStdout(d.toString()));
    child.stderr.on('data', (d: Buffer) => lines.push(d));
    let cancelled = false;
    const stop = () => {
      cancelled = true;
      child.kill('SIGINT');
    };
    o.running.add(stop);
    const onCancel = o.token.onCancellationRequested(stop);
    const release = () => (onCancel.dispose(), o.running.delete(stop));
    child.on('close', (code) => {
      lines.end();
      release();
      resolve(cancelled ? { how: 'cancelled' } : code === 0 ? { how: 'ended' } : { how: 'failed', code });
    });
    child.on('error', (err) => {
      release();
      resolve({ how: 'failed', spawnError: err.message });
    });
  });
}
