/**
 * `--kv-cache f16`: the cache stores binary16 bit patterns and copies them as they are; a
 * sequence's KV need is half the f32 figure; the model records the precision, its logits are close
 * to the f32 cache's but not equal; a sequence's tokens and log-probs are bit for bit the same alone
 * and in a batch, and the same whether its tokens came in one call or one at a time; the default
 * graph variant (and so its cache key and records) is unchanged.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { type Fixture, cacheDir, fixture, promptIds } from './engineTestModels';
import { type GenerationRequest, type Model, InputError, loadModel, parseKvPrecision } from '../../../src/engine';
import { KvBuffer, KvCache, append, bufferFor, copySlots } from '../../../src/engine/decode/kvCache';
import { sequenceKvNeed } from '../../../src/engine/decode/kvMemory';

describe('f16 KV buffers', () => {
  it('store two bytes a value and copy bit patterns unchanged (gathers included)', () => {
    const b = new KvBuffer(1, 2, 16, 8, false, 'f16');
    assert.ok(b.k instanceof Uint16Array);
    assert.equal(b.bytes, 2 * 2 * 16 * 8 * 2);
    assert.equal(b.slotBytes(3), 2 * 2 * 3 * 8 * 2);
    const cache = new KvCache(b, 0, 0);
    b.owner[0] = cache;
    // Two tokens of new keys/values as the graph gives them ([1, S=2, KV·Dp]), every bit pattern distinct,
    // NaN and subnormal patterns included: nothing may decode or canonicalize them.
    const newK = Uint16Array.from({ length: 2 * 16 }, (_, i) => (0x7c01 + i * 997) & 0xffff);
    const newV = Uint16Array.from({ length: 2 * 16 }, (_, i) => (0x0001 + i * 1231) & 0xffff);
    append(cache, 0, newK, newV, 2, 2);
    const stats = { kvGathers: 0, kvGatheredBytes: 0, kvRowMoves: 0, kvIdleRows: 0 };
    const { buffer } = bufferFor([cache, new KvCache(b, 0, 2)], 20, stats);
    assert.equal(buffer.precision, 'f16');
    assert.equal(stats.kvGatheredBytes, 2 * b.slotBytes(2));
    for (const row of [0, 1]) {
      for (let h = 0; h < 2; h++) {
        for (let t = 0; t < 2; t++) {
          const at = ((row * 2 + h) * buffer.capacity + t) * 8;
          assert.deepEqual([...buffer.k.subarray(at, at + 8)], [...newK.subarray(t * 16 + h * 8, t * 16 + h * 8 + 8)]);
          assert.deepEqual([...buffer.v.subarray(at, at + 8)], [...newV.subarray(t * 16 + h * 8, t * 16 + h * 8 + 8)]);
        }
      }
    }
  });

  it('refuse copies and appends across precisions', () => {
    const half = new KvBuffer(1, 1, 16, 8, false, 'f16');
    const full = new KvBuffer(1, 1, 16, 8);
    assert.throws(() => copySlots(half, 0, full, 0, 1), /between precisions/);
    const c = new KvCache(half, 0, 0);
    half.owner[0] = c;
    assert.throws(() => append(c, 0, new Float32Array(8), new Float32Array(8), 1, 1), /another precision/);
  });
});

describe('KV need under f16', () => {
  it('is half the f32 figure, 2 bytes a value', () => {
    const config = { numKvHeads: 2, headDim: 64 };
    const f32 = sequenceKvNeed(config, 24, 2048 + 4096);
    const f16 = sequenceKvNeed(config, 24, 2048 + 4096, 'f16');
    assert.equal(f32.bytesPerValue, 4);
    assert.equal(f16.bytesPerValue, 2);
    // 24 positions × 2 heads × 64 × 2 (k, v) × 2 bytes × 8,192 slots.
    assert.equal(f16.bytes, 24 * 2 * 64 * 2 * 2 * 8192);
    assert.equal(f32.bytes, 2 * f16.bytes);
  });

  it('is f32 by default, and --kv-cache reads f32 and f16 only', () => {
    assert.equal(parseKvPrecision(undefined), undefined);
    assert.equal(parseKvPrecision('f16'), 'f16');
    assert.throws(() => parseKvPrecision('int8'), (e: unknown) => e instanceof InputError && /--kv-cache: expected one of f32, f16, got 'int8'/.test(e.message));
  });
});

for (const name of ['llama', 'qwen2']) {
  describe(`f16 KV cache, ${name}`, () => {
    const spec = SMALL_SPECS[name];
    let f: Fixture;
    let h: Model;
    before(async () => {
      f = await fixture(`kvf16-${name}`, spec);
      h = await loadModel(f.written.dir, { cacheDir, threads: 1, kvCache: 'f16' });
    });
    after(async () => { await h.dispose(); });

    it('is recorded as f16, the default as f32 with an unchanged graph variant', () => {
      assert.equal(h.kvCache, 'f16');
      assert.equal(f.model.kvCache, 'f32');
      assert.equal(f.model.graphs.manifest.kvCache, undefined);
      assert.notEqual(h.graphs.dir, f.model.graphs.dir);
    });

    it('gives logits close to the f32 cache, not equal', async () => {
      const ids = promptIds(12, 3, spec.vocabSize);
      const a = await f.model.forward(ids);
      const b = await h.forward(ids);
      let diff = 0;
      let norm = 0;
      for (let i = 0; i < a.length; i++) {
        diff += (a[i] - b[i]) ** 2;
        norm += a[i] ** 2;
      }
      const rel = Math.sqrt(diff / norm);
      assert.ok(rel > 0 && rel < 0.01, `relative logit error ${rel}`);
    });

    it('gives a sequence the same tokens and log-probs, bit for bit, alone and in a batch', async () => {
      const L = spec.numBlocks;
      const identity = Array.from({ length: L }, (_, i) => i);
      const greedy = { temperature: 0, topP: 1, seed: 0 };
      const shared = promptIds(6, 4, spec.vocabSize);
      const requests: GenerationRequest[] = [
        { promptIds: shared, maxNewTokens: 6, decoding: greedy },
        { promptIds: promptIds(10, 5, spec.vocabSize), route: [0, 0, ...identity.slice(1)], maxNewTokens: 5, decoding: greedy },
        { promptIds: shared, maxNewTokens: 7, decoding: { temperature: 1, topP: 1, seed: 9 } },
        { promptIds: promptIds(3, 6, spec.vocabSize), silencedMlp: [1], maxNewTokens: 4, decoding: greedy },
      ];
      const together = await h.generate(requests);
      for (let i = 0; i < requests.length; i++) {
        const [alone] = await h.generate([requests[i]]);
        assert.deepEqual(together[i].tokens, alone.tokens, `request ${i}`);
        assert.deepEqual(together[i].logprobs, alone.logprobs, `request ${i} log-probs`);
      }
    });

    it('gives a continuation the numbers of the same tokens prefilled in one call', async () => {
      // A prompt of 9 tokens generated greedily for 4, then the prompt + those 4 as one prompt: the
      // next token's log-prob must agree to float32 summation order (the f32 cache's own difference
      // between the two ways, ~1e-6), not to f16 rounding (~1e-3): a key read from the cache and a
      // key of the call itself are read at one precision.
      const ids = promptIds(9, 7, spec.vocabSize);
      const [g] = await h.generate([{ promptIds: ids, maxNewTokens: 5, decoding: { temperature: 0, topP: 1, seed: 0 } }]);
      const [again] = await h.generate([{ promptIds: [...ids, ...g.tokens.slice(0, 4)], maxNewTokens: 1, decoding: { temperature: 0, topP: 1, seed: 0 } }]);
      assert.equal(again.tokens[0], g.tokens[4]);
      assert.ok(Math.abs(again.logprobs[0] - g.logprobs[4]) < 1e-5, `${again.logprobs[0]} vs ${g.logprobs[4]}`);
    });
  });
}
