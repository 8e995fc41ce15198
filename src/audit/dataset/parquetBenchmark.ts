/**
 * Benchmarks as the hub ships them (docs/design/data-in-data-out.md): one `.parquet` file, or a dataset
 * folder of `data/<split>-NNNNN-of-NNNNN.parquet` shards. Rows are read one row group at a time by
 * hyparquet and become the same records a JSONL line would, each keeping its file and row.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parquetMetadata, parquetRead, parquetSchema, type Compressors, type FileMetaData } from 'hyparquet';
import { InputError, readRegularBytes } from '../../common';
import { MAX_DATASET_BYTES, type DatasetRow } from './dataset';

/** A parquet benchmark's rows in file order, and one hash over all its files' bytes. */
export interface ParquetRows {
  files: string[];
  rows: DatasetRow[];
  contentHash: string;
  /** Every row was read (false: reading stopped at the row limit asked for). */
  complete: boolean;
}

const SHARD = /^(.+)-(\d{5})-of-(\d{5})\.parquet$/;

/**
 * What decompressing a parquet benchmark may produce: a page is decompressed into a buffer of the
 * size its header declares, so a page declaring 2 GiB, or a few KB of zstd that would expand to
 * gigabytes, stops here. A page is at most 256 MiB (writers make pages of about 1 MiB), a whole read
 * (every shard, every column) at most 1 GiB: twice the largest text benchmark read, with its columns.
 */
export interface DecompressBounds {
  pageBytes: number;
  totalBytes: number;
}
export const PARQUET_DECOMPRESS_BOUNDS: DecompressBounds = { pageBytes: 256 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024 };
const BOUNDS_ADVICE = 'fixed bounds that keep a benchmark within memory; split it into more shards or row groups';

/** What the pages decompressed so far came to, over one read of a benchmark (every shard). */
export interface DecompressBudget {
  bounds: DecompressBounds;
  spent: number;
}

export function decompressBudget(bounds: DecompressBounds = PARQUET_DECOMPRESS_BOUNDS): DecompressBudget {
  return { bounds, spent: 0 };
}

/**
 * The decompressors, each given an output of exactly the declared page size (never more) after the
 * size is checked against the bounds; `where` names the file (and row group) in a refusal.
 */
function boundedCompressors(base: Compressors, zstd: (input: Uint8Array, out: Uint8Array) => Uint8Array, budget: DecompressBudget, where: () => string): Compressors {
  const charge = (codec: string, length: number): void => {
    const { pageBytes, totalBytes } = budget.bounds;
    if (length > pageBytes) throw new InputError(`${where()}: a ${codec} page declares ${length} bytes decompressed, more than the ${pageBytes} a page may (${BOUNDS_ADVICE})`);
    if (budget.spent + length > totalBytes) throw new InputError(`${where()}: its pages decompress to more than ${totalBytes} bytes (with the files read before it), the most a benchmark may (${BOUNDS_ADVICE})`);
    budget.spent += length;
  };
  const out: Compressors = {};
  for (const [codec, decompress] of Object.entries(base)) {
    if (!decompress) continue;
    out[codec as keyof Compressors] = (input: Uint8Array, length: number) => {
      charge(codec, length);
      // fzstd sizes its own output from the frame unless given one: give it the declared page.
      return codec === 'ZSTD' ? zstd(input, new Uint8Array(length)) : decompress(input, length);
    };
  }
  return out;
}

/** The top-level columns of a parquet file and their types, as a shard's schema is compared with the others'. */
function columnsOf(metadata: FileMetaData): string {
  return parquetSchema(metadata)
    .children.map((c) => `${c.element.name}${c.children.length > 0 ? `{${c.children.map((k) => k.element.name).join(',')}}` : `:${c.element.type ?? ''}`}`)
    .join(', ');
}

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

/**
 * Every row of one parquet file, one row group at a time, as records placed at (file, row) (`shown`
 * names the file in the place); each page decompressed within `budget`.
 */
