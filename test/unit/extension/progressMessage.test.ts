/**
 * The progress notification's words: one step per finished question, tokens/s once timed, and no
 * time left until the engine has measured one; the pre-run estimate as offered with its Cancel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateMessage, measuredEstimateText, progressMessage, progressShare } from '../../../src/extension/commands/progressMessage';
import type { AuditEstimate } from '../../../src/audit/runner/auditEstimate';

test('before any question: the count and the stage, no speed and no time left', () => {
  assert.equal(progressMessage({ done: 0, total: 24, eta: null, stage: 'loading model: graphs' }), '0/24 questions · loading model: graphs');
  assert.equal(progressMessage({ done: 0, total: 24, eta: null }), '0/24 questions');
});

test('tokens timed but no question finished: the speed, still no time left', () => {
  assert.equal(progressMessage({ done: 0, total: 24, eta: null, tokensPerSecond: 812.44 }), '0/24 questions · 812.4 tokens/s');
});

test('once measured: the time left as a duration, not a raw second count', () => {
  assert.equal(progressMessage({ done: 3, total: 24, eta: 2899.2, tokensPerSecond: 812.4 }), '3/24 questions · 812.4 tokens/s · 48m19s left');
  assert.equal(progressMessage({ done: 23, total: 24, eta: 4.4, tokensPerSecond: 900 }), '23/24 questions · 900.0 tokens/s · 4s left');
});

test('before questions finish, the repair scan\'s possible share is said beside the time left, not in it', () => {
  assert.equal(progressMessage({ done: 0, total: 8, eta: 1490, etaRepairMost: 784, tokensPerSecond: 62.7 }), '0/8 questions · 62.7 tokens/s · 24m50s left (+ up to 13m04s for the repair scan)');
});

test('finished: nothing left to estimate', () => {
  assert.equal(progressMessage({ done: 24, total: 24, eta: 0, tokensPerSecond: 900 }), '24/24 questions · 900.0 tokens/s');
});

test('a time left that is not a number is not shown', () => {
  assert.equal(progressMessage({ done: 2, total: 24, eta: Number.POSITIVE_INFINITY, tokensPerSecond: 900 }), '2/24 questions · 900.0 tokens/s');
});

test('a comparison says which run a count is of, and its bar goes on from the base run to the trained one', () => {
  assert.equal(progressMessage({ done: 3, total: 8, eta: 12, tokensPerSecond: 500, label: 'tuned' }), 'tuned: 3/8 questions · 500.0 tokens/s · 12s left');
  assert.equal(progressMessage({ done: 0, total: 8, eta: null, label: 'base' }), 'base: 0/8 questions');
  assert.equal(progressShare({ done: 6, total: 24 }), 0.25);
  assert.equal(progressShare({ done: 0, total: 0 }), 0);
  assert.deepEqual([0, 4, 8].map((done) => progressShare({ done, total: 8, label: 'base' })), [0, 0.25, 0.5]);
  assert.deepEqual([0, 4, 8].map((done) => progressShare({ done, total: 8, label: 'tuned' })), [0.5, 0.75, 1]);
});

test('the estimate offered before the run: plan by stage, tokens and time from the measured warm-up', () => {
  const estimate: AuditEstimate = {
    questions: 24,
    perQuestion: { deployment: 1, sample: 8, routes: 8, search: 8 },
    repairPerScanned: 4,
    generations: { least: 600, most: 696 },
    tokensPerGeneration: { least: 15, most: 15 },
    warmUp: { sequences: 16, tokens: 246, seconds: 0.1, tokensPerSecond: 2460 },
    seconds: { least: 600 * 15 / 2460, most: 696 * 15 / 2460 },
  };
  assert.equal(
    estimateMessage(estimate),
    'Reach Audit: 24 questions × (deployment 1 + sample 8 + routes 8 + search 8) = 600 generations, + repair 4 per scanned question (up to 696). ' +
      'Estimate: about 9,000–10,440 tokens (15 per generation), about 4s at 2460.0 tokens/s (measured warm-up: 16 of the first question\'s requests, 246 tokens in 0.1 s).',
  );
  assert.match(estimateMessage(estimate, 'tuned'), /^Reach Audit \(tuned run\): 24 questions × /);
  // Ends that read differently stay a range; without a repair scan there is one number.
  assert.match(estimateMessage({ ...estimate, seconds: { least: 60, most: 125 } }), /, about 1m00s–2m05s at 2460\.0 tokens\/s /);
  assert.match(estimateMessage({ ...estimate, repairPerScanned: 0, generations: { least: 600, most: 600 } }), /= 600 generations\. Estimate: about 9,000 tokens \(15 per generation\), about 4s at /);
  // On the local engine the notification says memory beside time.
  assert.match(
    estimateMessage({ ...estimate, memory: { weightBytes: 3386496, weights: 'f32', kvPerSequenceBytes: 491520, atOnce: 32 } }),
    /about 4s at 2460\.0 tokens\/s \(measured warm-up: [^)]*\); memory: about 3\.23 MiB of f32 weights \+ up to 15 MiB of KV cache \(32 sequences at once × 480 KiB\), not counting working buffers, prompts prefilled ahead or the prefix store\.$/,
  );
});

test('the engine counts tokens as it generates: shown from the first seconds, before any question finishes', () => {
  assert.equal(progressMessage({ done: 0, total: 38, eta: null, generatedTokens: 12345, tokensPerSecond: 58.1 }), '0/38 questions · 12,345 tokens · 58.1 tokens/s');
});

test("the estimate's notification gets the measured time left once there is one (issue 40: 34s–12m32s too wide to plan by)", () => {
  assert.equal(measuredEstimateText({ done: 0, total: 24, eta: null, tokensPerSecond: 812.4 }), undefined);
  assert.equal(measuredEstimateText({ done: 3, total: 24, eta: 65, tokensPerSecond: 812.4 }), 'measured: 1m05s left at 812.4 tokens/s (3/24 questions done)');
  assert.match(String(measuredEstimateText({ done: 0, total: 24, eta: 40, etaRepairMost: 30 })), /^measured: 40s left \(\+ up to 30s for the repair scan\) \(0\/24 questions done\)$/);
  assert.equal(measuredEstimateText({ done: 24, total: 24, eta: 0 }), undefined);
});
