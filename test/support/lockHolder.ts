/** A second, real process holding a folder lock, for the lock tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

const lockModule = path.resolve(__dirname, '../../src/common/folderLock.js');

/**
 * A child process that takes the folder's lock, says so on stdout, and holds it until killed, until
 * `holdMs` pass, or until told on stdin (`release(child)`): a test that waits for the lock releases
 * it once the waiter has said it waits, so a slow machine cannot let the lock go before it is seen.
 */
export function holdLockInChild(folder: string, lockName?: string, holdMs = 600_000): Promise<ChildProcess> {
  const script = `const l = require(${JSON.stringify(lockModule)});
const lock = l.lockFolder(${JSON.stringify(folder)}, { purpose: 'test holder', advice: 'x'${lockName ? `, lockName: ${JSON.stringify(lockName)}` : ''} });
process.stdout.write('locked\\n');
const done = () => { lock.release(); process.exit(0); };
setTimeout(done, ${holdMs});
process.stdin.on('data', done);
process.stdin.on('end', done);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
}

/** Tells a holder from `holdLockInChild` to release its lock and exit. */
export function release(child: ChildProcess): void {
  child.stdin?.end('release\n');
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve())));
}

