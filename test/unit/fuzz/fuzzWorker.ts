/**
 * Worker side of the fuzz pass: runs one property and, before each input, copies the input's
 * text into shared memory and counts it, so that the watchdog on the main thread can name an
 * input that never returns (and terminate this worker, which nothing inside it could do).
 */
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { READER_PROPERTIES, type ReaderPropertyName } from './readerProperties';

export interface FuzzWorkerData {
  name: ReaderPropertyName;
  seed: number;
  ms: number;
  root: string;
  /** Int32 [0]: inputs started; Int32 [1]: bytes of the current input's text; then that text. */
  shared: SharedArrayBuffer;
}

const data = workerData as FuzzWorkerData;
const counters = new Int32Array(data.shared, 0, 2);
const text = new Uint8Array(data.shared, 8);

function observe(input: unknown): void {
  const bytes = Buffer.from(fc.stringify(input), 'utf8');
  const n = Math.min(bytes.length, text.length);
  bytes.copy(text, 0, 0, n);
  Atomics.store(counters, 1, n);
  Atomics.add(counters, 0, 1);
}

const outcome = READER_PROPERTIES[data.name]({ seed: data.seed, ms: data.ms, root: data.root, observe });
parentPort?.postMessage(outcome);
