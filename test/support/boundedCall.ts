/**
 * Calls one exported function of the compiled sources in a worker thread and gives up after a
 * time limit, so that a regression test for a hang fails (naming the limit) instead of hanging
 * the whole test run: a synchronous endless loop cannot be interrupted on the thread that runs
 * it, but a worker can be terminated from outside.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

/** What the call returned, or the error it threw (its class name and message). */
export type BoundedResult = { value: unknown } | { error: { name: string; message: string } };

// Runs in the worker: plain JavaScript, since it is evaluated as is.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const value = require(workerData.module)[workerData.fn](...workerData.args);
  parentPort.postMessage({ value });
} catch (err) {
  parentPort.postMessage({ error: { name: String(err && err.name), message: String(err && err.message) } });
}
`;

/**
 * `module` is a path under src without extension ("audit/answers/boxed"); `args` and the result
 * must be structured-cloneable. Rejects when the call has not returned after `ms`.
 */
export function callWithin(ms: number, module: string, fn: string, ...args: unknown[]): Promise<BoundedResult> {
  // Compiled, this file is out/test/support/boundedCall.js and the sources are out/src.
  const compiled = path.resolve(__dirname, '..', '..', 'src', module);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module: compiled, fn, args } });
  return new Promise<BoundedResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`${module}.${fn} did not return within ${ms} ms (an endless loop?)`));
    }, ms);
    worker.once('message', (result: BoundedResult) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
