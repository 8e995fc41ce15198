/**
 * The CLI's progress line (cli/progress.ts): the time left as a range with its basis, and before
 * questions finish the repair scan's possible share said apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressLine } from '../../../src/cli/progress';

test('the range, the repair scan\'s possible share beside it, and what it rests on', () => {
  const line = progressLine('audit', {
    done: 0,
    total: 8,
    elapsedMs: 416_000,
    engineTokens: 26_083,
    tokensPerSecond: 62.7,
    remainingLeastMs: 1_135_000,
    remainingMs: 1_526_000,
    remainingRepairMostMs: 784_000,
    remainingBasis: '301 generations to go at 246–256 tokens each',
  });
  assert.equal(line, 'audit: 0/8 questions (0%) · 26,083 tokens · 62.7 tokens/s · 18m55s–25m26s left (+ up to 13m04s if the repair scan runs on the open questions) (from 301 generations to go at 246–256 tokens each) · 6m56s elapsed');
  assert.doesNotMatch(progressLine('audit', { done: 4, total: 8, elapsedMs: 1000, tokensPerSecond: 9, remainingMs: 5000, remainingBasis: 'x' }), /repair/);
});
