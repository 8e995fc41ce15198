/**
 * Reads Hugging Face safetensors weights: one `model.safetensors` or shards listed in
 * `model.safetensors.index.json`. Only headers are parsed up front (and validated, since a model
 * folder is untrusted input); tensor bytes are read from disk on demand, one tensor at a time,
 * so the caller controls peak memory. Values are decoded to float32 exactly.
 *
 * File layout: 8-byte little-endian header length N, N bytes of JSON header
 * `{name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?: {...}}`, then the data
 * section; offsets are relative to the start of the data section.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError, openRegularFile, readRegularText } from '../../common';
import { isObject } from '../../contract';
import { decodeBF16, decodeF16 } from './halfFloat';

export type DType = 'F32' | 'F16' | 'BF16';
export const SUPPORTED_DTYPES: readonly DType[] = ['F32', 'F16', 'BF16'];

export interface TensorInfo {
  name: string;
  dtype: DType;
  shape: number[];
  /** Path of the safetensors file holding the tensor. */
  file: string;
  /** Absolute byte offset of the tensor's data in `file`. */
  byteOffset: number;
  byteLength: number;
}

export interface WeightStore {
  readonly tensors: ReadonlyMap<string, TensorInfo>;
  /** The tensor decoded to float32, read from disk now (nothing is cached). */
  read(name: string): Float32Array;
  /** sha256 hex over the weight files (name, size and bytes of each, in sorted order); computed once. */
  contentHash(): string;
  /** Closes open file handles; a later read reopens them. */
  close(): void;
}

export const SINGLE_WEIGHTS_FILE = 'model.safetensors';
export const WEIGHTS_INDEX_FILE = 'model.safetensors.index.json';

/** The format's own limit on header size; larger is a corrupt or hostile file. */
/** The largest model.safetensors.index.json read (a few hundred KB for the largest models). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;
const MAX_HEADER_BYTES = 100 * 1024 * 1024;
/** Read/hash chunk size: big enough for throughput, small enough to keep memory flat. */
const CHUNK_BYTES = 16 * 1024 * 1024;
const hostIsLittleEndian = os.endianness() === 'LE';

export function bytesPerElement(dtype: DType): number {
  return dtype === 'F32' ? 4 : 2;
}

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function readFully(fd: number, target: Uint8Array, position: number, file: string): void {
  let done = 0;
  while (done < target.byteLength) {
    const n = fs.readSync(fd, target, done, Math.min(target.byteLength - done, 1 << 30), position + done);
    if (n === 0) {
      throw new InputError(`${file}: file ended at byte ${position + done}, expected ${target.byteLength - done} more bytes (truncated file?)`);
    }
    done += n;
  }
}

