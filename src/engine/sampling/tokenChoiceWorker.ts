/**
 * The worker thread of TokenChoicePool: chooses tokens for the rows it is sent, with the same
 * function the main thread uses, so a row's token does not depend on which thread chose it.
 * Runs as its own file (dist/tokenChoiceWorker.js, out/src/engine/…).
 */
import { parentPort } from 'node:worker_threads';
import { type ChoiceJob, type ChoiceReply, chooseRows } from './tokenChoiceRows';

parentPort?.on('message', (job: ChoiceJob) => {
  let reply: ChoiceReply;
  try {
    const logits = new Float32Array(job.buffer, 0, job.rows.length * job.vocab);
    reply = { id: job.id, tokens: chooseRows(logits, job.vocab, job.rows) };
  } catch (err) {
    reply = { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
});
