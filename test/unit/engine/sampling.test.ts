/** The per-sequence PRNG and the token choice rules (greedy, temperature, nucleus). */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { Xoshiro128, argmax, chooseToken } from '../../../src/engine/sampling/sampling';
import { byProbability } from '../../../src/engine/sampling/nucleusOrder';

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
});

/**
 * The token distribution chooseToken draws from, computed directly from the definitions:
 * p_i ∝ exp(logit_i / T); nucleus = the most likely tokens, in order of probability, up to and
 * including the first at which their mass reaches topP; renormalized over the nucleus.
 */
function referenceDistribution(logits: readonly number[], temperature: number, topP: number): number[] {
  const scaled = logits.map((l) => l / temperature);
  const top = Math.max(...scaled);
  const w = scaled.map((s) => Math.exp(s - top));
  const total = w.reduce((a, b) => a + b, 0);
  const p = w.map((x) => x / total);
  const byProbability = p.map((_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
  const kept = new Set<number>();
  let mass = 0;
  for (const i of byProbability) {
    if (mass >= topP) break;
    kept.add(i);
    mass += p[i];
  }
  return p.map((x, i) => (kept.has(i) ? x / mass : 0));
}

/** A fixed uniform draw, so the token chosen for every u on a fine grid can be read off. */
const fixed = (u: number) => ({ nextFloat: () => u });

describe('temperature scaling and top-p filtering against a direct computation', () => {
  // Logits with a spread of gaps (no exact ties), as a small vocabulary.
  const logits = [2.1, -0.4, 0.9, 3.3, -2.0, 1.7, 0.0, 2.6, -1.1, 0.45];
  const grid = 1 << 15;
  for (const temperature of [0.25, 0.7, 1, 1.8]) {
    for (const topP of [0.1, 0.5, 0.8, 0.95, 1]) {
      it(`T = ${temperature}, top-p = ${topP}: each token's share of [0, 1) is its probability`, () => {
        const want = referenceDistribution(logits, temperature, topP);
        const counts = new Array<number>(logits.length).fill(0);
        // chooseToken maps u to tokens by an inverse CDF, so each token owns one interval of u and
        // the grid count of a token is within 1 of grid × its probability.
        for (let k = 0; k < grid; k++) counts[chooseToken(logits, { temperature, topP, seed: 0 }, fixed((k + 0.5) / grid))]++;
        counts.forEach((c, i) => {
          if (want[i] === 0) assert.equal(c, 0, `token ${i} is outside the nucleus but was chosen ${c} times`);
          else assert.ok(Math.abs(c / grid - want[i]) <= 1.5 / grid, `token ${i}: ${c / grid} vs ${want[i]}`);
        });
      });
    }
  }

  it('the same seed gives the same tokens; another seed other tokens', () => {
    const draw = (seed: number) => {
      const rng = new Xoshiro128(seed);
      return Array.from({ length: 200 }, () => chooseToken(logits, { temperature: 0.8, topP: 0.9, seed }, rng));
    };
    assert.deepEqual(draw(17), draw(17));
    assert.notDeepEqual(draw(17), draw(18));
  });
});

/** The nucleus as chooseToken first computed it: every token with p > 0 sorted, then walked (per u). */
function nucleusBySortingAll(logits: Float32Array, temperature: number, topP: number): (u: number) => number {
  let max = -Infinity;
  for (const x of logits) if (x > max) max = x;
  const p = Float64Array.from(logits, (x) => Math.exp((x - max) / temperature));
  let sum = 0;
  for (const x of p) sum += x;
  const order = Array.from({ length: p.length }, (_, i) => i).filter((i) => p[i] > 0);
  order.sort((x, y) => p[y] - p[x] || x - y);
  const limit = topP * sum;
  let kept = 0;
  let mass = 0;
  while (kept < order.length) {
    mass += p[order[kept++]];
    if (mass >= limit) break;
  }
  return (u) => {
    let target = u * mass;
    for (let j = 0; j < kept; j++) {
      target -= p[order[j]];
      if (target < 0) return order[j];
    }
    return order[kept - 1];
  };
}

describe('top-p over a large vocabulary', () => {
  it('chooses the token that sorting every token chooses, for every draw (peaked, flat, tied logits)', () => {
    const rng = new Xoshiro128(77);
    let checked = 0;
    // A real vocabulary's size only peaked (as a model's rows are): a flat 152k row sorts it all.
    const cases = [7, 1000, 40000].flatMap((vocab) => (['peaked', 'flat', 'tied'] as const).map((shape) => [vocab, shape] as const));
    for (const [vocab, shape] of [...cases, [151936, 'peaked'] as const]) {
      const logits = Float32Array.from({ length: vocab }, () => {
        const x = (rng.nextFloat() - 0.5) * (shape === 'flat' ? 2 : 24);
        return shape === 'tied' ? Math.round(x * 2) / 2 : x;
      });
      if (shape === 'peaked') for (let k = 0; k < 5; k++) logits[rng.nextUint32() % vocab] += 12 + k;
      for (const temperature of [0.3, 1, 2]) {
        for (const topP of [0.1, 0.9, 0.999999]) {
          const reference = nucleusBySortingAll(logits, temperature, topP);
          for (const u of [0, 0.25, 0.5, 0.999, rng.nextFloat()]) {
            const decoding = { temperature, topP, seed: 0 };
            const want = reference(u);
            assert.equal(chooseToken(logits, decoding, fixed(u)), want, `vocab ${vocab} ${shape} T ${temperature} top-p ${topP} u ${u}`);
            checked++;
          }
        }
      }
    }
    assert.equal(checked, 10 * 3 * 3 * 5);
  });
});

describe('nucleus order', () => {
  it('sorts large and small sets as the comparison sort does: p descending, ties by lower id', () => {
    const rng = new Xoshiro128(5);
    for (const size of [10, 2047, 2048, 50000]) {
      // Few distinct values among many: most tokens tie with others; some p are subnormal or 1.
      const values = [1, 0.5, 1e-310, 2 ** -40, ...Array.from({ length: 20 }, () => rng.nextFloat())];
      const p = Float64Array.from({ length: size }, () => values[rng.nextUint32() % values.length]);
      const tokens = Uint32Array.from({ length: size }, (_, i) => i);
      const want = Array.from(tokens).sort((x, y) => p[y] - p[x] || x - y);
      assert.deepEqual(Array.from(byProbability(p, tokens.slice())), want, `size ${size}`);
    }
  });
});