/** Parses and validates the header of one safetensors file. */
export function readSafetensorsHeader(file: string): TensorInfo[] {
  let fd: number;
  try {
    // A FIFO or device would block or never end: only a regular file is opened for its header.
    fd = openRegularFile(file, Number.MAX_SAFE_INTEGER).fd;
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${file}: cannot open safetensors file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    const fileSize = fs.fstatSync(fd).size;
    if (fileSize < 8) {
      throw new InputError(`${file}: file is ${fileSize} bytes, too short for a safetensors file (expected an 8-byte header length, a JSON header and data)`);
    }
    const lengthBytes = Buffer.alloc(8);
    readFully(fd, lengthBytes, 0, file);
    const declared = lengthBytes.readBigUInt64LE(0);
    if (declared > BigInt(fileSize - 8)) {
      throw new InputError(
        `${file}: header length ${declared} is past the end of the file (the file has ${fileSize - 8} bytes after the 8-byte length); the file is truncated or not safetensors`,
      );
    }
    const headerLength = Number(declared);
    if (headerLength > MAX_HEADER_BYTES) {
      throw new InputError(`${file}: header length ${headerLength} exceeds the safetensors limit of ${MAX_HEADER_BYTES} bytes`);
    }
    const headerBytes = Buffer.alloc(headerLength);
    readFully(fd, headerBytes, 8, file);
    let header: unknown;
    try {
      header = JSON.parse(headerBytes.toString('utf8'));
    } catch (e) {
      throw new InputError(`${file}: header is not valid JSON (${(e as Error).message}); expected a JSON object of tensors`);
    }
    if (!isObject(header)) {
      throw new InputError(`${file}: header is not a JSON object; expected {"tensor name": {dtype, shape, data_offsets}, ...}`);
    }
    const dataStart = 8 + headerLength;
    const dataSize = fileSize - dataStart;
    const tensors: TensorInfo[] = [];
    const ranges: { name: string; begin: number; end: number }[] = [];
    for (const [name, entry] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      const where = `${file}: tensor "${name}"`;
      if (!isObject(entry)) throw new InputError(`${where}: expected an object {dtype, shape, data_offsets}`);
      const { dtype, shape, data_offsets: offsets } = entry;
      if (typeof dtype !== 'string') throw new InputError(`${where}: missing dtype; supported dtypes are ${SUPPORTED_DTYPES.join(', ')}`);
      if (!(SUPPORTED_DTYPES as readonly string[]).includes(dtype)) {
        throw new InputError(`${where}: dtype ${dtype} is not supported; supported dtypes are ${SUPPORTED_DTYPES.join(', ')}`);
      }
      if (!Array.isArray(shape) || !shape.every(isCount)) {
        throw new InputError(`${where}: shape ${JSON.stringify(shape)} is not a list of non-negative integers`);
      }
      if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount)) {
        throw new InputError(`${where}: data_offsets ${JSON.stringify(offsets)} is not a pair [begin, end] of non-negative integers`);
      }
      const [begin, end] = offsets as number[];
      if (begin > end || end > dataSize) {
        throw new InputError(
          `${where}: data_offsets [${begin}, ${end}] are out of bounds; expected 0 <= begin <= end <= ${dataSize} (the size of the data section)`,
        );
      }
      const d = dtype as DType;
      const expected = elementCount(shape as number[]) * bytesPerElement(d);
      if (end - begin !== expected) {
        throw new InputError(
          `${where}: data_offsets [${begin}, ${end}] hold ${end - begin} bytes, but dtype ${d} with shape ${formatShape(shape as number[])} needs ${expected} bytes`,
        );
      }
      tensors.push({ name, dtype: d, shape: (shape as number[]).slice(), file, byteOffset: dataStart + begin, byteLength: expected });
      ranges.push({ name, begin, end });
    }
    ranges.sort((a, b) => a.begin - b.begin || a.end - b.end);
    let reach: { name: string; begin: number; end: number } | undefined; // non-empty range ending furthest so far
    for (const cur of ranges) {
      if (cur.end === cur.begin) continue; // empty tensors occupy no bytes
      if (reach && cur.begin < reach.end) {
        throw new InputError(
          `${file}: tensors "${reach.name}" [${reach.begin}, ${reach.end}] and "${cur.name}" [${cur.begin}, ${cur.end}] overlap; expected disjoint data_offsets`,
        );
      }
      if (!reach || cur.end > reach.end) reach = cur;
    }
    return tensors;
  } finally {
    fs.closeSync(fd);
  }
}

/** A weight file name from the index must stay inside the model folder. */
function shardPath(dir: string, indexFile: string, shard: string, tensor: string): string {
  if (shard.length === 0 || path.isAbsolute(shard) || shard.split(/[\\/]/).includes('..')) {
    throw new InputError(`${indexFile}: weight_map gives tensor "${tensor}" the file "${shard}"; expected a file name inside the model folder`);
  }
  return path.join(dir, shard);
}

