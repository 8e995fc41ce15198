/**
 * Long prompts in chunks (prefillChunks.ts): the split itself, and the engine's numbers with it
 * against the float64 reference transformer, alone and in a batch, through the prefix store and
 * into decode. The small models take a split at 8 tokens instead of 2,048.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { type Model, loadModel } from '../../../src/engine';
import { DEFAULT_PREFILL_CHUNKING, prefillChunks } from '../../../src/engine/decode/prefillChunks';
import { capacityFor } from '../../../src/engine/decode/kvCache';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';
import { ReferenceModel } from '../../support/referenceTransformer';
import { TOLERANCE, cacheDir, promptIds, testRoot } from './engineTestModels';

const area = (first: number) => first * (first + 1);

describe('prefillChunks: how a prompt is split', () => {
  it('keeps a prompt up to 2,048 tokens in one call', () => {
    assert.deepEqual(prefillChunks(1, 16), [1]);
    assert.deepEqual(prefillChunks(2048, capacityFor(2049)), [2048]);
  });

  it('splits a longer prompt after its first 2,048 tokens into chunks whose scores fit the first call\'s area', () => {
    for (const length of [2049, 3000, 8160, 16384, 32000]) {
      const capacity = capacityFor(length + 1);
      const chunks = prefillChunks(length, capacity);
      assert.equal(chunks[0], 2048);
      assert.equal(chunks.reduce((a, b) => a + b, 0), length, `${length}: the chunks cover the prompt`);
      const rest = chunks.slice(1);
      for (const c of rest) assert.ok(c * (capacity + c) <= area(2048), `${length}: a ${c}-token chunk over ${capacity} slots`);
      // The largest such chunk: one more token would not fit (the last chunk is the remainder).
      const c = rest[0];
      if (rest.length > 1) assert.ok((c + 1) * (capacity + c + 1) > area(2048), `${length}: ${c} is not the largest chunk that fits`);
      assert.ok(rest.every((x, i) => x === c || i === rest.length - 1));
    }
    // 8,160 tokens in their 8,192-slot cache: 483-token chunks (483 · 8,675 ≤ 2,048 · 2,049 < 484 · 8,676).
    assert.equal(capacityFor(8161), 8192);
    assert.equal(prefillChunks(8160, 8192)[1], 483);
  });

  it('never makes a chunk shorter than the minimum, however large the cache', () => {
    const chunks = prefillChunks(300_000, capacityFor(300_001));
    assert.equal(chunks[1], DEFAULT_PREFILL_CHUNKING.minChunkTokens);
  });

  it('uses the split it is given', () => {
    assert.deepEqual(prefillChunks(20, 32, { oneCallTokens: 8, minChunkTokens: 2 }), [8, 2, 2, 2, 2, 2, 2]);
    assert.deepEqual(prefillChunks(8, 16, { oneCallTokens: 8, minChunkTokens: 2 }), [8]);
  });
});

describe('long prompts in chunks: the engine', () => {
  const chunking = { oneCallTokens: 8, minChunkTokens: 3 };
  const greedy = { temperature: 0, topP: 1, seed: 0 };
  const models: Model[] = [];
  let ref: ReferenceModel;
  let chunked: Model;
  let oneCall: Model;
  let V: number;
  before(async () => {
    const dir = path.join(testRoot, 'models', 'prefill-chunks-llama');
    writeRandomModel(dir, SMALL_SPECS.llama);
    ref = ReferenceModel.load(dir);
    chunked = await loadModel(dir, { cacheDir, threads: 1, prefillChunking: chunking, prefixStoreBytes: 0 });
    oneCall = await loadModel(dir, { cacheDir, threads: 1, prefillChunking: { oneCallTokens: 1_000_000, minChunkTokens: 1 }, prefixStoreBytes: 0 });
    models.push(chunked, oneCall);
    V = chunked.vocabSize;
  });
  after(async () => { for (const m of models) await m.dispose(); });

  const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    let d = 0;
    for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
    return d;
  };

  it('runs a prompt longer than one call in several calls per block, with the reference\'s logits', async () => {
    const ids = promptIds(29, 1, V);
    const before = chunked.stats.blockCalls;
    const logits = await chunked.forward(ids);
    // 29 tokens: 8 in the first call, then chunks of c with c·(capacity + c) ≤ 8·9 over 32 slots: 3 tokens (the minimum).
    const calls = prefillChunks(29, capacityFor(30), chunking).length;
    assert.ok(calls > 1);
    assert.equal(chunked.stats.blockCalls - before, SMALL_SPECS.llama.numBlocks * calls, 'one call per chunk and block');
    assert.ok(maxDiff(logits, ref.lastLogits(ids)) < TOLERANCE, `chunked vs reference: ${maxDiff(logits, ref.lastLogits(ids))}`);
    assert.ok(maxDiff(logits, await oneCall.forward(ids)) < TOLERANCE);
  });

  it('gives a chunked prompt the same bits alone and in a batch, on any route, with the MLP silenced', async () => {
    const ids = promptIds(23, 2, V);
    for (const item of [{ ids }, { ids, route: [0, 1, 1, 2, 3] }, { ids, silencedMlp: [2] }]) {
      const [alone] = await chunked.forwardBatch([item]);
      const together = await chunked.forwardBatch([{ ids: promptIds(23, 5, V) }, item, { ids: promptIds(23, 7, V), route: [0, 2, 3] }]);
      assert.deepEqual(together[1], alone, JSON.stringify(item.route ?? item.silencedMlp ?? 'identity'));
      assert.ok(maxDiff(alone, ref.lastLogits(ids, item)) < TOLERANCE);
    }
  });

  it('decodes after a chunked prompt as the reference does', async () => {
    const ids = promptIds(26, 3, V);
    const [out] = await chunked.generate([{ promptIds: ids, maxNewTokens: 6, decoding: greedy }]);
    const [whole] = await oneCall.generate([{ promptIds: ids, maxNewTokens: 6, decoding: greedy }]);
    assert.deepEqual(out.tokens, whole.tokens);
    const seen = [...ids];
    for (let t = 0; t < out.tokens.length; t++) {
      const expected = ref.lastLogits(seen);
      let best = 0;
      for (let i = 1; i < expected.length; i++) if (expected[i] > expected[best]) best = i;
      assert.equal(out.tokens[t], best, `token ${t}`);
      seen.push(out.tokens[t]);
    }
    for (let t = 0; t < out.logprobs.length; t++) assert.ok(Math.abs(out.logprobs[t] - whole.logprobs[t]) < TOLERANCE, `log-prob ${t}`);
  });

  it('takes a chunked prompt\'s blocks from the prefix store with the bits it computes', async () => {
    const dir = path.join(testRoot, 'models', 'prefill-chunks-llama');
    const stored = await loadModel(dir, { cacheDir, threads: 1, prefillChunking: chunking });
    models.push(stored);
    const ids = promptIds(31, 4, V);
    const route = [0, 1, 2, 2, 3];
    await stored.forward(ids);
    const [fromStore] = await stored.forwardBatch([{ ids, route }]);
    assert.ok(stored.stats.storedPrefixRows > 0, 'the second prefill read the store');
    const [fresh] = await chunked.forwardBatch([{ ids, route }]);
    assert.deepEqual(fromStore, fresh);
  });

  it('chunks a prompt with an f16 cache too: close to the f32 cache, the same bits alone and in a batch', async () => {
    const dir = path.join(testRoot, 'models', 'prefill-chunks-llama');
    const half = await loadModel(dir, { cacheDir, threads: 1, prefillChunking: chunking, prefixStoreBytes: 0, kvCache: 'f16' });
    models.push(half);
    const ids = promptIds(27, 8, V);
    const before = half.stats.blockCalls;
    const [alone] = await half.forwardBatch([{ ids }]);
    assert.equal(half.stats.blockCalls - before, SMALL_SPECS.llama.numBlocks * prefillChunks(27, capacityFor(28), chunking).length);
    const together = await half.forwardBatch([{ ids: promptIds(27, 9, V) }, { ids }]);
    assert.deepEqual(together[1], alone);
    const full = await chunked.forward(ids);
    let diff = 0;
    let norm = 0;
    for (let i = 0; i < full.length; i++) {
      diff += (full[i] - alone[i]) ** 2;
      norm += full[i] ** 2;
    }
    const rel = Math.sqrt(diff / norm);
    assert.ok(rel > 0 && rel < 0.01, `relative logit error ${rel}`);
  });

  it('leaves a prompt up to one call as it was: the same bits as without chunking', async () => {
    const ids = promptIds(8, 6, V);
    assert.deepEqual(await chunked.forward(ids), await oneCall.forward(ids));
  });
});