export async function parquetFileRows(file: string, shown: string, firstLine: number, bytes: ArrayBuffer, into: DatasetRow[], budget = decompressBudget(), metadata = metadataOf(file, bytes), rowLimit = Infinity): Promise<void> {
  // Loaded on first use: the compressors instantiate WebAssembly when their module loads, which
  // every start of the CLI and of VS Code's extension host would otherwise pay for.
  const { compressors, decompressZstd } = await import('hyparquet-compressors');
  const declared = metadata.row_groups.reduce((sum, g) => g.columns.reduce((s, c) => s + Number(c.meta_data?.total_uncompressed_size ?? 0), sum), 0);
  if (budget.spent + declared > budget.bounds.totalBytes) throw new InputError(`${file}: its columns declare ${declared} bytes decompressed (with the files read before it), more than the ${budget.bounds.totalBytes} a benchmark may (${BOUNDS_ADVICE})`);
  let start = 0;
  for (const [g, group] of metadata.row_groups.entries()) {
    if (into.length >= rowLimit) return;
    const count = Number(group.num_rows);
    // Past the row limit only the rows asked for are decompressed (hyparquet reads the pages up to rowEnd).
    const end = start + Math.min(count, rowLimit - into.length);
    let rows: Record<string, unknown>[] = [];
    const bounded = boundedCompressors(compressors, decompressZstd, budget, () => `${file}: row group ${g} (rows ${start}–${end - 1})`);
    try {
      await parquetRead({ file: bytes, metadata, compressors: bounded, rowStart: start, rowEnd: end, rowFormat: 'object', onComplete: (r) => (rows = r) });
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(`${file}: row group ${g} (rows ${start}–${end - 1}) cannot be read: ${(e as Error).message}`);
    }
    rows.forEach((r, i) => {
      const row = start + i;
      into.push({ line: firstLine + row, index: firstLine + row, value: jsonValue(r), place: { file: shown, row } });
    });
    start += count;
  }
}

/**
 * Reads a parquet benchmark: `target` a .parquet file, or a hub dataset folder whose `split` shards
 * are read in order. Throws InputError naming the file for a missing, damaged or unsupported one.
 * With `rowLimit`, rows stop being decompressed once that many are read (`--limit`); every shard's
 * bytes are still hashed and its columns checked, so the content hash is the whole benchmark's.
 */
export async function readParquetRows(target: string, split: string, rowLimit = Infinity): Promise<ParquetRows> {
  let isFolder: boolean;
  try {
    isFolder = fs.statSync(target).isDirectory();
  } catch {
    throw new InputError(`cannot read dataset ${target}: no such file or folder`);
  }
  const files = isFolder ? splitShards(target, split) : [target];
  const hash = createHash('sha256');
  const rows: DatasetRow[] = [];
  const budget = decompressBudget();
  let first: { file: string; columns: string } | undefined;
  let total = 0;
  for (const file of files) {
    // A FIFO or a link to /dev/zero named as a shard is refused before a byte is read.
    const buffer = readRegularBytes(file, MAX_DATASET_BYTES, 'a fixed bound: split the benchmark into more shards');
    hash.update(isFolder ? `${path.relative(target, file)}\n` : '').update(buffer);
    const bytes = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
    const metadata = metadataOf(file, bytes);
    // The shards of one split are one benchmark: shards of different columns are different benchmarks, not one to be read by majority.
    const columns = columnsOf(metadata);
    if (first && columns !== first.columns) throw new InputError(`${file}: its columns (${columns}) differ from those of ${first.file} (${first.columns}); the shards of one split must be of one benchmark`);
    first ??= { file, columns };
    total += Number(metadata.num_rows);
    if (rows.length < rowLimit) await parquetFileRows(file, isFolder ? path.relative(target, file) : path.basename(file), rows.length + 1, bytes, rows, budget, metadata, rowLimit);
  }
  return { files, rows, contentHash: hash.digest('hex'), complete: rows.length >= total };
}
