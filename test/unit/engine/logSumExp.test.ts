/**
 * The log-probability normalizer (logSumExp.ts) against the float64 definition: within 1e-6 on
 * 152k-logit rows of every spread, exact on easy cases, and a row's value never depends on the
 * rows computed beside it (bit for bit), as the engine's batch invariance needs.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { LogSumExp, logSumExpFromSoftmax } from '../../../src/engine/sampling/logSumExp';
import { logSoftmaxAt } from '../../support/logSoftmax';
import { SeededRandom } from '../../support/seededRandom';

const options = { intraOpNumThreads: 2, interOpNumThreads: 1, enableCpuMemArena: false };

/** A row of logits as a head gives them: a spread of values, sometimes one or a few far ahead. */
function row(rng: SeededRandom, vocab: number, spread: number, peaks: number): Float32Array {
  const v = Float32Array.from({ length: vocab }, () => rng.normal() * spread);
  for (let p = 0; p < peaks; p++) v[Math.floor(rng.uniform() * vocab)] += 4 * spread + 10;
  return v;
}

describe('logSumExp: the normalizer of log-probabilities', () => {
  let lse: LogSumExp;
  before(async () => { lse = await LogSumExp.create(options); });
  after(async () => { await lse.release(); });

  it('recovers log Σ exp from a softmax and the largest logit', () => {
    const logits = [1, 2, 3];
    const z = Math.exp(1) + Math.exp(2) + Math.exp(3);
    const probs = Float32Array.from(logits, (x) => Math.exp(x) / z);
    assert.ok(Math.abs(logSumExpFromSoftmax(probs, 3) - Math.log(z)) < 1e-6);
  });

  it('gives each token\'s log-probability within 1e-6 of the float64 definition', async () => {
    const rng = new SeededRandom(11);
    for (const vocab of [97, 5000, 151936]) {
      for (const [spread, peaks] of [[0.01, 0], [1, 0], [3, 1], [8, 3], [30, 1]]) {
        const logits = row(rng, vocab, spread, peaks);
        const [value] = await lse.rows(logits, vocab);
        let top = 0;
        for (let j = 1; j < vocab; j++) if (logits[j] > logits[top]) top = j;
        for (const token of [top, 0, vocab - 1, Math.floor(vocab / 3)]) {
          const want = logSoftmaxAt(logits, token);
          const got = logits[token] - value;
          assert.ok(Math.abs(got - want) < 1e-6, `vocab ${vocab} spread ${spread} token ${token}: ${got} vs ${want}`);
        }
      }
    }
  });

  it('is log(V) above the logit when all logits are equal', async () => {
    const [value] = await lse.rows(new Float32Array(151936).fill(2.5), 151936);
    assert.ok(Math.abs(value - (2.5 + Math.log(151936))) < 1e-6, String(value));
  });

  it('gives a row the same bits alone and among other rows', async () => {
    const rng = new SeededRandom(12);
    const vocab = 151936;
    const rows = Array.from({ length: 12 }, (_, i) => row(rng, vocab, 1 + (i % 5) * 3, i % 3));
    const together = new Float32Array(rows.length * vocab);
    rows.forEach((r, i) => together.set(r, i * vocab));
    const batch = await lse.rows(together, vocab);
    for (let i = 0; i < rows.length; i++) {
      const [alone] = await lse.rows(rows[i], vocab);
      assert.ok(Object.is(alone, batch[i]), `row ${i}: ${alone} vs ${batch[i]}`);
    }
  });
});
