/** The engine refuses, before allocating anything, a sequence that cannot fit the model's context. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { fixture, promptIds } from './engineTestModels';
import { checkContextLength, contextProblem, InputError } from '../../../src/engine';

test('contextProblem: prompt + max new tokens must fit max_position_embeddings', () => {
  assert.equal(contextProblem(2000, 48, { maxPositions: 2048 }), undefined);
  assert.equal(
    contextProblem(2000, 49, { maxPositions: 2048 }),
    "2000 prompt tokens + 49 new tokens = 2049 positions exceed the model's context of 2048 (max_position_embeddings)",
  );
  // The sliding window narrows attention; it does not shorten the context.
  assert.equal(contextProblem(5000, 100, { maxPositions: 32768, slidingWindow: 4096 }), undefined);
  assert.throws(() => checkContextLength([{ promptIds: [1], maxNewTokens: 1 }, { promptIds: new Array(10).fill(1), maxNewTokens: 1 }], { maxPositions: 8 }), (e: unknown) => e instanceof InputError && /^request 1: 10 prompt tokens/.test(e.message));
});

test('a loaded model refuses an over-long request in generate and forward without allocating for it', async () => {
  const [name, spec] = Object.entries(SMALL_SPECS)[0];
  const { model } = await fixture(`context-${name}`, { ...spec, dtype: 'F32' });
  assert.equal(model.context.maxPositions, 2048);
  // A million-token prompt: the buffers it would need (KV caches, attention rows) are never made.
  const huge = promptIds(1_000_000, 1, spec.vocabSize);
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  await assert.rejects(
    model.generate([{ promptIds: promptIds(4, 1, spec.vocabSize), maxNewTokens: 2, decoding: { temperature: 0, topP: 1, seed: 0 } }, { promptIds: huge, maxNewTokens: 8, decoding: { temperature: 0, topP: 1, seed: 0 } }]),
    (e: unknown) => e instanceof InputError && /request 1: 1000000 prompt tokens \+ 8 new tokens = 1000008 positions exceed the model's context of 2048/.test(e.message),
  );
  await assert.rejects(model.forward(huge), /1000000 prompt tokens \+ 0 new tokens/);
  assert.ok(performance.now() - started < 2000, 'refused at once');
  assert.ok(process.memoryUsage().rss - rssBefore < 200 * 2 ** 20, 'no large allocation');
  // The boundary fits.
  const [g] = await model.generate([{ promptIds: promptIds(2046, 2, spec.vocabSize), maxNewTokens: 2, decoding: { temperature: 0, topP: 1, seed: 0 } }]);
  assert.ok(g.tokens.length >= 1 && g.tokens.length <= 2);
});
