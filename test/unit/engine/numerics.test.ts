/**
 * Last-position logits of the engine (onnxruntime graphs, batched, KV-cached) against the
 * independent float64 reference, for every supported architecture stored as F32 and as BF16:
 * identity route, skips, repeats, reorders, silenced MLPs and a left-padded mixed batch.
 * Error measure: max|engine − reference| / max|reference| < 1e-4.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { maxRelativeDifference } from '../../support/referenceTransformer';
import { TOLERANCE, type Fixture, fixture, promptIds, specVariants } from './engineTestModels';

for (const { name, spec } of specVariants()) {
  describe(`engine numerics: ${name}`, () => {
    let f: Fixture;
    before(async () => { f = await fixture(name, spec); });

    const L = spec.numBlocks;
    const identity = Array.from({ length: L }, (_, i) => i);
    const cases: { label: string; route?: number[]; silencedMlp?: number[] }[] = [
      { label: 'identity (default route)' },
      { label: 'skip block 1', route: identity.filter((b) => b !== 1) },
      { label: 'repeat block 1', route: [0, 1, ...identity.slice(1)] },
      { label: 'reorder first two blocks', route: [1, 0, ...identity.slice(2)] },
      { label: 'one block only', route: [L - 1] },
      { label: 'silence MLP 0 and last', silencedMlp: [0, L - 1] },
      { label: 'repeat + silence the repeated block', route: [0, 0, ...identity.slice(1)], silencedMlp: [0] },
    ];
    for (const c of cases) {
      it(`matches the reference: ${c.label}`, async () => {
        const ids = promptIds(9, c.label.length, spec.vocabSize);
        const got = await f.model.forward(ids, { route: c.route, silencedMlp: c.silencedMlp });
        const want = f.ref.lastLogits(ids, { route: c.route, silencedMlp: c.silencedMlp });
        assert.equal(got.length, spec.vocabSize);
        const err = maxRelativeDifference(got, want);
        assert.ok(err < TOLERANCE, `relative error ${err}`);
      });
    }

    it('matches the reference in a mixed batch with left padding, routes and silencing', async () => {
      const items = [
        { ids: promptIds(11, 1, spec.vocabSize) },
        { ids: promptIds(4, 2, spec.vocabSize), route: [0, 1, 1, ...identity.slice(2)] },
        { ids: promptIds(1, 3, spec.vocabSize), route: identity.slice().reverse(), silencedMlp: [1] },
        { ids: promptIds(7, 4, spec.vocabSize), route: identity.filter((b) => b !== 0), silencedMlp: [L - 1] },
      ];
      const got = await f.model.forwardBatch(items);
      items.forEach((item, i) => {
        const want = f.ref.lastLogits([...item.ids], { route: item.route, silencedMlp: item.silencedMlp });
        const err = maxRelativeDifference(got[i], want);
        assert.ok(err < TOLERANCE, `item ${i}: relative error ${err}`);
      });
    });
  });
}
