/**
 * The entries of a zip archive (an Inspect `.eval` log) read one at a time, each inflated only when
 * asked for and never past a bound: a small archive can declare, or hold, gigabytes (a zip bomb), and
 * an archive may carry entries the log does not use. The central directory is read for the names
 * and declared sizes; an entry is inflated only when its declared size is within the bounds, and
 * the inflation stops as soon as its output passes what it declared.
 */
import { inflateRawSync } from 'node:zlib';
import { InputError } from '../../common';

/** One entry as the central directory lists it. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** The size it declares inflated: checked against the bounds before a byte is inflated, and never inflated past. */
  size: number;
  /** Where its local header starts. */
  offset: number;
}

/** Bounds on what inflating an archive's entries may produce. */
export interface InflateBounds {
  /** The most one entry may inflate to (it is read as one text). */
  entryBytes: number;
  /** The most all entries read may inflate to together. */
  totalBytes: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function cut(why: string): Error {
  return new Error(why);
}

/** A 64-bit little-endian size or offset as a number (archives past 2^53 bytes do not exist). */
function u64(view: DataView, at: number): number {
  return Number(view.getBigUint64(at, true));
}

/** The central directory's entries, by name; throws a plain Error saying what is wrong with the archive. */
export function zipDirectory(bytes: Uint8Array): Map<string, ZipEntry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw cut('no end of central directory record');
  let count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if ((count === 0xffff || at === 0xffffffff) && end >= 20 && view.getUint32(end - 20, true) === ZIP64_LOCATOR) {
    const record = u64(view, end - 12);
    if (record + 56 > bytes.length || view.getUint32(record, true) !== ZIP64_EOCD) throw cut('a damaged zip64 end of central directory record');
    count = u64(view, record + 32);
    at = u64(view, record + 48);
  }
  const entries = new Map<string, ZipEntry>();
  const decoder = new TextDecoder();
  for (let k = 0; k < count; k++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) throw cut(`central directory entry ${k + 1} of ${count} is missing or damaged`);
    const method = view.getUint16(at + 10, true);
    let compressedSize = view.getUint32(at + 20, true);
    let size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    let offset = view.getUint32(at + 42, true);
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    // zip64: the sizes that did not fit 32 bits are in extra field 0x0001, in this order.
    if (compressedSize === 0xffffffff || offset === 0xffffffff || size === 0xffffffff) {
      for (let e = at + 46 + nameLength; e + 4 <= at + 46 + nameLength + extraLength; ) {
        const id = view.getUint16(e, true);
        const fieldSize = view.getUint16(e + 2, true);
        if (id === 1) {
          let f = e + 4;
          if (size === 0xffffffff) {
            size = u64(view, f);
            f += 8;
          }
          if (compressedSize === 0xffffffff) {
            compressedSize = u64(view, f);
            f += 8;
          }
          if (offset === 0xffffffff) offset = u64(view, f);
        }
        e += 4 + fieldSize;
      }
    }
    if (entries.has(name)) throw new DuplicateEntryError(name);
    entries.set(name, { name, method, compressedSize, size, offset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** An archive listing one name twice: which of the two a reader sees is up to the reader, so neither is taken. */
export class DuplicateEntryError extends Error {
  constructor(readonly entry: string) {
    super(`the archive lists ${entry} twice`);
  }
}

/**
 * Inflates entries of one archive within `bounds`, counting what every entry read so far produced.
 * `file` names the archive in messages; `advice` says how the bound can be changed.
 */
export class ZipReader {
  private inflated = 0;

  constructor(
    private readonly file: string,
    private readonly bytes: Uint8Array,
    private readonly bounds: InflateBounds,
    private readonly advice: string,
  ) {}

  /** The bytes of `entry`; throws InputError naming the archive, the entry and the bound passed. */
  read(entry: ZipEntry): Uint8Array {
    const { bytes, file } = this;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (entry.offset + 30 > bytes.length || view.getUint32(entry.offset, true) !== LOCAL) throw new InputError(`${file}: ${entry.name}: its local header is missing or damaged; the archive may be cut short`);
    const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
    if (start + entry.compressedSize > bytes.length) throw new InputError(`${file}: ${entry.name}: its data runs past the end of the archive; the archive may be cut short`);
    const data = bytes.subarray(start, start + entry.compressedSize);
    // The declared size first: a bomb that says what it is costs nothing.
    this.charge(entry, entry.method === 0 ? data.length : entry.size);
    if (entry.method === 0) return data;
    if (entry.method !== 8) throw new InputError(`${file}: ${entry.name}: compression method ${entry.method}; expected deflate (8) or stored (0), as Inspect writes`);
    let out: Buffer;
    try {
      // Never more than it declared: a deflate stream can expand about 1,032 times, so a stream is
      // not trusted to stop where its entry says it does.
      out = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.size) });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new InputError(`${file}: ${entry.name} inflates to more than the ${entry.size} bytes the archive declares for it; the archive is damaged or forged`);
      throw new InputError(`${file}: ${entry.name} cannot be inflated (${(e as Error).message}); the archive may be damaged or cut short`);
    }
    if (out.length !== entry.size) throw new InputError(`${file}: ${entry.name} inflates to ${out.length} bytes, not the ${entry.size} the archive declares for it; the archive is damaged`);
    return out;
  }

  /** Checks, before any is read, that `entries` together declare no more than the total bound; throws naming the entry that passes it. */
  reserve(entries: readonly ZipEntry[]): void {
    let sum = 0;
    for (const entry of entries) {
      sum += entry.method === 0 ? entry.compressedSize : entry.size;
      if (sum > this.bounds.totalBytes) throw new InputError(`${this.file}: the log's entries inflate to more than ${this.bounds.totalBytes} bytes together (at ${entry.name}), the most an imported log may (${this.advice})`);
    }
  }

  /** Counts an entry's declared output against the bounds; throws naming the bound it passes. */
  private charge(entry: ZipEntry, size: number): void {
    const { entryBytes, totalBytes } = this.bounds;
    if (size > entryBytes) throw new InputError(`${this.file}: ${entry.name} inflates to more than ${entryBytes} bytes, the most one entry may (${this.advice})`);
    if (this.inflated + size > totalBytes) throw new InputError(`${this.file}: the log's entries inflate to more than ${totalBytes} bytes together (at ${entry.name}), the most an imported log may (${this.advice})`);
    this.inflated += size;
  }
}
