/**
 * --kv-memory before the run: the need of the run's largest sequence (longest route it can submit,
 * longest prompt, token budget) against a hand computation, how many the budget runs at once, the
 * line stating it, and the refusal when not even one fits; the default budget (half the memory
 * available), stated only when it runs fewer than --max-batch; `off`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_KV_SHARE, kvBudget, kvMemoryText, longestPrompt, longestRoute, planKvMemory, type KvBudget } from '../../../src/service/kvMemoryPlan';
import { parseDataset } from '../../../src/audit/dataset';
import { promptIds } from '../../../src/audit/probes';
import type { ModelContext, PromptSource } from '../../../src/engine';
import { FakeGenerator } from '../audit/fakeGenerator';
import { settingsFor } from '../audit/fixtures';
import { readPreSettings } from '../../../src/service/auditInputs';
import { InputError } from '../../../src/common';

// The demo model's shape: 8 blocks, 2 KV heads of 24 (a multiple of 8, kept).
const demo = { numKvHeads: 2, headDim: 24 };
const given = (bytes: number): KvBudget => ({ bytes, from: 'flag' });

test('the need of the largest sequence, and how many the budget runs at once', () => {
  // Routes of up to 10 positions, a 34-token prompt + 64 new tokens (128 slots):
  // 10 × 2 × 24 × 2 × 4 × 128 = 491,520 bytes (480 KiB); 1 MiB holds two.
  const plan = planKvMemory(demo, given(2 ** 20), { routeLength: 10, numBlocks: 8, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 });
  assert.deepEqual(plan, { budgetBytes: 2 ** 20, budgetFrom: 'flag', perSequenceBytes: 491520, routeLength: 10, kvHeads: 2, headSize: 24, promptTokens: 34, maxNewTokens: 64, slots: 128, atOnce: 2 });
  assert.equal(
    kvMemoryText(plan, 32),
    'KV memory: up to 480 KiB per sequence (10 route positions × 2 KV heads × 24 × 2 (keys, values) × 4 bytes × 128 slots for 34 prompt + 64 new tokens); ' +
      "the 1 MiB budget runs 2 at once instead of 32; the model's weights and working buffers come on top",
  );
  // A budget above --max-batch sequences' need runs --max-batch.
  const roomy = planKvMemory(demo, given(2 ** 30), { routeLength: 10, numBlocks: 8, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 });
  assert.equal(roomy.atOnce, 32);
  assert.ok(!kvMemoryText(roomy, 32)?.includes('instead of'), 'a budget given is stated even when it changes nothing');
});

test('a sequence that cannot fit alone is refused with its figures and what to change', () => {
  const run = { routeLength: 10, numBlocks: 8, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 };
  assert.throws(() => planKvMemory(demo, given(100 * 1024), run), (e: Error) => {
    assert.ok(e instanceof InputError);
    assert.equal(
      e.message,
      '--kv-memory 100 KiB: one sequence of this run can need 480 KiB of KV cache (10 route positions × 2 KV heads × 24 × 2 (keys, values) × 4 bytes × 128 slots for 34 prompt + 64 new tokens), ' +
        'more than the whole budget: raise --kv-memory to at least 480 KiB, or lower --max-new-tokens or --max-route-length',
    );
    return true;
  });
  // Without routes longer than the model, the route length is not the user's to lower.
  assert.throws(() => planKvMemory(demo, given(1024), { ...run, routeLength: 8 }), (e: Error) => !e.message.includes('--max-route-length'));
  // Exactly one fits: runs one at a time.
  assert.equal(planKvMemory(demo, given(491520), run).atOnce, 1);
});

test('the longest route: the identity, a route probe\'s bound, the global routes', () => {
  const routeSpace = { maxEdits: 4, minLength: 6, maxLength: 10 };
  const none = { count: 0, routes: [] };
  assert.equal(longestRoute({ probes: [{ name: 'sample', budget: 4 }], routeSpace, globalRoutes: none }, 8), 8);
  assert.equal(longestRoute({ probes: [{ name: 'sample', budget: 4 }, { name: 'search', budget: 4 }], routeSpace, globalRoutes: none }, 8), 10);
  assert.equal(longestRoute({ probes: [{ name: 'sample', budget: 4 }], routeSpace, globalRoutes: { count: 1, routes: [[0, 1, 1, 2, 3, 4, 5, 6, 7]] } }, 8), 9);
});

test('without --kv-memory the budget is half the memory available, asked for only then; off gives none', () => {
  let asked = 0;
  const available = () => { asked++; return 3 * 2 ** 30 + 1; };
  assert.equal(DEFAULT_KV_SHARE, 0.5);
  assert.deepEqual(kvBudget(undefined, available), { bytes: 1.5 * 2 ** 30, from: 'default', share: 0.5, availableBytes: 3 * 2 ** 30 + 1 });
  assert.deepEqual(kvBudget(2 ** 20, available), { bytes: 2 ** 20, from: 'flag' });
  assert.equal(kvBudget('off', available), null);
  assert.equal(asked, 1, 'the memory is read for the default only');
});

test('the default budget: recorded with its source, silent when it changes nothing, stated when it runs fewer, refused with what to change', () => {
  const run = { routeLength: 10, numBlocks: 8, promptTokens: 34, maxNewTokens: 64, maxBatch: 32 };
  // 32 sequences of 480 KiB need 15 MiB: half of 64 MiB holds them all.
  const roomy = planKvMemory(demo, kvBudget(undefined, () => 64 * 2 ** 20)!, run);
  assert.deepEqual({ ...roomy }, { budgetBytes: 32 * 2 ** 20, budgetFrom: 'default', availableBytes: 64 * 2 ** 20, share: 0.5, perSequenceBytes: 491520, routeLength: 10, kvHeads: 2, headSize: 24, promptTokens: 34, maxNewTokens: 64, slots: 128, atOnce: 32 });
  assert.equal(kvMemoryText(roomy, 32), undefined, 'no line when the default holds --max-batch sequences');
  // Half of 2 MiB holds two.
  const tight = planKvMemory(demo, kvBudget(undefined, () => 2 * 2 ** 20)!, run);
  assert.equal(tight.atOnce, 2);
  assert.equal(
    kvMemoryText(tight, 32),
    'KV memory: up to 480 KiB per sequence (10 route positions × 2 KV heads × 24 × 2 (keys, values) × 4 bytes × 128 slots for 34 prompt + 64 new tokens); ' +
      "the default budget, 1 MiB (half of the 2 MiB available once the model loaded), runs 2 at once instead of 32; the model's weights and working buffers come on top " +
      '(--kv-memory SIZE sets another budget, --kv-memory off none)',
  );
  assert.throws(() => planKvMemory(demo, kvBudget(undefined, () => 600 * 1024)!, run), (e: Error) => {
    assert.ok(e instanceof InputError);
    assert.equal(
      e.message,
      'the default KV budget, 300 KiB (half of the 600 KiB available once the model loaded): one sequence of this run can need 480 KiB of KV cache ' +
        '(10 route positions × 2 KV heads × 24 × 2 (keys, values) × 4 bytes × 128 slots for 34 prompt + 64 new tokens), more than the whole budget: ' +
        'lower --max-new-tokens or --max-route-length, free memory, or set the budget yourself with --kv-memory SIZE (at least 480 KiB) or --kv-memory off (no budget: --max-batch alone)',
    );
    return true;
  });
});

test('--kv-memory is read as bytes, off or none as no budget; absent leaves the default', () => {
  assert.equal(readPreSettings({ kvMemory: '3G' }).kvMemory, 3 * 2 ** 30);
  for (const off of ['off', 'none', ' OFF ']) assert.equal(readPreSettings({ kvMemory: off }).kvMemory, 'off');
  assert.equal('kvMemory' in readPreSettings({}), false);
  assert.equal('kvMemory' in readPreSettings({ kvMemory: '' }), false, 'an empty setting is the default');
  assert.throws(() => readPreSettings({ kvMemory: 'big' }), /--kv-memory "big": expected a size/);
});

/** Characters as tokens, a length bound like the real tokenizer's, and a record of what was tokenized. */
class ContextFake extends FakeGenerator {
  readonly context: ModelContext = { maxPositions: 400 };
  readonly tokenized: number[] = [];
  override encodeRaw(text: string): number[] {
    this.tokenized.push(text.length);
    return super.encodeRaw(text);
  }
  tokensAtLeast(prompt: PromptSource): number {
    return 'raw' in prompt ? prompt.raw.length : prompt.chat.reduce((n, m) => n + m.content.length, 0);
  }
}

