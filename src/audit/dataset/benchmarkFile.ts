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
  /**
   * Parquet: the questions wanted (`--limit` without `--ids`). Rows are read until that many
   * questions parse, so the schema is the majority of the rows read, not of the whole file.
   */
  limit?: number;
}

/** Reads a benchmark file or folder into questions; throws InputError naming the file for bad input. */
export async function readBenchmark(target: string, options: BenchmarkOptions = {}): Promise<Dataset> {
  if (!isParquetBenchmark(target)) return loadDataset(target, options);
  const { split: given, limit, ...rest } = options;
  const split = given ?? DEFAULT_SPLIT;
  let wanted = limit ?? Infinity;
  for (;;) {
    const read = await readParquetRows(target, split, wanted);
    let dataset: Dataset | undefined;
    try {
      dataset = datasetFromRows(target, read.rows, read.contentHash, rest);
    } catch (e) {
      // No usable question among the first rows: the rest of the file may have them.
      if (read.complete) throw e;
    }
    // Rows that are not questions (malformed, another schema) leave fewer than asked: read further.
    if (dataset && (read.complete || limit === undefined || dataset.questions.length >= limit)) {
      return read.files.length === 1 && read.files[0] === target ? dataset : { ...dataset, split };
    }
    wanted = 2 * wanted + 64;
  }
}
