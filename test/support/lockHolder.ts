/** A second, real process holding a folder lock, for the lock tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

const lockModule = path.resolve(__dirname, '../../src/engine/folderLock.js');

/** A child process that takes the folder's lock, says so on stdout, and holds it until killed. */
export function holdLockInChild(folder: string, lockName?: string, holdMs = 600_000): Promise<ChildProcess> {
  const script = `const l = require(${JSON.stringify(lockModule)});
const lock = l.lockFolder(${JSON.stringify(folder)}, { purpose: 'test holder', advice: 'x'${lockName ? `, lockName: ${JSON.stringify(lockName)}` : ''} });
process.stdout.write('locked\\n');
setTimeout(() => { lock.release(); process.exit(0); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve())));
}

