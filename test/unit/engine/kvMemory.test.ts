/**
 * Memory-aware admission (--kv-memory): a sequence's KV need against a hand computation (a route
 * that repeats a block needs a cache more, one that skips a block one less; the head size padded as
 * the cache stores it; slots the power of two that holds prompt + budget), and the scheduler under a
 * budget: never more sequences decode together than the budget holds, the outputs are those of the
 * same requests without a budget, and a request that cannot fit alone is refused with its figures.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { type Fixture, fixture, promptIds } from './engineTestModels';
import { sequenceKvNeed } from '../../../src/engine/decode/kvMemory';
import { InputError, type GenerationRequest, type StepTiming } from '../../../src/engine';
import { memorySizeText, parseMemorySize } from '../../../src/common';

describe('sequenceKvNeed', () => {
  // 2 KV heads of size 12 (the cache pads it to 16), 10 prompt + 30 new tokens (64 slots).
  const config = { numKvHeads: 2, headDim: 12 };

  it('is route positions × KV heads × padded head size × 2 × 4 bytes × power-of-two slots', () => {
    // Identity of a 4-block model: 4 × 2 × 16 × 2 × 4 × 64 = 65,536 bytes.
    assert.deepEqual(sequenceKvNeed(config, 4, 40), { bytes: 65536, routeLength: 4, kvHeads: 2, headSize: 16, tokens: 40, slots: 64, bytesPerValue: 4 });
    // [0,1,1,2,3] repeats block 1: a fifth cache, 5 × 2 × 16 × 2 × 4 × 64 = 81,920.
    assert.equal(sequenceKvNeed(config, [0, 1, 1, 2, 3].length, 40).bytes, 81920);
    // [0,2,3] skips block 1: 3 × 2 × 16 × 2 × 4 × 64 = 49,152.
    assert.equal(sequenceKvNeed(config, [0, 2, 3].length, 40).bytes, 49152);
  });

  it('allocates slots by powers of two from 16', () => {
    assert.equal(sequenceKvNeed(config, 1, 5).slots, 16);
    assert.equal(sequenceKvNeed(config, 1, 64).slots, 64);
    assert.equal(sequenceKvNeed(config, 1, 65).slots, 128);
    // A head size already a multiple of 8 is kept: 28 blocks × 2 × 128 × 2 × 4 × 32,768 slots (the 1.5B Qwen2 at 32k) = 1.75 GiB.
    assert.equal(sequenceKvNeed({ numKvHeads: 2, headDim: 128 }, 28, 32768).bytes, 28 * 2 * 128 * 2 * 4 * 32768);
  });
});

describe('--kv-memory sizes', () => {
  it('reads binary and decimal units and bare bytes', () => {
    assert.equal(parseMemorySize('8G', '--kv-memory'), 8 * 2 ** 30);
    assert.equal(parseMemorySize('512MiB', '--kv-memory'), 512 * 2 ** 20);
    assert.equal(parseMemorySize('2GB', '--kv-memory'), 2e9);
    assert.equal(parseMemorySize('1.5k', '--kv-memory'), 1536);
    assert.equal(parseMemorySize('1048576', '--kv-memory'), 2 ** 20);
    assert.equal(memorySizeText(1.5 * 2 ** 30), '1.5 GiB');
    assert.equal(memorySizeText(900), '900 B');
  });

  it('refuses what is not a size, naming the flag', () => {
    for (const bad of ['', 'lots', '-1G', '0', '8 parsecs', '0.1']) {
      assert.throws(() => parseMemorySize(bad, '--kv-memory'), (e: Error) => e instanceof InputError && e.message.startsWith(`--kv-memory ${JSON.stringify(bad)}: expected a size`), bad);
    }
  });
});

describe('admission under a KV budget', () => {
  const spec = SMALL_SPECS.llama; // 4 blocks, 2 KV heads of 16
  let f: Fixture;
  before(async () => { f = await fixture('kv-admission', spec); });

  // Six prompts of 6 tokens, 20 new tokens: 4 × 2 × 16 × 2 × 4 × 32 slots = 32 KiB each.
  const perSequence = 4 * 2 * 16 * 2 * 4 * 32;
  const requests: GenerationRequest[] = Array.from({ length: 6 }, (_, i) => ({
    promptIds: promptIds(6, 20 + i, spec.vocabSize),
    maxNewTokens: 20,
    decoding: { temperature: 1, topP: 1, seed: 100 + i },
  }));

  async function generate(kvMemory: number | null): Promise<{ out: Awaited<ReturnType<Fixture['model']['generate']>>; decodeBatches: number[] }> {
    const decodeBatches: number[] = [];
    f.model.kvMemory = kvMemory;
    f.model.onStep = (s: StepTiming) => { if (!s.prefill) decodeBatches.push(s.batch); };
    try {
      return { out: await f.model.generate(requests), decodeBatches };
    } finally {
      f.model.kvMemory = null;
      f.model.onStep = undefined;
    }
  }

  it('decodes no more sequences together than the budget holds, with the same outputs as without it', async () => {
    assert.equal(sequenceKvNeed(f.model.config, 4, 26).bytes, perSequence);
    const free = await generate(null);
    assert.ok(Math.max(...free.decodeBatches) > 2, `without a budget the six decode together (batches ${free.decodeBatches.join(',')})`);
    // Room for two and a half sequences: two at a time.
    const tight = await generate(Math.floor(2.5 * perSequence));
    assert.ok(Math.max(...tight.decodeBatches) <= 2, `batches ${tight.decodeBatches.join(',')}`);
    assert.ok(tight.decodeBatches.length > free.decodeBatches.length, 'the others waited');
    assert.deepEqual(tight.out, free.out);
  });

  it('refuses a request that cannot fit even alone, with its need and the budget', async () => {
    f.model.kvMemory = perSequence - 1;
    try {
      await assert.rejects(f.model.generate(requests.slice(0, 1)), (e: Error) => {
        assert.ok(e instanceof InputError, String(e));
        assert.match(e.message, /request 0: its KV caches can come to 32 KiB \(a route of 4 blocks, 6 prompt \+ 20 new tokens\), over the whole KV memory budget of 32 KiB: raise the budget \(--kv-memory\)/);
        return true;
      });
      // A route repeating a block needs a fifth more: refused under the identity's exact need.
      f.model.kvMemory = perSequence;
      await f.model.generate(requests.slice(0, 1));
      await assert.rejects(f.model.generate([{ ...requests[0], route: [0, 1, 1, 2, 3] }]), /a route of 5 blocks/);
    } finally {
      f.model.kvMemory = null;
    }
  });
});
