/**
 * Writes safetensors files for tests: an 8-byte little-endian header length, a JSON header
 * (dtype, shape, data_offsets per tensor, `__metadata__`), padded with spaces to a multiple of 8,
 * then the tensor bytes in header order.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { bf16Bits, f16Bits } from './bf16';

export type StoredDtype = 'F32' | 'F16' | 'BF16';

export interface TensorToWrite {
  name: string;
  dtype: StoredDtype;
  shape: number[];
  /** Values in row-major order; F16/BF16 are rounded to nearest even when written. */
  data: Float32Array;
}

export function bytesPerElement(dtype: StoredDtype): number {
  return dtype === 'F32' ? 4 : 2;
}

/** A tensor whose values are made only when its bytes are written (for large models). */
export interface LazyTensor {
  name: string;
  dtype: StoredDtype;
  shape: number[];
  make: () => Float32Array;
}

const littleEndian = os.endianness() === 'LE';

/** The stored bytes of one tensor (little endian). */
export function encodeTensorData(dtype: StoredDtype, data: Float32Array): Buffer {
  if (dtype === 'F32' && littleEndian) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const out = Buffer.alloc(data.length * bytesPerElement(dtype));
  if (dtype === 'F32') {
    for (let i = 0; i < data.length; i++) out.writeFloatLE(data[i], i * 4);
  } else if (dtype === 'BF16') {
    for (let i = 0; i < data.length; i++) out.writeUInt16LE(bf16Bits(data[i]), i * 2);
  } else {
    for (let i = 0; i < data.length; i++) out.writeUInt16LE(f16Bits(data[i]), i * 2);
  }
  return out;
}

/** Header length prefix + header JSON padded with spaces to a multiple of 8. */
export function encodeHeader(headerJson: string): Buffer {
  let json = Buffer.from(headerJson, 'utf8');
  const pad = (8 - (json.length % 8)) % 8;
  if (pad) json = Buffer.concat([json, Buffer.alloc(pad, 0x20)]);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, json]);
}

/** Writes a well-formed safetensors file. Returns the number of bytes written. */
export function writeSafetensors(
  path: string,
  tensors: TensorToWrite[],
  metadata: Record<string, string> = { format: 'pt' },
): number {
  return writeLazySafetensors(
    path,
    tensors.map((t) => {
      const count = t.shape.reduce((a, b) => a * b, 1);
      if (count !== t.data.length) {
        throw new Error(`writeSafetensors: ${t.name} has ${t.data.length} values for shape [${t.shape}]`);
      }
      return { name: t.name, dtype: t.dtype, shape: t.shape, make: () => t.data };
    }),
    metadata,
  );
}

/** Same file layout, streaming: each tensor's values are made and written one at a time. */
export function writeLazySafetensors(
  path: string,
  tensors: LazyTensor[],
  metadata: Record<string, string> = { format: 'pt' },
): number {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const t of tensors) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * bytesPerElement(t.dtype);
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const head = encodeHeader(JSON.stringify(header));
  const fd = fs.openSync(path, 'w');
  try {
    fs.writeSync(fd, head);
    for (const t of tensors) {
      const data = t.make();
      const count = t.shape.reduce((a, b) => a * b, 1);
      if (count !== data.length) throw new Error(`writeSafetensors: ${t.name} has ${data.length} values for shape [${t.shape}]`);
      const body = encodeTensorData(t.dtype, data);
      for (let at = 0; at < body.length; ) at += fs.writeSync(fd, body, at, Math.min(body.length - at, 1 << 30));
    }
  } finally {
    fs.closeSync(fd);
  }
  return head.length + offset;
}

/**
 * Writes a file with any header text and body, for bad-input tests. `headerLength` overrides the
 * 8-byte length prefix (e.g. a length past the end of the file); by default it is the padded header length.
 */
export function writeRawSafetensors(
  path: string,
  headerJson: string,
  body: Buffer,
  options: { headerLength?: bigint; pad?: boolean } = {},
): void {
  let json = Buffer.from(headerJson, 'utf8');
  if (options.pad !== false) {
    const pad = (8 - (json.length % 8)) % 8;
    if (pad) json = Buffer.concat([json, Buffer.alloc(pad, 0x20)]);
  }
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(options.headerLength ?? BigInt(json.length));
  fs.writeFileSync(path, Buffer.concat([len, json, body]));
}
