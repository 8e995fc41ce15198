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
