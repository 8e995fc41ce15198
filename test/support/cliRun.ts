/** Runs the built CLI (dist/cli.js) the way a user would, in the foreground or in the background. */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../../..');
export const builtCli = path.join(repoRoot, 'dist/cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): CliResult {
  const r = spawnSync(process.execPath, [builtCli, ...args], { cwd: options.cwd, encoding: 'utf8', env: options.env, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function runCliAsync(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Omit<CliResult, 'stdout'>> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtCli, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** Runs the CLI and kills it (SIGKILL, as a crash would) once `recordsFile` holds a finished line. */
export function runCliUntilRecorded(args: string[], recordsFile: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtCli, ...args], { cwd: options.cwd, env: options.env, stdio: 'ignore' });
    const timer = setInterval(() => {
      if (fs.existsSync(recordsFile) && fs.readFileSync(recordsFile, 'utf8').includes('\n')) {
        clearInterval(timer);
        child.kill('SIGKILL');
      }
    }, 20);
    child.on('close', () => {
      clearInterval(timer);
      resolve();
    });
  });
}

/** Starts `reach-audit serve --http 127.0.0.1:0 ARGS…` in the background; resolves with its URL once it listens. */
export async function startHttpServe(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [builtCli, 'serve', '--http', '127.0.0.1:0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /\{"listening":"([^"]+)"\}/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => reject(new Error(`serve --http exited ${code}: ${err}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}
