/**
 * Benchmarks as the hub ships them (docs/design.md section 3): one `.parquet` file, or a dataset
 * folder of `data/<split>-NNNNN-of-NNNNN.parquet` shards. Rows are read one row group at a time by
 * hyparquet and become the same records a JSONL line would, each keeping its file and row.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parquetMetadata, parquetRead, type FileMetaData } from 'hyparquet';
import { InputError, readRegularBytes } from '../../common';
import { MAX_DATASET_BYTES, type DatasetRow } from './dataset';

/** A parquet benchmark's rows in file order, and one hash over all its files' bytes. */
export interface ParquetRows {
  files: string[];
  rows: DatasetRow[];
  contentHash: string;
}

const SHARD = /^(.+)-(\d{5})-of-(\d{5})\.parquet$/;

/** Whether a dataset path names a parquet benchmark (a .parquet file or a folder) rather than JSONL/JSON text. */
export function isParquetBenchmark(target: string): boolean {
  if (/\.parquet$/i.test(target)) return true;
  try {
    return fs.statSync(target).isDirectory();
  } catch {
    return false;
  }
}

/** The shard files of one split in a hub dataset folder (`data/` or the folder itself), checked complete. */
export function splitShards(folder: string, split: string): string[] {
  const places = [path.join(folder, 'data'), folder].filter((d) => fs.existsSync(d) && fs.statSync(d).isDirectory());
  const splits = new Set<string>();
  for (const dir of places) {
    const names = fs.readdirSync(dir).filter((n) => n.toLowerCase().endsWith('.parquet'));
    const shards = names.flatMap((n) => {
      const m = SHARD.exec(n);
      if (m) splits.add(m[1]);
      else splits.add(n.replace(/\.parquet$/i, ''));
      return m && m[1] === split ? [{ name: n, index: Number(m[2]), count: Number(m[3]) }] : [];
    });
    const whole = names.find((n) => n === `${split}.parquet`);
    if (shards.length === 0 && whole) return [path.join(dir, whole)];
    if (shards.length === 0) continue;
    const count = shards[0].count;
    if (shards.some((s) => s.count !== count)) throw new InputError(`${dir}: the ${split} shards disagree on how many there are (${[...new Set(shards.map((s) => s.count))].join(' vs ')})`);
    const have = new Set(shards.map((s) => s.index));
    const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !have.has(i));
    if (missing.length > 0) {
      const name = (i: number) => `${split}-${String(i).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.parquet`;
      throw new InputError(`${dir}: split ${split} has ${count} shards but ${missing.length} are missing (${missing.slice(0, 3).map(name).join(', ')}${missing.length > 3 ? ', …' : ''})`);
    }
    return shards.sort((a, b) => a.index - b.index).map((s) => path.join(dir, s.name));
  }
  const found = [...splits].sort();
  throw new InputError(
    `${folder}: no ${split} split; expected data/${split}-NNNNN-of-NNNNN.parquet` + (found.length > 0 ? ` (this folder has ${found.join(', ')}; choose one with --split)` : ' (no .parquet file in it or in its data/ folder)'),
  );
}

/** A parquet value as JSON would have it: 64-bit integers as numbers (strings past 2^53), dates as ISO text. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Array.from(v);
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<unknown>, jsonValue);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, jsonValue(x)]));
  return v;
}

function metadataOf(file: string, bytes: ArrayBuffer): FileMetaData {
  try {
    return parquetMetadata(bytes);
  } catch (e) {
    throw new InputError(`${file}: not a readable parquet file (${(e as Error).message}); expected a benchmark saved as parquet, e.g. a hub dataset's data/test-00000-of-00001.parquet`);
  }
}

/** Every row of one parquet file, one row group at a time, as records placed at (file, row) (`shown` names the file in the place). */
export async function parquetFileRows(file: string, shown: string, firstLine: number, bytes: ArrayBuffer, into: DatasetRow[]): Promise<void> {
  const metadata = metadataOf(file, bytes);
  // Loaded on first use: the compressors instantiate WebAssembly when their module loads, which
  // every start of the CLI and of VS Code's extension host would otherwise pay for.
  const { compressors } = await import('hyparquet-compressors');
  let start = 0;
  for (const [g, group] of metadata.row_groups.entries()) {
    const count = Number(group.num_rows);
    const end = start + count;
    let rows: Record<string, unknown>[] = [];
    try {
      await parquetRead({ file: bytes, metadata, compressors, rowStart: start, rowEnd: end, rowFormat: 'object', onComplete: (r) => (rows = r) });
    } catch (e) {
      throw new InputError(`${file}: row group ${g} (rows ${start}–${end - 1}) cannot be read: ${(e as Error).message}`);
    }
    rows.forEach((r, i) => {
      const row = start + i;
      into.push({ line: firstLine + row, index: firstLine + row, value: jsonValue(r), place: { file: shown, row } });
    });
    start = end;
  }
}

/**
 * Reads a parquet benchmark: `target` a .parquet file, or a hub dataset folder whose `split` shards
 * are read in order. Throws InputError naming the file for a missing, damaged or unsupported one.
 */
export async function readParquetRows(target: string, split: string): Promise<ParquetRows> {
  let isFolder: boolean;
  try {
    isFolder = fs.statSync(target).isDirectory();
  } catch {
    throw new InputError(`cannot read dataset ${target}: no such file or folder`);
  }
  const files = isFolder ? splitShards(target, split) : [target];
  const hash = createHash('sha256');
  const rows: DatasetRow[] = [];
  for (const file of files) {
    // A FIFO or a link to /dev/zero named as a shard is refused before a byte is read.
    const buffer = readRegularBytes(file, MAX_DATASET_BYTES);
    hash.update(isFolder ? `${path.relative(target, file)}\n` : '').update(buffer);
    const bytes = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
    await parquetFileRows(file, isFolder ? path.relative(target, file) : path.basename(file), rows.length + 1, bytes, rows);
  }
  return { files, rows, contentHash: hash.digest('hex') };
}
