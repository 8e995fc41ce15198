/**
 * One writer per folder (a run folder, a comparison folder, a graph-cache build): an exclusive lock
 * taken with proper-lockfile (an atomic mkdir whose mtime the holder keeps fresh), plus a small
 * owner file beside it naming the holder — pid, host, start time, command — so a refused second
 * writer can say who holds the folder.
 *
 * Stale locks: a holder that crashed (kill -9, power loss) leaves the lock behind. On the same host
 * a holder whose pid no longer runs is stale at once; a holder on another host (a shared network
 * folder) is stale once its lock has gone STALE_MS without an update. The threshold is long because
 * the engine builds graphs synchronously, during which the holder cannot refresh its lock. A lock
 * with no owner file is a holder killed between taking the lock and naming itself (a live one names
 * itself at once): stale once OWNERLESS_STALE_MS old, not after ten minutes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { InputError } from './errors';

/** A lock not refreshed for this long is stale even when its holder's host cannot be checked. */
export const STALE_MS = 10 * 60 * 1000;
const UPDATE_MS = 60 * 1000;
/**
 * A holder writes its owner file right after taking the lock, so a lock this old without one was
 * left by a process killed in between (1 kill -9 in 10 landed there and refused reruns for 10 min).
 */
export const OWNERLESS_STALE_MS = 30 * 1000;

export const LOCK_DIR = '.reach-audit.lock';
const OWNER_SUFFIX = '.owner.json';

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  /** What the holder is doing, e.g. "reach-audit audit". */
  purpose: string;
}

export interface FolderLock {
  folder: string;
  /** Set when this lock replaced one left by a process that no longer runs; null: one that died before naming itself. */
  recovered?: LockHolder | null;
  release(): void;
}

export interface LockRequest {
  /** The lock's name inside the folder (default LOCK_DIR): several locks can share one folder. */
  lockName?: string;
  /** What the holder is doing, shown to a refused second writer. */
  purpose: string;
  /** What a refused writer should do instead, e.g. "wait for it to finish, or choose another --out". */
  advice: string;
  /** Called if another process takes the lock from us (only after STALE_MS without a refresh). */
  onCompromised?: (message: string) => void;
}

/** An InputError that names the holder of a folder's lock. */
export class FolderLockedError extends InputError {
  override name = 'FolderLockedError';
  constructor(
    message: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(message);
  }
}

export function lockPaths(folder: string, lockName = LOCK_DIR): { dir: string; owner: string } {
  const dir = path.join(folder, lockName);
  return { dir, owner: dir + OWNER_SUFFIX };
}

function readHolder(ownerFile: string): LockHolder | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(ownerFile, 'utf8')) as Partial<LockHolder>;
    if (typeof v.pid !== 'number' || typeof v.host !== 'string' || typeof v.startedAt !== 'string') return undefined;
    return { pid: v.pid, host: v.host, startedAt: v.startedAt, purpose: typeof v.purpose === 'string' ? v.purpose : 'unknown' };
  } catch {
    return undefined;
  }
}

/** True when `pid` runs on this machine (EPERM: it runs under another user). */
export function processRuns(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function describeHolder(h: LockHolder | undefined): string {
  if (!h) return 'another process (it has not recorded its pid yet)';
  return `pid ${h.pid} on host ${h.host}, started ${h.startedAt} (${h.purpose})`;
}

/**
 * Takes the folder's lock or throws FolderLockedError naming the holder. The folder must exist.
 * The lock is released by release(), and by proper-lockfile on process exit (Ctrl-C included).
 */
export function lockFolder(folder: string, request: LockRequest): FolderLock {
  const { dir, owner } = lockPaths(folder, request.lockName);
  // proper-lockfile keeps its held locks by path: the lock's own path keeps several locks in one folder apart.
  const options: lockfile.LockOptions = {
    lockfilePath: dir,
    realpath: false,
    stale: STALE_MS,
    update: UPDATE_MS,
    onCompromised: (err) => request.onCompromised?.(`lost the lock on ${folder} (${err.message}); another process may now write it`),
  };
  let recovered: LockHolder | null | undefined;
  let release: () => void;
  try {
    release = lockfile.lockSync(dir, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw lockFsError(folder, err);
    const holder = readHolder(owner);
    const ownerless = !holder && lockAgeMs(dir) > OWNERLESS_STALE_MS;
    if (!ownerless && (!holder || holder.host !== os.hostname() || processRuns(holder.pid))) {
      throw new FolderLockedError(`${folder} is in use by ${describeHolder(holder)}; ${request.advice}`, holder);
    }
    // The holder crashed on this host: age its lock so that proper-lockfile itself removes it as stale.
    try {
      fs.utimesSync(dir, new Date(0), new Date(0));
      release = lockfile.lockSync(dir, options);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') {
        const now = readHolder(owner);
        throw new FolderLockedError(`${folder} is in use by ${describeHolder(now)}; ${request.advice}`, now);
      }
      throw lockFsError(folder, again);
    }
    recovered = holder ?? null;
  }
  const me: LockHolder = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), purpose: request.purpose };
  try {
    fs.writeFileSync(owner, JSON.stringify(me) + '\n');
  } catch (err) {
    release();
    throw lockFsError(folder, err);
  }
  let released = false;
  return {
    folder,
    ...(recovered !== undefined ? { recovered } : {}),
    release() {
      if (released) return;
      released = true;
      try {
        if (readHolder(owner)?.pid === process.pid) fs.rmSync(owner, { force: true });
      } finally {
        try {
          release();
        } catch {
          // Already released (compromised, or the folder was removed): nothing is left to undo.
        }
      }
    },
  };
}

/** How long ago the lock was taken or last refreshed (0 when it cannot be read: not stale). */
function lockAgeMs(dir: string): number {
  try {
    return Date.now() - fs.statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

function lockFsError(folder: string, err: unknown): InputError {
  const e = err as NodeJS.ErrnoException;
  const cause = e.code === 'EROFS' ? 'read-only file system' : e.code === 'ENOSPC' ? 'no space left on device' : e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.message;
  return new InputError(`cannot lock ${folder}: ${cause}`);
}

/** The holder of a folder's lock when a live process holds it (a quick check before long work). */
export function folderHolder(folder: string, lockName = LOCK_DIR): LockHolder | undefined {
  const { dir, owner } = lockPaths(folder, lockName);
  let held: boolean;
  try {
    held = lockfile.checkSync(dir, { lockfilePath: dir, realpath: false, stale: STALE_MS });
  } catch {
    return undefined;
  }
  if (!held) return undefined;
  const h = readHolder(owner);
  if (h && h.host === os.hostname() && !processRuns(h.pid)) return undefined;
  return h;
}

/** Throws FolderLockedError when a live process holds the folder; the real lock is taken later. */
export function assertFolderFree(folder: string, advice: string): void {
  if (!fs.existsSync(path.join(folder, LOCK_DIR))) return;
  const holder = folderHolder(folder);
  if (holder) throw new FolderLockedError(`${folder} is in use by ${describeHolder(holder)}; ${advice}`, holder);
}

export function recoveredNote(folder: string, h: LockHolder | null): string {
  if (h === null) return `${folder}: took over a stale lock left by a process that stopped before recording its pid (killed while taking it)`;
  return `${folder}: took over a stale lock left by ${describeHolder(h)}, which no longer runs`;
}
