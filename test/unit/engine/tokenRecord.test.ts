/**
 * The token record of a generation (entropy and top-k alternatives per generated token) against an
 * independent float64 pass: the reference transformer's logits for the same prefix, softmaxed here
 * with the textbook definitions. Asking for the record changes nothing else of the generation.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { type Fixture, fixture, promptIds } from './engineTestModels';
import { logSoftmaxAt } from '../../support/logSoftmax';
import { InputError, MAX_TOKEN_RECORD_K, tokenStep } from '../../../src/engine';

const greedy = { temperature: 0, topP: 1, seed: 0 };

/** −Σ p log p with p = softmax(v), every term in float64 (the definition, no shortcut). */
function entropyByDefinition(v: ArrayLike<number>): number {
  let h = 0;
  for (let i = 0; i < v.length; i++) {
    const lp = logSoftmaxAt(v, i);
    h -= Math.exp(lp) * lp;
  }
  return h;
}

/** The k most likely ids by a full sort (ties: lower id first). */
function topByDefinition(v: ArrayLike<number>, k: number): number[] {
  return Array.from({ length: v.length }, (_, i) => i).sort((a, b) => v[b] - v[a] || a - b).slice(0, k);
}

describe('token record: entropy and top-k of a row', () => {
  it('equals the definitions on hand-made rows, ties to the lower id', () => {
    const rows = [[0, 0, 0, 0], [5, 1, 5, -2, 3], [-1e9, 0, -1e9], [2.5, -0.5, 1.25, 1.25, 0.1, 7]];
    for (const row of rows) {
      for (const k of [1, 2, 4]) {
        const s = tokenStep(row, k);
        assert.ok(Math.abs(s.entropy - entropyByDefinition(row)) < 1e-12, `${row}: ${s.entropy}`);
        assert.deepEqual(s.top.map(([t]) => t), topByDefinition(row, k));
        for (const [t, lp] of s.top) assert.ok(Math.abs(lp - logSoftmaxAt(row, t)) < 1e-12);
      }
    }
    assert.equal(tokenStep([0, 0, 0, 0], 4).entropy.toFixed(12), Math.log(4).toFixed(12));
    assert.equal(tokenStep([-1e9, 0, -1e9], 1).entropy, 0);
  });
});

for (const name of ['llama', 'qwen2']) {
  const spec = SMALL_SPECS[name];
  describe(`token record of a generation: ${name}`, () => {
    let f: Fixture;
    before(async () => { f = await fixture(`record-${name}`, spec); });

    it('gives each generated token the entropy and alternatives of an independent float64 pass (within 1e-5)', async () => {
      const prompt = promptIds(6, 3, spec.vocabSize);
      const K = 4;
      const [g] = await f.model.generate([{ promptIds: prompt, maxNewTokens: 8, decoding: greedy, tokenRecord: K }]);
      assert.equal(g.tokenRecord?.length, g.tokens.length);
      const seq = [...prompt];
      g.tokens.forEach((t, step) => {
        const logits = f.ref.lastLogits(seq);
        const rec = g.tokenRecord![step];
        const h = entropyByDefinition(logits);
        assert.ok(Math.abs(rec.entropy - h) < 1e-5, `step ${step}: entropy ${rec.entropy} vs ${h}`);
        assert.equal(rec.top.length, K);
        assert.deepEqual(rec.top.map(([id]) => id), topByDefinition(logits, K), `step ${step}: alternatives`);
        for (const [id, lp] of rec.top) assert.ok(Math.abs(lp - logSoftmaxAt(logits, id)) < 1e-5, `step ${step} token ${id}: ${lp}`);
        // Greedy: the chosen token is the most likely one.
        assert.equal(rec.top[0][0], t);
        seq.push(t);
      });
    });

    it('leaves the generation as it is without the record, greedy and sampled, alone or beside others', async () => {
      const prompt = promptIds(5, 9, spec.vocabSize);
      for (const decoding of [greedy, { temperature: 1, topP: 0.9, seed: 11 }]) {
        const [plain, recorded] = await f.model.generate([
          { promptIds: prompt, maxNewTokens: 7, decoding },
          { promptIds: prompt, maxNewTokens: 7, decoding, tokenRecord: 2 },
        ]);
        assert.equal(plain.tokenRecord, undefined);
        assert.deepEqual({ ...recorded, tokenRecord: undefined }, { ...plain, tokenRecord: undefined });
        assert.equal(recorded.tokenRecord?.length, recorded.tokens.length);
      }
    });

    it('refuses a top-k outside 1..8, naming the request and the bound', async () => {
      const prompt = promptIds(3, 1, spec.vocabSize);
      for (const k of [0, MAX_TOKEN_RECORD_K + 1, 1.5]) {
        await assert.rejects(f.model.generate([{ promptIds: prompt, maxNewTokens: 2, decoding: greedy, tokenRecord: k }]), (e: Error) => e instanceof InputError && /request 0 tokenRecord: expected a whole number of alternatives from 1 to 8/.test(e.message));
      }
    });
  });
}
