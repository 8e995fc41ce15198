/**
 * Reading a file the tool did not write itself: it must be a regular file (a symlink to one is
 * fine), of bounded size, checked before a byte is read. A symlink to /dev/zero would otherwise
 * fill the heap, and a FIFO would block the process forever (open itself blocks until a writer
 * comes, so the file is opened non-blocking and checked on its descriptor). Errors name the file.
 */
import * as fs from 'node:fs';
import { InputError } from './errors';

/**
 * The most bytes of a file read as one text (a dataset, a harness log, a tokenizer): V8's longest
 * string is 0x1fffffe8 (536,870,888) characters, so a 512 MiB file would fail inside
 * `toString` with the engine's own words instead of ours. 511 MiB keeps a MiB of margin. The bound
 * is fixed (a JavaScript string cannot be longer); a larger benchmark goes in parquet or in several files.
 */
export const MAX_TEXT_FILE_BYTES = 511 * 1024 * 1024;

/** What a file that is not regular is, in words. */
function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Whether `file` is a regular file now (following symlinks), without opening it; false when it is missing. */
export function isRegularFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Opens `file` for reading once it is known to be a regular file of at most `maxBytes`; the caller
 * closes the descriptor. The open's own errors (ENOENT, EACCES, ELOOP) are thrown as they are: each
 * caller words a missing or unreadable file its own way.
 */
export function openRegularFile(file: string, maxBytes: number, advice?: string): { fd: number; size: number } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new InputError(`${file} is ${kindOf(stat)}; expected a regular file`);
    if (stat.size > maxBytes) throw new InputError(`${file} is ${stat.size} bytes, more than the ${maxBytes} bytes expected of it${advice ? ` (${advice})` : ''}`);
    return { fd, size: stat.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The whole of a regular file of at most `maxBytes`, as bytes; `advice` says, in a refusal, where the bound comes from and how to change it. */
export function readRegularBytes(file: string, maxBytes: number, advice?: string): Buffer {
  const { fd, size } = openRegularFile(file, maxBytes, advice);
  try {
    // Read to the end, but never past the limit (a file that grows while it is read).
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(size - total, 64 * 1024), maxBytes + 1 - total));
      if (chunk.length === 0) break;
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new InputError(`${file} grew past the ${maxBytes} bytes expected of it while it was read`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}

/** The whole of a regular file of at most `maxBytes`, as UTF-8 text. */
export function readRegularText(file: string, maxBytes: number, advice?: string): string {
  return readRegularBytes(file, maxBytes, advice).toString('utf8');
}

/**
 * Calls `onLine` with each line of a regular file (without its newline; the last one may lack it),
 * reading a chunk at a time: a file larger than the longest string a JavaScript engine can hold is
 * read whole, as long as each line is at most `maxLineBytes`. `onLine` gets the 1-based line number
 * and whether the line ended with a newline.
 */
export function forEachLine(file: string, maxLineBytes: number, onLine: (line: string, number: number, terminated: boolean) => void): void {
  const { fd } = openRegularFile(file, Number.MAX_SAFE_INTEGER);
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let number = 0;
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl < 0 || nl >= n) break;
        const piece = chunk.subarray(start, nl);
        if (pendingBytes + piece.length > maxLineBytes) throw new InputError(`${file}:${number + 1}: the line is over ${maxLineBytes} bytes`);
        const line = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingBytes = 0;
        onLine(line.toString('utf8'), ++number, true);
        start = nl + 1;
      }
      if (start < n) {
        pendingBytes += n - start;
        if (pendingBytes > maxLineBytes) throw new InputError(`${file}:${number + 1}: the line is over ${maxLineBytes} bytes`);
        pending.push(Buffer.from(chunk.subarray(start, n)));
      }
    }
    if (pendingBytes > 0) onLine(Buffer.concat(pending).toString('utf8'), ++number, false);
  } finally {
    fs.closeSync(fd);
  }
}
