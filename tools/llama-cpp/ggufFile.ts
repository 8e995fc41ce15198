/**
 * A GGUF (version 3) writer: the llama.cpp model file. Layout, from the GGUF specification in the
 * ggml repository (docs/gguf.md): header (magic "GGUF", version, tensor count, metadata count),
 * metadata key/value pairs, tensor infos (name, dims fastest-first, ggml type, offset into the
 * data section), padding to `general.alignment`, then the tensor data, each tensor aligned.
 *
 * Tensor types written: F32 and Q8_0 (blocks of 32 weights along a row: one F16 scale d =
 * max|w| / 127 and 32 int8 values q = round(w / d)).
 */
import * as fs from 'node:fs';

const ALIGNMENT = 32;

/** IEEE binary16 bits of a float, rounded to nearest even (Q8_0's scales). */
export function toHalf(value: number): number {
  const bits = new Uint32Array(new Float32Array([value]).buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  let mant = bits & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && (half & 1))) half++;
    return sign | half;
  }
  let half = (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half++;
  return sign | half;
}

enum ValueType { UINT32 = 4, INT32 = 5, FLOAT32 = 6, BOOL = 7, STRING = 8, ARRAY = 9 }
export enum GgmlType { F32 = 0, Q8_0 = 8 }

export type MetaValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'i32s'; value: readonly number[] };

export interface GgufTensor {
  name: string;
  /** Row-major shape as in the checkpoint ([rows, cols]); written fastest axis first. */
  shape: readonly number[];
  type: GgmlType;
  data: Float32Array;
}

/** Collects bytes in growing chunks. */
class Bytes {
  private chunks: Buffer[] = [];
  length = 0;

  push(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }

  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }

  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }

  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }

  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }

  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }

  pad(): void {
    const n = (ALIGNMENT - (this.length % ALIGNMENT)) % ALIGNMENT;
    if (n) this.push(Buffer.alloc(n));
  }

  concat(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(out: Bytes, v: MetaValue): void {
  switch (v.type) {
    case 'u32': out.u32(ValueType.UINT32); out.u32(v.value); break;
    case 'i32': out.u32(ValueType.INT32); out.i32(v.value); break;
    case 'f32': out.u32(ValueType.FLOAT32); out.f32(v.value); break;
    case 'bool': out.u32(ValueType.BOOL); out.push(Buffer.from([v.value ? 1 : 0])); break;
    case 'string': out.u32(ValueType.STRING); out.str(v.value); break;
    case 'strings':
      out.u32(ValueType.ARRAY); out.u32(ValueType.STRING); out.u64(v.value.length);
      for (const s of v.value) out.str(s);
      break;
    case 'i32s':
      out.u32(ValueType.ARRAY); out.u32(ValueType.INT32); out.u64(v.value.length);
      for (const x of v.value) out.i32(x);
      break;
  }
}

/** Q8_0 bytes of a row-major matrix whose rows have a multiple of 32 values. */
export function quantizeQ8_0(data: Float32Array, rowLength: number): Buffer {
  if (rowLength % 32 !== 0) throw new Error(`Q8_0 needs rows of a multiple of 32 values, got ${rowLength}`);
  const blocks = data.length / 32;
  const out = Buffer.alloc(blocks * 34);
  for (let b = 0; b < blocks; b++) {
    let max = 0;
    for (let i = 0; i < 32; i++) max = Math.max(max, Math.abs(data[b * 32 + i]));
    const d = max / 127;
    out.writeUInt16LE(toHalf(d), b * 34);
    for (let i = 0; i < 32; i++) out.writeInt8(d === 0 ? 0 : Math.round(data[b * 32 + i] / d), b * 34 + 2 + i);
  }
  return out;
}

function tensorBytes(t: GgufTensor): Buffer {
  if (t.type === GgmlType.F32) return Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return quantizeQ8_0(t.data, t.shape[t.shape.length - 1]);
}

export function writeGguf(file: string, metadata: Record<string, MetaValue>, tensors: readonly GgufTensor[]): void {
  const head = new Bytes();
  head.push(Buffer.from('GGUF', 'ascii'));
  head.u32(3);
  head.u64(tensors.length);
  const meta = { ...metadata, 'general.alignment': { type: 'u32', value: ALIGNMENT } as MetaValue };
  head.u64(Object.keys(meta).length);
  for (const [key, value] of Object.entries(meta)) {
    head.str(key);
    writeValue(head, value);
  }
  const bodies = tensors.map(tensorBytes);
  let offset = 0;
  tensors.forEach((t, i) => {
    head.str(t.name);
    head.u32(t.shape.length);
    for (const d of [...t.shape].reverse()) head.u64(d);
    head.u32(t.type);
    head.u64(offset);
    offset += bodies[i].length;
    offset += (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT;
  });
  head.pad();
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, head.concat());
    for (const b of bodies) {
      fs.writeSync(fd, b);
      const pad = (ALIGNMENT - (b.length % ALIGNMENT)) % ALIGNMENT;
      if (pad) fs.writeSync(fd, Buffer.alloc(pad));
    }
  } finally {
    fs.closeSync(fd);
  }
}
