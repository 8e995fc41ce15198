/**
 * The time left while an audit runs (timeLeft.ts): measured on the run's own speed and its finished
 * questions' tokens, a range that narrows as questions finish, with its basis in words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_TIMED_MS, recordTokens, timeLeft } from '../../../src/audit/runner/timeLeft';

test('nothing claimed before the speed is timed, nor before a question or a warm-up gives the work per question', () => {
  assert.equal(timeLeft({ questions: 10, finished: [], returnedTokens: 500, elapsedMs: MIN_TIMED_MS - 1 }), undefined);
  assert.equal(timeLeft({ questions: 10, finished: [], returnedTokens: 0, elapsedMs: 60_000 }), undefined);
  assert.equal(timeLeft({ questions: 10, finished: [], returnedTokens: 500, elapsedMs: 10_000 }), undefined);
});

test('before questions finish: the warm-up range per question at the run\'s own measured speed, tokens in flight not counted twice', () => {
  // 10 questions of 100–300 tokens; 500 tokens back in 10 s (50 tokens/s), all of them in flight.
  const t = timeLeft({ questions: 10, finished: [], returnedTokens: 500, elapsedMs: 10_000, planned: { least: 100, most: 300 } })!;
  assert.equal(t.leastMs, ((1000 - 500) / 50) * 1000);
  assert.equal(t.mostMs, ((3000 - 500) / 50) * 1000);
  assert.match(t.basis, /warm-up's 100–300 tokens per question, 50\.0 tokens\/s so far/);
});

test('from finished questions: the mean with a range that narrows as more finish; exact work gives an exact time', () => {
  const exact = timeLeft({ questions: 10, finished: [200, 200, 200, 200], returnedTokens: 1000, elapsedMs: 10_000 })!;
  // 6 questions left × 200 = 1,200 tokens, 200 of them already spent in flight, at 100 tokens/s: 10 s.
  assert.equal(exact.leastMs, 10_000);
  assert.equal(exact.mostMs, 10_000);
  assert.match(exact.basis, /4 finished questions at 200 tokens each, 100\.0 tokens\/s so far/);
  const spread = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 100 : 300));
  const width = (n: number) => {
    const t = timeLeft({ questions: 100, finished: spread(n), returnedTokens: 200 * n, elapsedMs: 10_000 })!;
    assert.ok(t.leastMs <= t.mostMs);
    return (t.mostMs - t.leastMs) / (t.mostMs + t.leastMs);
  };
  assert.ok(width(4) > width(16) && width(16) > width(64), `${width(4)} ${width(16)} ${width(64)}`);
  assert.deepEqual(timeLeft({ questions: 3, finished: [5, 5, 5], returnedTokens: 15, elapsedMs: 10_000 }), { leastMs: 0, mostMs: 0, basis: '1.5 tokens/s so far' });
});

test('a record\'s tokens: deployment, probes, pool and repair scan', () => {
  const c = (tokens: number) => ({ cost: { tokens } });
  assert.equal(recordTokens({ realized: c(1), probes: { sample: c(10), routes: c(20) }, globalRoutes: c(5), repair: c(7) }), 43);
});

test('the run\'s first questions in order stand for the rest once two have finished: cheap questions finish first', () => {
  // Four cheap questions finished early while the first two (expensive) were still open, then those two.
  const cheapFirst = timeLeft({ questions: 20, finished: [50, 50, 50, 50], returnedTokens: 1000, elapsedMs: 10_000 })!;
  const inOrder = timeLeft({ questions: 20, finished: [50, 50, 50, 50, 400, 400], inOrder: [400, 400], returnedTokens: 1000, elapsedMs: 10_000 })!;
  assert.ok(inOrder.mostMs > cheapFirst.mostMs);
  assert.match(inOrder.basis, /the first 2 questions at 400 tokens each/);
});

test('before questions finish, counted in generations: those to go at the tokens the returned ones took, at the engine\'s live speed', () => {
  // A model that never stops: 50 generations back, every one cut at the 256-token limit; 300 to go;
  // the engine has chosen 2,000 more tokens for generations still running; 100 s in.
  const engineTokens = 50 * 256 + 2000;
  const base = { questions: 8, finished: [], returnedTokens: 50 * 256, elapsedMs: 100_000, planned: { least: 784, most: 18_688 } };
  const work = { left: { least: 300, most: 300 }, returned: 50, cut: 50, cutTokens: 50 * 256, budget: 256, engineTokens };
  const t = timeLeft({ ...base, generations: work })!;
  const perMs = engineTokens / 100_000;
  assert.equal(t.mostMs, (300 * 256 - 2000) / perMs);
  // The low end: the cut share's Wilson lower bound at the limit (n of n: n / (n + z²) = 0.929).
  const low = 50 / (50 + 1.96 ** 2);
  assert.ok(Math.abs(t.leastMs - (300 * 256 * low - 2000) / perMs) < 1e-4 * t.leastMs, `${t.leastMs}`);
  assert.ok(t.leastMs < t.mostMs && t.leastMs > 0.9 * t.mostMs);
  assert.match(t.basis, /^300 generations to go at 238–256 tokens each \(50 of the 50 back were cut at the 256-token limit\), 148\.0 tokens\/s so far$/);
  assert.equal(t.repairMostMs, undefined);
  // Fewer than MIN_RETURNED_GENERATIONS back: the warm-up's range per question stands in.
  const early = timeLeft({ ...base, generations: { ...work, returned: 3, cut: 3, cutTokens: 768 } })!;
  assert.match(early.basis, /warm-up's 784–18688 tokens per question/);
  // Two questions finished in order: the questions' own mean takes over.
  const later = timeLeft({ ...base, finished: [12_544, 12_544], inOrder: [12_544, 12_544], generations: work })!;
  assert.match(later.basis, /the first 2 questions at 12544 tokens each/);
});

test('outputs that stop: their mean length between the cut share\'s bounds; --until-reached: the fewest generations at the low end', () => {
  // 40 back: 10 cut at 100 tokens, 30 stopped at 20 tokens on average.
  const returnedTokens = 10 * 100 + 30 * 20;
  const t = timeLeft({ questions: 4, finished: [], returnedTokens, elapsedMs: 10_000, generations: { left: { least: 10, most: 100 }, returned: 40, cut: 10, cutTokens: 1000, budget: 100 } })!;
  const perMs = returnedTokens / 10_000;
  const mean = returnedTokens / 40;
  // The upper end pairs the most generations with more than the mean (the cut share's upper bound), the lower the fewest with less.
  assert.ok(t.mostMs > (100 * mean) / perMs && t.mostMs < (100 * 100) / perMs, `${t.mostMs}`);
  assert.ok(t.leastMs < (10 * mean) / perMs && t.leastMs > (10 * 20) / perMs, `${t.leastMs}`);
});

test('no sooner than the route search\'s longest chain allows, and the repair scan\'s possible share stated apart', () => {
  const work = { left: { least: 20, most: 20 }, returned: 40, cut: 40, cutTokens: 40 * 100, budget: 100, engineTokens: 4000 };
  const throughput = timeLeft({ questions: 2, finished: [], returnedTokens: 4000, elapsedMs: 40_000, generations: work })!;
  // 20 × 100 tokens at 100 tokens/s: 20 s, unless a search has 5 rounds left at 30 s each.
  assert.equal(throughput.mostMs, 20_000);
  const chained = timeLeft({ questions: 2, finished: [], returnedTokens: 4000, elapsedMs: 40_000, generations: { ...work, chain: { roundsLeft: 5, roundSeconds: 30 } } })!;
  assert.equal(chained.mostMs, 150_000);
  assert.equal(chained.leastMs, throughput.leastMs, 'the chain may speed up as the batch empties: it sets only the upper end');
  assert.match(chained.basis, /the search's longest chain 5 rounds at 30 s/);
  const repair = timeLeft({ questions: 2, finished: [], returnedTokens: 4000, elapsedMs: 40_000, generations: { ...work, repairUndecided: 48 } })!;
  assert.equal(repair.mostMs, 20_000, 'the scan is not folded into the range');
  assert.equal(repair.repairMostMs, 48_000);
  assert.match(repair.basis, /the repair scan may add up to 48 generations/);
});
