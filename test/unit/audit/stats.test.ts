import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mcnemarExact, pairedBootstrap, seededRandom, seededUint32, seedFor } from '../../../src/audit/stats';
import { passAtK, passAtKCurve, rateOf, wilsonInterval } from '../../../src/contract';
import { xoshiro128ss } from '../../../src/audit/stats/prng';

function close(actual: number, expected: number, tol: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected} (tol ${tol})`);
}

/** Every k-subset of {0..n-1}. */
function* subsets(n: number, k: number, start = 0, prefix: number[] = []): Generator<number[]> {
  if (prefix.length === k) {
    yield prefix;
    return;
  }
  for (let i = start; i <= n - (k - prefix.length); i++) yield* subsets(n, k, i + 1, [...prefix, i]);
}

function binomial(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

test('pass@k equals brute-force enumeration over all k-subsets (n ≤ 10)', () => {
  for (let n = 1; n <= 10; n++) {
    for (let c = 0; c <= n; c++) {
      for (let k = 1; k <= n; k++) {
        // candidates 0..c-1 are the correct ones
        let hit = 0;
        let all = 0;
        for (const s of subsets(n, k)) {
          all++;
          if (s.some((i) => i < c)) hit++;
        }
        close(passAtK(n, c, k), hit / all, 1e-12, `pass@${k} n=${n} c=${c}`);
      }
    }
  }
});

test('pass@k stays finite and accurate at n = 200 (exact BigInt reference)', () => {
  const n = 200;
  const SCALE = 10n ** 30n;
  for (const c of [0, 1, 2, 7, 50, 100, 199, 200]) {
    for (const k of [1, 2, 10, 50, 100, 150, 200]) {
      const value = passAtK(n, c, k);
      assert.ok(Number.isFinite(value) && value >= 0 && value <= 1, `finite in [0,1] for c=${c} k=${k}`);
      // 1 - C(n-c, k) / C(n, k), evaluated exactly then scaled to 30 digits
      const ratio = n - c < k ? 0n : (binomial(n - c, k) * SCALE) / binomial(n, k);
      const expected = 1 - Number(ratio) / 1e30;
      close(value, expected, 1e-12, `pass@${k} n=200 c=${c}`);
    }
  }
  // Small values keep their relative precision (no cancellation in 1 - x).
  close(passAtK(200, 1, 1), 1 / 200, 1e-18, 'pass@1 with one correct of 200');
  close(passAtK(200, 1, 2), 2 / 200, 1e-18, 'pass@2 with one correct of 200');
  const curve = passAtKCurve(16, 3);
  assert.equal(curve.length, 16);
  for (let i = 1; i < curve.length; i++) assert.ok(curve[i] >= curve[i - 1], 'pass@k is non-decreasing in k');
  assert.equal(curve[15], 1);
  assert.throws(() => passAtK(5, 6, 1), RangeError);
  assert.throws(() => passAtK(5, 1, 0), RangeError);
  assert.throws(() => passAtK(5, 1, 6), RangeError);
});

test('Wilson intervals match textbook values', () => {
  // Wilson: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.959964.
  // 8/10: p = .8, z²/n = .384146, centre = .99207/1.384146 = .716738,
  //       half = 1.416009·sqrt(.016 + .0096037) = .226578 → [.4902, .9433].
  const cases: [number, number, number, number][] = [
    [8, 10, 0.4902, 0.9433],
    [0, 10, 0, 0.2775], // hi = 2·(z²/2n)/(1 + z²/n) = .38415/1.38415
    [10, 10, 0.7225, 1],
    // Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3:
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ];
  for (const [s, n, lo, hi] of cases) {
    const ci = wilsonInterval(s, n);
    close(ci.lo, lo, 5e-5, `${s}/${n} lo`);
    close(ci.hi, hi, 5e-5, `${s}/${n} hi`);
  }
  assert.deepEqual(wilsonInterval(0, 0), { lo: 0, hi: 1 });
  assert.equal(wilsonInterval(0, 10).lo, 0);
  assert.equal(wilsonInterval(10, 10).hi, 1);
  // symmetric: s/n mirrors (n-s)/n
  const a = wilsonInterval(3, 17);
  const b = wilsonInterval(14, 17);
  close(a.lo, 1 - b.hi, 1e-12, 'symmetry lo');
  close(a.hi, 1 - b.lo, 1e-12, 'symmetry hi');
  assert.deepEqual(rateOf(8, 10), { n: 10, successes: 8, rate: 0.8, ci: wilsonInterval(8, 10) });
  assert.throws(() => wilsonInterval(11, 10), RangeError);
  assert.throws(() => wilsonInterval(1.5, 10), RangeError);
});

test('exact McNemar matches textbook values', () => {
  // Two-sided: 2 · P(X ≤ min(b, c)), X ~ Binomial(b + c, 1/2), capped at 1.
  close(mcnemarExact(0, 5), 0.0625, 1e-15, 'b=0 c=5'); // 2 · 1/32
  close(mcnemarExact(2, 8), 0.109375, 1e-15, 'b=2 c=8'); // 2 · (1 + 10 + 45)/1024
  close(mcnemarExact(8, 2), 0.109375, 1e-15, 'symmetric');
  close(mcnemarExact(1, 9), 0.021484375, 1e-15, 'b=1 c=9'); // 2 · 11/1024
  assert.equal(mcnemarExact(0, 0), 1);
  assert.equal(mcnemarExact(5, 5), 1);
  assert.equal(mcnemarExact(3, 4), 1);
  // Exact BigInt reference at a size where 2^-n still fits a double.
  const [b, c] = [23, 41];
  let tail = 0n;
  for (let i = 0; i <= b; i++) tail += binomial(b + c, i);
  const expected = (2 * Number((tail * 10n ** 20n) / 2n ** 64n)) / 1e20;
  close(mcnemarExact(b, c), expected, 1e-15, 'b=23 c=41');
  // Large n: no underflow; close to the continuity-corrected normal approximation.
  const p = mcnemarExact(950, 1050);
  assert.ok(p > 0 && p < 1, `finite p ${p}`);
  const z = (Math.abs(950 - 1050) - 1) / Math.sqrt(2000);
  // two-sided normal tail via erfc approximation (Abramowitz–Stegun 7.1.26)
  const x = z / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  close(p, erfc, 2e-3, 'normal approximation');
  // Far tail at n = 1000 (2^-1000 ≈ 1e-301 is still a double): relative accuracy against BigInt.
  let farTail = 0n;
  for (let i = 0; i <= 400; i++) farTail += binomial(1000, i);
  const far = (2 * Number((farTail * 10n ** 40n) / 2n ** 1000n)) / 1e40;
  const pFar = mcnemarExact(400, 600);
  assert.ok(Math.abs(pFar - far) / far < 1e-10, `far tail ${pFar} vs ${far}`);
  assert.throws(() => mcnemarExact(-1, 2), RangeError);
});

test('xoshiro128** matches the reference sequence', () => {
  // Reference implementation (Blackman & Vigna) seeded with state {1, 2, 3, 4}.
  const next = xoshiro128ss(new Uint32Array([1, 2, 3, 4]));
  assert.deepEqual(
    Array.from({ length: 6 }, () => next()),
    [11520, 0, 5927040, 70819200, 2031721883, 1637235492],
  );
});

test('keyed PRNG: reproducible, key-sensitive, uniform', () => {
  const draw = (r: () => number, n: number) => Array.from({ length: n }, () => r());
  assert.deepEqual(draw(seededRandom(7, 'q1', 'sample', 3), 5), draw(seededRandom(7, 'q1', 'sample', 3), 5));
  assert.notDeepEqual(draw(seededRandom(7, 'q1', 'sample', 3), 5), draw(seededRandom(7, 'q1', 'sample', 4), 5));
  assert.notDeepEqual(draw(seededRandom(7, 'q1', 'sample'), 5), draw(seededRandom(8, 'q1', 'sample'), 5));
  assert.notDeepEqual(draw(seededRandom(7, 'a,b'), 5), draw(seededRandom(7, 'a', 'b'), 5));
  assert.notDeepEqual(draw(seededUint32(7, 'q1'), 3), draw(seededUint32(7, 'q2'), 3));

  const s = seedFor(7, 'q1', 'sample', 3);
  assert.equal(s, seedFor(7, 'q1', 'sample', 3));
  assert.notEqual(s, seedFor(7, 'q1', 'sample', 4));
  assert.ok(Number.isInteger(s) && s >= 0 && s < 2 ** 32);

  // Pinned values: a change here silently changes every recorded run's draws, so it must be deliberate.
  // seedFor = first little-endian uint32 of sha256('["seed",7,"q1","sample",3]').
  assert.equal(seedFor(7, 'q1', 'sample', 3), 3576161322);
  assert.equal(seededUint32(1, 'q1', 'routes', 0)(), 829068703);
  assert.equal(seededRandom(1, 'q1', 'routes', 0)(), 0.1930325939094979);

  // Uniformity: chi-square over 20 buckets, 100,000 draws (df 19: p = 0.001 at 43.8).
  const r = seededRandom(1, 'uniformity');
  const buckets = new Array<number>(20).fill(0);
  const N = 100000;
  let min = 1;
  let max = 0;
  for (let i = 0; i < N; i++) {
    const u = r();
    min = Math.min(min, u);
    max = Math.max(max, u);
    buckets[Math.floor(u * 20)]++;
  }
  assert.ok(min >= 0 && max < 1);
  const chi2 = buckets.reduce((acc, o) => acc + (o - N / 20) ** 2 / (N / 20), 0);
  assert.ok(chi2 < 43.8, `chi-square ${chi2}`);
});

test('paired bootstrap: reproducible by seed, correct delta, sane interval', () => {
  const a = [1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1];
  const b = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1];
  const first = pairedBootstrap(a, b, { seed: 42 });
  assert.deepEqual(pairedBootstrap(a, b, { seed: 42 }), first);
  // Continuous scores (e.g. per-question pass@k) make the seed visible in the interval.
  const r = seededRandom(5, 'scores');
  const x = Array.from({ length: 30 }, () => r());
  const y = x.map((v) => v + r() - 0.4);
  const s1 = pairedBootstrap(x, y, { seed: 1, resamples: 2000 });
  assert.deepEqual(pairedBootstrap(x, y, { seed: 1, resamples: 2000 }), s1);
  assert.notDeepEqual(pairedBootstrap(x, y, { seed: 2, resamples: 2000 }), s1);
  close(first.delta, (13 - 7) / 20, 1e-12, 'delta = mean(b) - mean(a)');
  assert.ok(first.lo <= first.delta && first.delta <= first.hi);
  // All discordant pairs favour b: the resampled delta can never be negative.
  assert.ok(first.lo >= 0);
  // Identical arms: no difference, zero-width interval.
  assert.deepEqual(pairedBootstrap(a, a, { seed: 1 }), { delta: 0, lo: 0, hi: 0 });
  const narrow = pairedBootstrap(a, b, { seed: 42, confidence: 0.5 });
  assert.ok(narrow.hi - narrow.lo < first.hi - first.lo, 'a 50% interval is narrower than a 95% one');
  assert.throws(() => pairedBootstrap([1], [1, 0], { seed: 1 }), RangeError);
  const empty = pairedBootstrap([], [], { seed: 1 });
  assert.ok(Number.isNaN(empty.delta) && Number.isNaN(empty.lo));
});

test('paired bootstrap agrees with the normal-theory interval on a large sample', () => {
  const r = seededRandom(3, 'large');
  const n = 2000;
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    a.push(r() < 0.5 ? 1 : 0);
    b.push(r() < 0.6 ? 1 : 0);
  }
  const d = a.map((x, i) => b[i] - x);
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = 1.959964 * (sd / Math.sqrt(n));
  const boot = pairedBootstrap(a, b, { seed: 9, resamples: 4000 });
  close(boot.lo, mean - half, 0.006, 'lo');
  close(boot.hi, mean + half, 0.006, 'hi');
});

test('paired bootstrap covers the true delta about 95% of the time', () => {
  // 200 simulated audits of 60 paired questions, true realized rates 0.5 (a) and 0.65 (b).
  const truth = 0.15;
  const r = seededRandom(11, 'coverage');
  let covered = 0;
  const trials = 200;
  for (let t = 0; t < trials; t++) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 60; i++) {
      a.push(r() < 0.5 ? 1 : 0);
      b.push(r() < 0.65 ? 1 : 0);
    }
    const ci = pairedBootstrap(a, b, { seed: t, resamples: 1000 });
    if (ci.lo <= truth && truth <= ci.hi) covered++;
  }
  const coverage = covered / trials;
  // Binomial sd at 0.95 over 200 trials is 0.015; the percentile bootstrap runs slightly liberal at n = 60.
  assert.ok(coverage >= 0.88 && coverage <= 0.99, `coverage ${coverage}`);
});
