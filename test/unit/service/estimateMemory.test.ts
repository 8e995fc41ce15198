/**
 * The estimate's memory figure: the weights as the engine holds them and the KV the run's
 * sequences can hold at once, under a budget (the plan's need × the sequences it admits) and
 * without one (the same need × --max-batch), against hand computations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateMemory } from '../../../src/service/estimateMemory';
import { planKvMemory } from '../../../src/service/kvMemoryPlan';
import type { ModelConfig } from '../../../src/engine';

// The demo model's shape.
const demo: ModelConfig = {
  architecture: 'LlamaForCausalLM', numBlocks: 8, hiddenSize: 96, intermediateSize: 256, numHeads: 4, numKvHeads: 2, headDim: 24, vocabSize: 354,
  rmsNormEps: 1e-5, ropeTheta: 10000, maxPositionEmbeddings: 512, tieWordEmbeddings: false, qkvBias: false, qkNorm: false, eosTokenIds: [2],
};
// Routes of up to 10 positions, a 34-token prompt + 64 new tokens (128 slots): 10 × 2 × 24 × 2 × 4 × 128 = 491,520 bytes.
const run = { routeLength: 10, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 };
// 8 blocks of 406,272 bytes + a head of 136,320 (test/unit/engine/memoryFootprint.test.ts).
const weights = 8 * 406272 + 136320;

test('without a budget: the largest need × --max-batch', () => {
  assert.deepEqual(estimateMemory(demo, 'f32', undefined, run), { weightBytes: weights, weights: 'f32', kvPerSequenceBytes: 491520, atOnce: 32 });
});

test('under a budget: the plan\'s need × the sequences it runs at once', () => {
  const plan = planKvMemory(demo, { bytes: 2 ** 20, from: 'flag' }, { ...run, numBlocks: 8 });
  // Another shape is not asked for once the plan has the need.
  assert.deepEqual(estimateMemory(demo, 'f32', plan, { ...run, promptTokens: 9999 }), { weightBytes: weights, weights: 'f32', kvPerSequenceBytes: 491520, atOnce: 2 });
  assert.equal(estimateMemory(demo, 'int8', plan, run).weights, 'int8');
});

test('an f16 KV cache: half the need, twice the sequences under one budget, the factors say 2 bytes', () => {
  // 10 × 2 × 24 × 2 × 2 × 128 = 245,760 bytes a sequence: a 1 MiB budget holds 4, against 2 at f32.
  const f32 = planKvMemory(demo, { bytes: 2 ** 20, from: 'flag' }, { ...run, numBlocks: 8 });
  const f16 = planKvMemory(demo, { bytes: 2 ** 20, from: 'flag' }, { ...run, numBlocks: 8, kvCache: 'f16' });
  assert.equal(f32.perSequenceBytes, 491520);
  assert.equal('bytesPerValue' in f32, false);
  assert.equal(f16.perSequenceBytes, 245760);
  assert.equal(f16.bytesPerValue, 2);
  assert.equal(f32.atOnce, 2);
  assert.equal(f16.atOnce, 4);
  assert.equal(estimateMemory(demo, 'f32', undefined, { ...run, kvCache: 'f16' }).kvPerSequenceBytes, 245760);
  assert.throws(() => planKvMemory(demo, { bytes: 200000, from: 'flag' }, { ...run, numBlocks: 8, kvCache: 'f16' }), /× 2 bytes \(--kv-cache f16\) × 128 slots/);
});
