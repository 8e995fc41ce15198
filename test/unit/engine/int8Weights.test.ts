/**
 * int8 weights (MatMulNBits, 8 bits, one scale per 32): quantization round trip, logits close to
 * F32, recorded in the graph manifest, and a sequence's tokens and log-probs bit for bit the
 * same alone and in a batch (the audit's reproducibility does not depend on the precision).
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { type Fixture, cacheDir, fixture, promptIds } from './engineTestModels';
import { type GenerationRequest, type Model, loadModel } from '../../../src/engine';
import { INT8_BLOCK, quantizeInt8 } from '../../../src/engine/checkpoint/weightPrecision';

describe('int8 weights', () => {
  it('quantizes each block of 32 to within half a step of its scale, zero blocks to zero', () => {
    const N = 3;
    const K = 70; // not a multiple of the block: the last block is padded
    const w = Float32Array.from({ length: N * K }, (_, i) => (i % 5 === 0 ? 0 : Math.sin(i * 1.7) * (1 + (i % 3))));
    w.fill(0, K, 2 * K); // row 1 all zero
    const { data, scales } = quantizeInt8(w, N, K);
    const blocks = Math.ceil(K / INT8_BLOCK);
    assert.equal(data.length, N * blocks * INT8_BLOCK);
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) {
        const b = Math.floor(k / INT8_BLOCK);
        const scale = scales[n * blocks + b];
        const back = (data[(n * blocks + b) * INT8_BLOCK + (k % INT8_BLOCK)] - 128) * scale;
        assert.ok(Math.abs(back - w[n * K + k]) <= scale / 2 + 1e-7, `n ${n} k ${k}`);
      }
    }
    assert.ok(scales.slice(blocks, 2 * blocks).every((s) => s === 0));
  });

  for (const name of ['llama', 'qwen2']) {
    describe(name, () => {
      const spec = SMALL_SPECS[name];
      let f: Fixture;
      let q: Model;
      before(async () => {
        f = await fixture(`int8-${name}`, spec);
        q = await loadModel(f.written.dir, { cacheDir, threads: 1, weights: 'int8' });
      });
      after(async () => { await q.dispose(); });

      it('is recorded as int8 and gives logits close to F32', async () => {
        assert.equal(q.weights, 'int8');
        assert.equal(f.model.weights, 'f32');
        const ids = promptIds(9, 3, spec.vocabSize);
        const a = await f.model.forward(ids);
        const b = await q.forward(ids);
        let diff = 0;
        let norm = 0;
        for (let i = 0; i < a.length; i++) {
          diff += (a[i] - b[i]) ** 2;
          norm += a[i] ** 2;
        }
        const rel = Math.sqrt(diff / norm);
        assert.ok(rel > 0 && rel < 0.05, `relative logit error ${rel}`);
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
        const together = await q.generate(requests);
        for (let i = 0; i < requests.length; i++) {
          const [alone] = await q.generate([requests[i]]);
          assert.deepEqual(together[i].tokens, alone.tokens, `request ${i}`);
          assert.deepEqual(together[i].logprobs, alone.logprobs, `request ${i} log-probs`);
        }
      });
    });
  }
});