function readIndex(dir: string): TensorInfo[] {
  const indexFile = path.join(dir, WEIGHTS_INDEX_FILE);
  let index: unknown;
  try {
    index = JSON.parse(readRegularText(indexFile, MAX_INDEX_BYTES));
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${indexFile}: not valid JSON (${(e as Error).message}); expected {"weight_map": {"tensor name": "shard file"}}`);
  }
  if (!isObject(index) || !isObject(index.weight_map)) {
    throw new InputError(`${indexFile}: missing field weight_map; expected {"weight_map": {"tensor name": "shard file"}}`);
  }
  const weightMap = index.weight_map;
  const shardOf = new Map<string, string>();
  for (const [tensor, shard] of Object.entries(weightMap)) {
    if (typeof shard !== 'string') {
      throw new InputError(`${indexFile}: weight_map entry for "${tensor}" is ${JSON.stringify(shard)}; expected a shard file name`);
    }
    shardOf.set(tensor, shardPath(dir, indexFile, shard, tensor));
  }
  const shards = [...new Set(shardOf.values())].sort();
  for (const file of shards) {
    if (!weightsFilePresent(file)) {
      const tensor = [...shardOf.entries()].find(([, f]) => f === file)?.[0];
      throw new InputError(
        `${indexFile}: weight_map names shard ${path.basename(file)} (for tensor "${tensor}"), but ${file} does not exist`,
      );
    }
  }
  const all: TensorInfo[] = [];
  const seen = new Map<string, string>();
  for (const file of shards) {
    const inFile = readSafetensorsHeader(file);
    const names = new Set(inFile.map((t) => t.name));
    for (const [tensor, f] of shardOf) {
      if (f === file && !names.has(tensor)) {
        throw new InputError(`${indexFile}: weight_map puts tensor "${tensor}" in ${path.basename(file)}, but that file has no such tensor`);
      }
    }
    for (const t of inFile) {
      const other = seen.get(t.name);
      if (other !== undefined) {
        throw new InputError(`${file}: tensor "${t.name}" is also stored in ${other}; expected each tensor in exactly one shard`);
      }
      seen.set(t.name, file);
      all.push(t);
    }
  }
  return all;
}

class DiskWeightStore implements WeightStore {
  readonly tensors: ReadonlyMap<string, TensorInfo>;
  private readonly fds = new Map<string, number>();
  private hash: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly files: readonly string[],
    list: readonly TensorInfo[],
  ) {
    this.tensors = new Map(list.map((t) => [t.name, t]));
  }

  private fd(file: string): number {
    let fd = this.fds.get(file);
    if (fd === undefined) {
      try {
        fd = openRegularFile(file, Number.MAX_SAFE_INTEGER).fd;
      } catch (e) {
        if (e instanceof InputError) throw e;
        throw new InputError(`${file}: cannot open weight file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
      }
      this.fds.set(file, fd);
    }
    return fd;
  }

  read(name: string): Float32Array {
    const info = this.tensors.get(name);
    if (!info) throw new InputError(`${this.dir}: no tensor named "${name}" in the weight files`);
    const fd = this.fd(info.file);
    const count = elementCount(info.shape);
    const out = new Float32Array(count);
    if (info.dtype === 'F32' && hostIsLittleEndian) {
      readFully(fd, new Uint8Array(out.buffer, 0, info.byteLength), info.byteOffset, info.file);
      return out;
    }
    const bytesPer = bytesPerElement(info.dtype);
    const chunkElements = Math.max(1, Math.floor(CHUNK_BYTES / bytesPer));
    const buffer = new Uint8Array(Math.min(info.byteLength, chunkElements * bytesPer));
    for (let at = 0; at < count; at += chunkElements) {
      const n = Math.min(chunkElements, count - at);
      const bytes = buffer.subarray(0, n * bytesPer);
      readFully(fd, bytes, info.byteOffset + at * bytesPer, info.file);
      if (info.dtype === 'F16') decodeF16(bytes, out, at, n);
      else if (info.dtype === 'BF16') decodeBF16(bytes, out, at, n);
      else {
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (let i = 0; i < n; i++) out[at + i] = view.getFloat32(i * 4, true);
      }
    }
    return out;
  }

  contentHash(): string {
    if (this.hash === undefined) {
      const h = createHash('sha256');
      const buffer = Buffer.alloc(CHUNK_BYTES);
      for (const file of this.files) {
        const fd = this.fd(file);
        const size = fs.fstatSync(fd).size;
        const sizeBytes = Buffer.alloc(8);
        sizeBytes.writeBigUInt64LE(BigInt(size));
        h.update(path.basename(file) + '\0');
        h.update(sizeBytes);
        for (let at = 0; at < size; ) {
          const n = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
          if (n === 0) throw new InputError(`${file}: file ended at byte ${at} while hashing, expected ${size} bytes`);
          h.update(buffer.subarray(0, n));
          at += n;
        }
      }
      this.hash = h.digest('hex');
    }
    return this.hash;
  }

  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }
}

/**
 * Whether a weights file is there. A symbolic link that loops, or points nowhere, is an InputError
 * naming it (existsSync alone would call the folder weightless).
 */
function weightsFilePresent(file: string): boolean {
  let link: fs.Stats;
  try {
    link = fs.lstatSync(file);
  } catch {
    return false;
  }
  if (!link.isSymbolicLink()) return true;
  try {
    fs.statSync(file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new InputError(`${file}: a symbolic link loop (it points back to itself, directly or through other links: ${fs.readlinkSync(file)}); expected the weights file`);
    if (code === 'ENOENT') throw new InputError(`${file}: a symbolic link to ${fs.readlinkSync(file)}, which does not exist; expected the weights file`);
    throw new InputError(`${file}: cannot open (${code ?? String(e)})`);
  }
}

/**
 * Opens the weights of a model folder: `model.safetensors` if present, else the shards named by
 * `model.safetensors.index.json`. Every header is validated now; no tensor data is read.
 */
export function openWeights(dir: string): WeightStore {
  const single = path.join(dir, SINGLE_WEIGHTS_FILE);
  if (weightsFilePresent(single)) {
    return new DiskWeightStore(dir, [single], readSafetensorsHeader(single));
  }
  if (weightsFilePresent(path.join(dir, WEIGHTS_INDEX_FILE))) {
    const tensors = readIndex(dir);
    const files = [...new Set(tensors.map((t) => t.file))].sort();
    return new DiskWeightStore(dir, files, tensors);
  }
  const hasBin = fs.existsSync(path.join(dir, 'pytorch_model.bin')) || fs.existsSync(path.join(dir, 'pytorch_model.bin.index.json'));
  throw new InputError(
    `${dir}: no weights found; expected ${SINGLE_WEIGHTS_FILE} or ${WEIGHTS_INDEX_FILE}` +
      (hasBin ? ' (only PyTorch .bin weights are present: convert them to safetensors)' : ''),
  );
}
