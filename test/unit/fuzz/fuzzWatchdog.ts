/**
 * Main-thread side of the fuzz pass: runs one property in a worker and watches it. An input that
 * has not returned after `inputMs` is a hang: the worker is terminated and the input named, so a
 * hang fails the test in bounded time with the input in hand (a synchronous endless loop cannot be
 * interrupted by fast-check's own time limit, which only acts between inputs).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FuzzOutcome, ReaderPropertyName } from './readerProperties';
import type { FuzzWorkerData } from './fuzzWorker';

export type WatchedOutcome = FuzzOutcome & { hung?: { input: string; afterInputs: number } };

const INPUT_TEXT_BYTES = 1 << 20;
/** Loading the worker's modules happens before the first input; give it room on a busy machine. */
const STARTUP_MS = 60_000;

export function fuzzInWorker(name: ReaderPropertyName, options: { seed: number; ms: number; inputMs: number }): Promise<WatchedOutcome> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-fuzz-'));
  const shared = new SharedArrayBuffer(8 + INPUT_TEXT_BYTES);
  const counters = new Int32Array(shared, 0, 2);
  const workerData: FuzzWorkerData = { name, seed: options.seed, ms: options.ms, root, shared };
  const worker = new Worker(path.join(__dirname, 'fuzzWorker.js'), { workerData });
  const started = Date.now();
  let seen = 0;
  let since = started;
  return new Promise<WatchedOutcome>((resolve, reject) => {
    const finish = (settle: () => void) => {
      clearInterval(timer);
      void worker.terminate().finally(() => {
        fs.rmSync(root, { recursive: true, force: true });
        settle();
      });
    };
    const timer = setInterval(() => {
      const now = Date.now();
      const count = Atomics.load(counters, 0);
      if (count !== seen) {
        seen = count;
        since = now;
        return;
      }
      if (count === 0 ? now - started > STARTUP_MS : now - since > options.inputMs) {
        const bytes = Atomics.load(counters, 1);
        const input = Buffer.from(new Uint8Array(shared, 8, bytes)).toString('utf8');
        finish(() => resolve({ numRuns: count, failed: true, hung: { input, afterInputs: count - 1 } }));
      }
    }, 50);
    worker.once('message', (outcome: FuzzOutcome) => finish(() => resolve(outcome)));
    worker.once('error', (err) => finish(() => reject(err)));
  });
}
