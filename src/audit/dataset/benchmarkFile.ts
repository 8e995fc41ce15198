/**
 * A benchmark path as `--data` gives it, whatever its kind: JSONL or a JSON array (text, read at
 * once), or parquet (a file or a hub dataset folder, read row group by row group).
 */
import { loadDataset, datasetFromRows, type Dataset, type DatasetOptions } from './dataset';
import { isParquetBenchmark, readParquetRows } from './parquetBenchmark';

/** The split read from a hub dataset folder when none is chosen. */
export const DEFAULT_SPLIT = 'test';

export interface BenchmarkOptions extends DatasetOptions {
  /** Hub dataset folders: which split's shards to read (default test). */
  split?: string;
}

/** Reads a benchmark file or folder into questions; throws InputError naming the file for bad input. */
export async function readBenchmark(target: string, options: BenchmarkOptions = {}): Promise<Dataset> {
  if (!isParquetBenchmark(target)) return loadDataset(target, options);
  const { split: given, ...rest } = options;
  const split = given ?? DEFAULT_SPLIT;
  const read = await readParquetRows(target, split);
  const dataset = datasetFromRows(target, read.rows, read.contentHash, rest);
  return read.files.length === 1 && read.files[0] === target ? dataset : { ...dataset, split };
}
