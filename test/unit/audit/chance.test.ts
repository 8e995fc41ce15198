import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guessReachProbability, poissonBinomialUpperTail } from '../../../src/audit/stats/chance';
import { chanceLevel } from '../../../src/audit/results/chanceLevel';
import { chanceText } from '../../../src/audit/report/summaryText';
import { wilsonInterval } from '../../../src/contract';

/** Exact P(X ≥ 1), X ~ Binomial(B, 1/k), as the binomial sum Σ_{j≥1} C(B,j)(k-1)^(B-j) / k^B in BigInt. */
function exactReach(k: number, B: number): number {
  let hits = 0n;
  let c = 1n; // C(B, j)
  for (let j = 0; j <= B; j++) {
    if (j > 0) hits += c * BigInt(k - 1) ** BigInt(B - j);
    c = (c * BigInt(B - j)) / BigInt(j + 1);
  }
  const total = BigInt(k) ** BigInt(B);
  // 18 significant digits of the exact ratio, then to a double.
  const scale = 10n ** 18n;
  return Number((hits * scale) / total) / 1e18;
}

/** Exact P(X ≥ m) for independent Bernoulli(p_i) by enumerating all 2^n outcomes. */
function enumerateUpperTail(ps: number[], m: number): number {
  let total = 0;
  for (let mask = 0; mask < 1 << ps.length; mask++) {
    let prob = 1;
    let count = 0;
    ps.forEach((p, i) => {
      if (mask & (1 << i)) {
        prob *= p;
        count++;
      } else prob *= 1 - p;
    });
    if (count >= m) total += prob;
  }
  return total;
}

test('chance reach 1 - (1 - 1/k)^B equals the exact binomial P(at least one right guess)', () => {
  for (const k of [2, 3, 4, 5, 10]) {
    for (const B of [1, 2, 3, 4, 8, 16, 32, 64]) {
      const got = guessReachProbability(k, B);
      const want = exactReach(k, B);
      assert.ok(Math.abs(got - want) < 1e-15, `k=${k} B=${B}: ${got} vs exact ${want}`);
    }
  }
  // The example: 4 options, 16 attempts ≈ 99%.
  assert.ok(Math.abs(guessReachProbability(4, 16) - (1 - 0.75 ** 16)) < 1e-15);
  assert.ok(guessReachProbability(4, 16) > 0.98 && guessReachProbability(4, 16) < 0.991);
  assert.equal(guessReachProbability(4, 1), 0.25);
  assert.equal(guessReachProbability(4, 0), 0);
  assert.throws(() => guessReachProbability(0, 3), /options must be a positive integer/);
  assert.throws(() => guessReachProbability(4, 1.5), /attempts must be a non-negative integer/);
});

test('Poisson-binomial upper tail matches enumeration, and the binomial when all p are equal', () => {
  const ps = [0.25, 0.9, 0.5, 0.2, 0.99, 0.1, 0.6, 0.33, 0.75, 0.05];
  for (let m = 0; m <= ps.length + 1; m++) {
    const got = poissonBinomialUpperTail(ps, m);
    const want = enumerateUpperTail(ps, m);
    assert.ok(Math.abs(got - want) < 1e-13, `m=${m}: ${got} vs ${want}`);
  }
  // Binomial(20, 1/4): P(X ≥ 10) = 0.01386… (exact sum).
  let want = 0;
  const n = 20;
  let c = 1;
  for (let j = 0; j <= n; j++) {
    if (j >= 10) want += c * 0.25 ** j * 0.75 ** (n - j);
    c = (c * (n - j)) / (j + 1);
  }
  assert.ok(Math.abs(poissonBinomialUpperTail(new Array(20).fill(0.25), 10) - want) < 1e-14);
  assert.throws(() => poissonBinomialUpperTail([1.2], 1), /probability 0 is 1.2/);
});

test('chance level: mean per-question level, beyond-chance share through the Wilson interval, plain verdict', () => {
  // 4-option questions with 16 attempts: level 1 - 0.75^16 ≈ 0.99. 96 of 100 reached is not above chance.
  const qs = Array.from({ length: 100 }, (_, i) => ({ options: 4, attempts: 16, reached: i < 96 }));
  const c = chanceLevel(qs);
  const level = 1 - 0.75 ** 16;
  assert.ok(Math.abs(c.level - level) < 1e-15);
  assert.ok(Math.abs(c.expected - 100 * level) < 1e-9);
  assert.equal(c.aboveChance, false);
  const w = wilsonInterval(96, 100);
  // Below chance the share (0.96 − 0.99) / 0.01 ≈ −300% is unbounded: not given; the difference is.
  assert.equal(c.beyondChance, null);
  assert.ok(c.overChance);
  assert.ok(Math.abs(c.overChance.estimate - (0.96 - level)) < 1e-12);
  assert.ok(Math.abs(c.overChance.lo - (w.lo - level)) < 1e-12);
  assert.ok(Math.abs(c.overChance.hi - (w.hi - level)) < 1e-12);
  assert.doesNotMatch(chanceText(c), /beyond chance -?\d|%\s*\[-\d{3}/);
  assert.match(chanceText(c), /observed − chance -3\.0 pts \[-\d+\.\d, -?\d\.\d\] \(Wilson, shifted\)/);
  assert.ok(c.pValue > 0.5, `96/100 at a 99% chance level is no evidence: p = ${c.pValue}`);

  // One attempt on 4 options: chance 25%; 60 of 100 right is clearly above.
  const one = chanceLevel(Array.from({ length: 100 }, (_, i) => ({ options: 4, attempts: 1, reached: i < 60 })));
  assert.equal(one.level, 0.25);
  assert.equal(one.aboveChance, true);
  assert.ok(one.pValue < 1e-10);
  // Above chance the share is bounded and given: (0.6 − 0.25) / 0.75, through the Wilson interval.
  const w60 = wilsonInterval(60, 100);
  assert.ok(one.beyondChance && Math.abs(one.beyondChance.estimate - 0.35 / 0.75) < 1e-12 && Math.abs(one.beyondChance.lo - (w60.lo - 0.25) / 0.75) < 1e-12);
  assert.ok(one.beyondChance.lo >= 0 && one.beyondChance.hi <= 1);

  // Mixed option counts: the level is the mean of the per-question levels.
  const mixed = chanceLevel([
    { options: 3, attempts: 2, reached: true },
    { options: 5, attempts: 4, reached: false },
  ]);
  assert.ok(Math.abs(mixed.level - ((1 - (2 / 3) ** 2) + (1 - 0.8 ** 4)) / 2) < 1e-15);
  assert.deepEqual(mixed.options, { min: 3, max: 5 });
  assert.deepEqual(mixed.attempts, { min: 2, max: 4 });
});
