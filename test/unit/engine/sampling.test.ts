/** The per-sequence PRNG and the token choice rules (greedy, temperature, nucleus). */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { Xoshiro128, argmax, chooseToken, logProbOf } from '../../../src/engine/sampling';

describe('sampling', () => {
  it('xoshiro128** is deterministic per seed, differs across seeds, and is uniform in [0,1)', () => {
    const a = new Xoshiro128(5);
    const b = new Xoshiro128(5);
    const c = new Xoshiro128(6);
    const xs = Array.from({ length: 1000 }, () => a.nextFloat());
    assert.deepEqual(xs, Array.from({ length: 1000 }, () => b.nextFloat()));
    assert.notDeepEqual(xs.slice(0, 10), Array.from({ length: 10 }, () => c.nextFloat()));
    assert.ok(xs.every((x) => x >= 0 && x < 1));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`);
  });

  it('greedy is argmax with ties to the lower id and draws nothing', () => {
    assert.equal(argmax([1, 3, 3, 2]), 1);
    const rng = new Xoshiro128(1);
    const before = new Xoshiro128(1).nextUint32();
    assert.equal(chooseToken([0, 5, 5], { temperature: 0, topP: 1, seed: 1 }, rng), 1);
    assert.equal(rng.nextUint32(), before);
  });

  it('temperature sampling follows softmax(logits / T)', () => {
    const logits = [Math.log(1), Math.log(2), Math.log(7)];
    const rng = new Xoshiro128(99);
    const counts = [0, 0, 0];
    const n = 20000;
    for (let i = 0; i < n; i++) counts[chooseToken(logits, { temperature: 1, topP: 1, seed: 0 }, rng)]++;
    [0.1, 0.2, 0.7].forEach((p, i) => assert.ok(Math.abs(counts[i] / n - p) < 0.015, `token ${i}: ${counts[i] / n}`));
  });

  it('top-p keeps the smallest most-likely set reaching p', () => {
    const logits = [Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)];
    const rng = new Xoshiro128(3);
    const counts = [0, 0, 0, 0];
    const n = 20000;
    for (let i = 0; i < n; i++) counts[chooseToken(logits, { temperature: 1, topP: 0.75, seed: 0 }, rng)]++;
    assert.equal(counts[2] + counts[3], 0);
    assert.ok(Math.abs(counts[0] / n - 0.625) < 0.015, `token 0: ${counts[0] / n}`);
  });

  it('log-prob is the log-softmax of the raw logits', () => {
    const lp = logProbOf([1, 2, 3], 2);
    assert.ok(Math.abs(lp - (3 - Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3)))) < 1e-12);
  });
});
