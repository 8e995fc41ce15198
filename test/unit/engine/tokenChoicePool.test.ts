/**
 * A decode step's tokens chosen on two threads equal those chosen on one, row for row (greedy,
 * sampled at T = 1, other temperatures, nucleus), whether the worker runs, is missing, or dies in
 * the middle of a step.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { TokenChoicePool } from '../../../src/engine/sampling/tokenChoicePool';
import { type ChoiceRow, chooseRows, workerShare } from '../../../src/engine/sampling/tokenChoiceRows';
import { Xoshiro128 } from '../../../src/engine/sampling/sampling';

const workerFile = path.join(__dirname, '../../../src/engine/sampling/tokenChoiceWorker.js');

function step(seed: number, rows: number, vocab: number): { logits: Float32Array; rows: ChoiceRow[] } {
  const rng = new Xoshiro128(seed);
  const logits = Float32Array.from({ length: rows * vocab }, () => (rng.nextFloat() - 0.5) * 20);
  const decodings = [{ temperature: 0, topP: 1 }, { temperature: 1, topP: 1 }, { temperature: 0.7, topP: 1 }, { temperature: 1, topP: 0.9 }];
  return {
    logits,
    rows: Array.from({ length: rows }, (_, i) => {
      const decoding = decodings[i % decodings.length];
      return { decoding, u: decoding.temperature > 0 ? rng.nextFloat() : null };
    }),
  };
}

describe('token choice on two threads', () => {
  it('gives every row the token the main thread alone gives', async () => {
    const pool = new TokenChoicePool(2, workerFile);
    try {
      for (const [seed, rows, vocab] of [[1, 16, 5000], [2, 3, 151936], [3, 7, 97], [4, 1, 5000]] as const) {
        const s = step(seed, rows, vocab);
        assert.deepEqual(await pool.choose(s.logits, vocab, s.rows), chooseRows(s.logits, vocab, s.rows));
      }
      assert.ok(pool.sharing, 'the worker took part');
    } finally {
      pool.dispose();
    }
  });

  it('chooses everything on this thread with one core, or without the worker file', async () => {
    for (const pool of [new TokenChoicePool(1, workerFile), new TokenChoicePool(2, path.join(__dirname, 'no-such-worker.js'))]) {
      const s = step(5, 8, 1000);
      assert.deepEqual(await pool.choose(s.logits, 1000, s.rows), chooseRows(s.logits, 1000, s.rows));
      assert.equal(pool.sharing, false);
      pool.dispose();
    }
  });

  it('finishes a step whose worker dies, and the steps after it, on this thread', async () => {
    const pool = new TokenChoicePool(2, workerFile);
    const s = step(6, 8, 20000);
    await pool.choose(s.logits, 20000, s.rows);
    // Terminate the worker from outside, as a crash would, while a step is in flight.
    const worker = (pool as unknown as { worker: { terminate(): Promise<number> } }).worker;
    const inFlight = pool.choose(s.logits, 20000, s.rows);
    void worker.terminate();
    assert.deepEqual(await inFlight, chooseRows(s.logits, 20000, s.rows));
    assert.deepEqual(await pool.choose(s.logits, 20000, s.rows), chooseRows(s.logits, 20000, s.rows));
    assert.equal(pool.sharing, false);
    pool.dispose();
  });
});

describe('splitting a step between the threads', () => {
  const greedy: ChoiceRow = { decoding: { temperature: 0, topP: 1 }, u: null };
  const sampled: ChoiceRow = { decoding: { temperature: 1, topP: 1 }, u: 0.5 };
  const nucleus: ChoiceRow = { decoding: { temperature: 0.7, topP: 0.9 }, u: 0.5 };
  const rows = (...parts: [ChoiceRow, number][]) => parts.flatMap(([row, n]) => Array.from({ length: n }, () => row));

  it('gives the worker all-greedy rows and this thread the log-sum-exp', () => {
    assert.equal(workerShare(rows([greedy, 20])), 20);
  });

  it('balances by cost, not by count: a draw costs about 13 argmaxes, a top-p draw 40', () => {
    // 16 argmaxes then 4 draws: the worker takes the argmaxes and two draws (16 + 26 vs 26 + 20).
    assert.equal(workerShare(rows([greedy, 16], [sampled, 4])), 18);
    // Draws first: three of them (39) against one draw, 16 argmaxes and the log-sum-exp (49).
    assert.equal(workerShare(rows([sampled, 4], [greedy, 16])), 3);
    assert.equal(workerShare(rows([nucleus, 2], [greedy, 2])), 1);
  });
});