test('the longest prompt is the longest the run prefills: one skipped from its length is neither tokenized nor counted, one cut from the left counts cut', () => {
  const long = `Read this: ${'word '.repeat(200_000)} What is 1 plus 1?`;
  const ds = parseDataset('/v.jsonl', [
    { id: 'short', question: 'What is 2 plus 2?', answer: '#### 4' },
    { id: 'long', question: long, answer: '#### 2' },
    { id: 'short2', question: 'What is 13 plus 13?', answer: '#### 26' },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n');
  const deployment = { ...settingsFor().deployment, maxNewTokens: 64 };
  const skipping = new ContextFake(8, new Map());
  const shortest = Math.max(...ds.questions.filter((q) => q.id !== 'long').map((q) => promptIds(deployment, q, skipping).length));
  skipping.tokenized.length = 0;
  assert.equal(longestPrompt(skipping, { deployment }, ds.questions), shortest, 'the skipped question is not the longest prompt');
  assert.ok(skipping.tokenized.every((chars) => chars < 1000), `tokenized ${skipping.tokenized.join(', ')} characters: the long question was tokenized`);
  const cutting = new ContextFake(8, new Map());
  assert.equal(longestPrompt(cutting, { deployment: { ...deployment, truncatePrompt: 'left' } }, ds.questions), 400 - 64, 'a prompt cut from the left fills what the context leaves');
});
