/**
 * Chooses the next tokens of a decode step on two threads: the leading rows in a worker thread,
 * the rest on this one, at the same time, split so both finish together (see workerShare).
 *
 * Why: a sampled token needs the exponential of every logit (1.6–2.5 ms per row at a 152k
 * vocabulary in V8), and while the rows are chosen onnxruntime waits for the next step's tokens,
 * so one of two cores sat idle; at 16 rows that was ~40 ms of every ~150 ms step (measured: 16
 * sequences, Qwen2.5-0.5B shape). Results are the same whichever thread chose a row (the same
 * function; the sampled rows' uniform draws come from their PRNGs beforehand, see
 * tokenChoiceRows.ts). Without a worker file, with one thread, or after the worker failed, every
 * row is chosen here. Log-probabilities are not chosen here: see logSumExp.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { type ChoiceReply, type ChoiceRow, chooseRows, workerShare } from './tokenChoiceRows';

/** Fewer rows than this are chosen here: a worker round trip costs more than one row. */
const MIN_ROWS_TO_SHARE = 2;

export class TokenChoicePool {
  private worker: Worker | null = null;
  private broken = false;
  private shared = new Float32Array(new SharedArrayBuffer(0));
  private nextId = 0;
  /** The rows in the worker: their promise, and how to choose them here if the worker fails. */
  private pending: { id: number; resolve(tokens: number[]): void; reject(e: Error): void; here(): number[] } | null = null;

  /** `threads`: the cores this model may use; a worker only when there are two or more. */
  constructor(private readonly threads: number, private readonly workerFile = path.join(__dirname, 'tokenChoiceWorker.js')) {}

  /** Tokens for rows i of `logits` ([rows.length, vocab]). */
  async choose(logits: Float32Array, vocab: number, rows: readonly ChoiceRow[]): Promise<number[]> {
    const theirs = rows.length >= MIN_ROWS_TO_SHARE ? workerShare(rows) : 0;
    const worker = theirs > 0 ? this.ensureWorker() : null;
    if (!worker) return chooseRows(logits, vocab, rows);
    if (this.shared.length < theirs * vocab) this.shared = new Float32Array(new SharedArrayBuffer(theirs * vocab * 4));
    this.shared.set(logits.subarray(0, theirs * vocab));
    const id = this.nextId++;
    const sent = rows.slice(0, theirs);
    const shared = this.shared;
    const reply = new Promise<number[]>((resolve, reject) => {
      this.pending = { id, resolve, reject, here: () => chooseRows(shared, vocab, sent) };
    });
    worker.ref(); // a step waiting for its rows keeps the process alive
    worker.postMessage({ id, buffer: shared.buffer as SharedArrayBuffer, vocab, rows: sent });
    const ours = chooseRows(logits.subarray(theirs * vocab), vocab, rows.slice(theirs));
    return [...(await reply), ...ours];
  }

  /** Whether steps are shared with a worker thread now (the tests check both ways). */
  get sharing(): boolean {
    return this.worker !== null;
  }

  dispose(): void {
    this.pending?.reject(new Error('the model was disposed'));
    this.pending = null;
    void this.worker?.terminate();
    this.worker = null;
  }

  private ensureWorker(): Worker | null {
    if (this.worker || this.broken || this.threads < 2) return this.worker;
    if (!fs.existsSync(this.workerFile)) {
      this.broken = true;
      return null;
    }
    const worker = new Worker(this.workerFile);
    worker.unref(); // an idle pool never keeps the process alive
    const settle = (p: NonNullable<TokenChoicePool['pending']>, choices: () => number[]) => {
      try {
        p.resolve(choices());
      } catch (err) {
        p.reject(err instanceof Error ? err : new Error(String(err)));
      }
    };
    worker.on('message', (reply: ChoiceReply) => {
      const p = this.pending;
      if (!p || p.id !== reply.id) return;
      this.pending = null;
      worker.unref();
      // A row the worker could not choose is chosen here, where the same error has a stack.
      settle(p, 'error' in reply ? p.here : () => reply.tokens);
    });
    const fail = () => {
      // The rows in flight and every later row are chosen on this thread.
      this.broken = true;
      this.worker = null;
      const p = this.pending;
      this.pending = null;
      if (p) settle(p, p.here);
    };
    worker.on('error', fail);
    worker.on('exit', () => { if (this.worker === worker) fail(); });
    this.worker = worker;
    return worker;
  }
}
