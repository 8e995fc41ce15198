/**
 * --kv-memory before the run: the need of the run's largest sequence (longest route it can submit,
 * longest prompt, token budget) against a hand computation, how many the budget runs at once, the
 * line stating it, and the refusal when not even one fits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kvMemoryText, longestRoute, planKvMemory } from '../../../src/service/kvMemoryPlan';
import { readPreSettings } from '../../../src/service/auditInputs';
import { InputError } from '../../../src/common';

// The demo model's shape: 8 blocks, 2 KV heads of 24 (a multiple of 8, kept).
const demo = { numKvHeads: 2, headDim: 24 };

test('the need of the largest sequence, and how many the budget runs at once', () => {
  // Routes of up to 10 positions, a 34-token prompt + 64 new tokens (128 slots):
  // 10 × 2 × 24 × 2 × 4 × 128 = 491,520 bytes (480 KiB); 1 MiB holds two.
  const plan = planKvMemory(demo, 2 ** 20, { routeLength: 10, numBlocks: 8, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 });
  assert.deepEqual(plan, { budgetBytes: 2 ** 20, perSequenceBytes: 491520, routeLength: 10, kvHeads: 2, headSize: 24, promptTokens: 34, maxNewTokens: 64, slots: 128, atOnce: 2 });
  assert.equal(
    kvMemoryText(plan, 32),
    'KV memory: up to 480 KiB per sequence (10 route positions × 2 KV heads × 24 × 2 (keys, values) × 4 bytes × 128 slots for 34 prompt + 64 new tokens); ' +
      "the 1 MiB budget runs 2 at once instead of 32; the model's weights and working buffers come on top",
  );
  // A budget above --max-batch sequences' need runs --max-batch.
  const roomy = planKvMemory(demo, 2 ** 30, { routeLength: 10, numBlocks: 8, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 });
  assert.equal(roomy.atOnce, 32);
  assert.ok(!kvMemoryText(roomy, 32).includes('instead of'));
});

test('a sequence that cannot fit alone is refused with its figures and what to change', () => {
  const run = { routeLength: 10, numBlocks: 8, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 };
  assert.throws(() => planKvMemory(demo, 100 * 1024, run), (e: Error) => {
    assert.ok(e instanceof InputError);
    assert.equal(
      e.message,
      '--kv-memory 100 KiB: one sequence of this run can need 480 KiB of KV cache (10 route positions × 2 KV heads × 24 × 2 (keys, values) × 4 bytes × 128 slots for 34 prompt + 64 new tokens), ' +
        'more than the whole budget: raise --kv-memory to at least 480 KiB, or lower --max-new-tokens or --max-route-length',
    );
    return true;
  });
  // Without routes longer than the model, the route length is not the user's to lower.
  assert.throws(() => planKvMemory(demo, 1024, { ...run, routeLength: 8 }), (e: Error) => !e.message.includes('--max-route-length'));
  // Exactly one fits: runs one at a time.
  assert.equal(planKvMemory(demo, 491520, run).atOnce, 1);
});

test('the longest route: the identity, a route probe\'s bound, the global routes', () => {
  const routeSpace = { maxEdits: 4, minLength: 6, maxLength: 10 };
  const none = { count: 0, routes: [] };
  assert.equal(longestRoute({ probes: [{ name: 'sample', budget: 4 }], routeSpace, globalRoutes: none }, 8), 8);
  assert.equal(longestRoute({ probes: [{ name: 'sample', budget: 4 }, { name: 'search', budget: 4 }], routeSpace, globalRoutes: none }, 8), 10);
  assert.equal(longestRoute({ probes: [{ name: 'sample', budget: 4 }], routeSpace, globalRoutes: { count: 1, routes: [[0, 1, 1, 2, 3, 4, 5, 6, 7]] } }, 8), 9);
});

test('--kv-memory is read as bytes; absent leaves no budget', () => {
  assert.equal(readPreSettings({ kvMemory: '3G' }).kvMemory, 3 * 2 ** 30);
  assert.equal('kvMemory' in readPreSettings({}), false);
  assert.throws(() => readPreSettings({ kvMemory: 'big' }), /--kv-memory "big": expected a size/);
});
