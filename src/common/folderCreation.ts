/**
 * Making the folders we write (run folders, the graph cache, report folders) with errors a user can
 * act on. Node's recursive mkdir reports a read-only file system as ENOENT, and under /proc it loops
 * forever; so a folder is made one level at a time below its nearest existing ancestor, and kernel
 * file systems that hold no files (proc, sysfs, …) are refused up front.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from './errors';

/** statfs f_type magic numbers (linux/magic.h) of file systems that cannot hold our files. */
const SPECIAL_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0x19800202, 'mqueue'],
  [0x42494e4d, 'binfmt_misc'],
  [0xde5e81e4, 'efivarfs'],
]);

/** A short cause for a file-system error code, for messages that already name the path. */
export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EIO':
      return 'input/output error';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file is in the way (expected a folder)';
    case 'ELOOP':
      return 'a symbolic link loop';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return e.message;
  }
}

/** Error codes that mean "this storage cannot take our writes", as opposed to a bug. */
export const STORAGE_ERROR_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EACCES', 'EPERM', 'EFBIG']);

export function isStorageError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && STORAGE_ERROR_CODES.has((err as NodeJS.ErrnoException).code ?? '');
}

function nearestExisting(folder: string): string {
  let at = path.resolve(folder);
  while (!fs.existsSync(at)) {
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  return at;
}

/** The name of the special file system `folder` would be made on; undefined for ordinary storage. */
export function specialFileSystem(folder: string): string | undefined {
  if (process.platform !== 'linux' || typeof fs.statfsSync !== 'function') return undefined;
  try {
    return SPECIAL_FILE_SYSTEMS.get(fs.statfsSync(nearestExisting(folder)).type);
  } catch {
    return undefined;
  }
}

/** The nearest ancestor of `dir` (or `dir` itself) that exists and is not a folder. */
function fileInTheWay(dir: string): string {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      if (!fs.statSync(at).isDirectory()) return at;
    } catch {
      // missing: look further up
    }
    if (path.dirname(at) === at) return dir;
  }
}

/**
 * Creates `folder` and its missing parents; throws InputError naming the folder, the cause, and
 * `role` (what the folder is for, e.g. "the run folder").
 */
export function createFolder(folder: string, role: string): void {
  const target = path.resolve(folder);
  const special = specialFileSystem(target);
  if (special) throw new InputError(`cannot write ${role} ${folder}: it is on the ${special} file system, which holds no ordinary files; choose a folder on a disk`);
  const missing: string[] = [];
  for (let at = target; !fs.existsSync(at); at = path.dirname(at)) {
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const dir of missing) {
    try {
      fs.mkdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && fs.statSync(dir).isDirectory()) continue; // made meanwhile by another process
      const code = (err as NodeJS.ErrnoException).code;
      const where = code === 'ENOTDIR' || code === 'EEXIST' ? ` (${fileInTheWay(dir)} is a file)` : dir !== target ? ` (creating ${dir})` : '';
      throw new InputError(`cannot write ${role} ${folder}: ${describeFsError(err)}${where}`);
    }
  }
  if (!fs.statSync(target).isDirectory()) throw new InputError(`cannot write ${role} ${folder}: ${describeFsError({ code: 'ENOTDIR' })} (${target} is a file)`);
}
