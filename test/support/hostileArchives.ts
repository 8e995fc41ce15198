/**
 * Hostile inputs made at test time, never committed: zip archives whose entries are written as
 * given (a deflated entry declaring any size, two entries of one name, an entry no reader should
 * open), deflate streams of gigabytes of zeros in a few KB, and Inspect logs to put in them.
 */
import { deflateSync } from 'fflate';

/** One zip entry: its bytes as stored (deflated or not) and the size it declares inflated. */
export interface RawZipEntry {
  name: string;
  data: Uint8Array;
  deflated: boolean;
  size: number;
}

/** A zip archive of `entries` in order (CRC-32 left 0: no reader here checks it). */
export function zipArchive(entries: readonly RawZipEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.deflated ? 8 : 0, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(Math.min(e.size, 0xffffffff), 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, Buffer.from(e.data));
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(e.deflated ? 8 : 0, 10);
    c.writeUInt32LE(e.data.length, 20);
    c.writeUInt32LE(Math.min(e.size, 0xffffffff), 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += 30 + name.length + e.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}

/** A JSON value (or its text) as a deflated entry declaring its true size. */
export function jsonEntry(name: string, value: unknown): RawZipEntry {
  const bytes = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
  return { name, data: deflateSync(bytes), deflated: true, size: bytes.length };
}

/** Deflate's bits, least significant first; Huffman codes go in most significant bit first. */
class BitWriter {
  private bytes: number[] = [];
  private bit = 0;
  private current = 0;
  bits(value: number, count: number): void {
    for (let i = 0; i < count; i++) this.push((value >> i) & 1);
  }
  code(value: number, count: number): void {
    for (let i = count - 1; i >= 0; i--) this.push((value >> i) & 1);
  }
  /** A sync flush: an empty stored block, which leaves the stream on a byte boundary. */
  syncFlush(): void {
    this.bits(0, 3);
    if (this.bit > 0) this.push(0, true);
    this.bytes.push(0, 0, 0xff, 0xff);
  }
  /** The final empty block, padded to a byte. */
  finish(): Uint8Array {
    this.bits(1, 1);
    this.bits(1, 2);
    this.code(0, 7);
    if (this.bit > 0) this.push(0, true);
    return new Uint8Array(this.bytes);
  }
  take(): Uint8Array {
    const out = new Uint8Array(this.bytes);
    this.bytes = [];
    return out;
  }
  private push(b: number, pad = false): void {
    if (pad) {
      this.bytes.push(this.current);
      this.current = 0;
      this.bit = 0;
      return;
    }
    this.current |= b << this.bit;
    if (++this.bit === 8) {
      this.bytes.push(this.current);
      this.current = 0;
      this.bit = 0;
    }
  }
}

/**
 * A raw deflate stream of about `mib` MiB of zeros in about `mib` KB, made without holding the
 * zeros: one literal zero, then blocks of fixed-code matches (length 258, distance 1), each block
 * flushed to a byte boundary so the same bytes repeat.
 */
export function deflatedZeros(mib: number): Uint8Array {
  const matchesPerBlock = 4064; // 4064 × 258 + 1 ≈ 1 MiB
  const w = new BitWriter();
  w.bits(0, 1);
  w.bits(1, 2); // fixed Huffman codes
  w.code(0x30, 8); // literal 0
  w.code(0, 7); // end of block
  w.syncFlush();
  const head = w.take();
  w.bits(0, 1);
  w.bits(1, 2);
  for (let i = 0; i < matchesPerBlock; i++) {
    w.code(0xc5, 8); // length 258 (code 285)
    w.code(0, 5); // distance 1
  }
  w.code(0, 7);
  w.syncFlush();
  const block = w.take();
  const tail = w.finish();
  const out = new Uint8Array(head.length + block.length * mib + tail.length);
  out.set(head, 0);
  for (let i = 0; i < mib; i++) out.set(block, head.length + i * block.length);
  out.set(tail, head.length + mib * block.length);
  return out;
}

/** The size `deflatedZeros(mib)` inflates to. */
export const zerosSize = (mib: number): number => 1 + mib * 4064 * 258;

/** An Inspect header.json: one task, the model and generation config given. */
export function inspectHeader(generate: Record<string, unknown> = { temperature: 0 }): Record<string, unknown> {
  return { version: 2, status: 'success', eval: { task: 'arith', model: 'test/model', model_generate_config: generate, packages: { inspect_ai: '0.3.0' }, dataset: {} } };
}

/** An Inspect sample: a question with a numeric target and its output. */
export function inspectSample(id: number | string, epoch: number, output: string, target: unknown = '4'): Record<string, unknown> {
  return { id, epoch, input: `What is 2 + ${id}?`, target, output: { completion: output }, scores: { match: { value: 'C', answer: output } } };
}

/** JSON text of a value nested `depth` objects deep ({"a":{"a":…"x"…}}), made without a recursive stringify. */
export function nestedJson(depth: number): string {
  return '{"a":'.repeat(depth) + '"x"' + '}'.repeat(depth);
}

/** JSON text of `value` with the string "__DEEP__" replaced by `deep` (JSON text). */
export function withDeep(value: unknown, deep: string): string {
  return JSON.stringify(value).replace('"__DEEP__"', deep);
}
