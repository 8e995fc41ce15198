/**
 * The folder lock between real processes: a second writer is refused with the holder named (pid,
 * host, start time, purpose); a holder killed with SIGKILL leaves a stale lock that the next writer
 * takes over, saying whose it was; release leaves nothing behind.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FolderLockedError, LOCK_DIR, assertFolderFree, lockFolder, recoveredNote } from '../../../src/common/folderLock';
import { exited, holdLockInChild } from '../../support/lockHolder';

describe('folder lock (two processes)', () => {
  it('refuses a second writer naming the holder, and takes over after the holder is killed', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-lock-'));
    const child = await holdLockInChild(folder);
    try {
      let refused: unknown;
      try {
        lockFolder(folder, { purpose: 'second writer', advice: 'choose another --out' });
      } catch (err) {
        refused = err;
      }
      assert.ok(refused instanceof FolderLockedError, String(refused));
      const message = (refused as Error).message;
      assert.match(message, new RegExp(`in use by pid ${child.pid} on host ${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(test holder\\); choose another --out`));
      assert.throws(() => assertFolderFree(folder, 'wait'), /in use by pid/);
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
    // The killed holder's lock is still on disk: stale, and taken over at once on this host.
    assert.ok(fs.existsSync(path.join(folder, LOCK_DIR)));
    assert.doesNotThrow(() => assertFolderFree(folder, 'wait'));
    const lock = lockFolder(folder, { purpose: 'after the crash', advice: 'x' });
    assert.equal(lock.recovered?.pid, child.pid);
    assert.equal(lock.recovered?.purpose, 'test holder');
    lock.release();
    assert.deepEqual(fs.readdirSync(folder), [], 'release leaves neither the lock nor its owner file');
    fs.rmSync(folder, { recursive: true });
  });

  it('keeps several named locks in one folder apart', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-lock-'));
    const a = lockFolder(folder, { lockName: '.a.lock', purpose: 'a', advice: 'x' });
    const b = lockFolder(folder, { lockName: '.b.lock', purpose: 'b', advice: 'x' });
    assert.throws(() => lockFolder(folder, { lockName: '.a.lock', purpose: 'a2', advice: 'x' }), /in use by pid \d+ on host .* \(a\)/);
    a.release();
    b.release();
    assert.deepEqual(fs.readdirSync(folder), []);
    fs.rmSync(folder, { recursive: true });
  });

  it('takes over a lock whose holder died before naming itself once it is 30 s old; a fresh one is refused (issue 39, weak case)', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-lock-'));
    // What kill -9 leaves between proper-lockfile's mkdir and the owner file.
    const dir = path.join(folder, LOCK_DIR);
    fs.mkdirSync(dir);
    assert.throws(() => lockFolder(folder, { purpose: 'rerun', advice: 'wait' }), /in use by another process \(it has not recorded its pid yet\); wait/);
    const old = new Date(Date.now() - 31_000);
    fs.utimesSync(dir, old, old);
    const lock = lockFolder(folder, { purpose: 'rerun', advice: 'wait' });
    assert.equal(lock.recovered, null);
    assert.match(recoveredNote(folder, null), /took over a stale lock left by a process that stopped before recording its pid/);
    lock.release();
    assert.deepEqual(fs.readdirSync(folder), []);
    fs.rmSync(folder, { recursive: true });
  });

  it('names the folder and the cause when the lock cannot be written', () => {
    const missing = path.join(os.tmpdir(), 'reach-audit-no-such-folder', 'run');
    assert.throws(() => lockFolder(missing, { purpose: 'p', advice: 'x' }), (err: Error) => err.message.startsWith(`cannot lock ${missing}:`));
  });
});
