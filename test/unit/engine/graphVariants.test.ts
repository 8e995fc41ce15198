/**
 * Every graph variant (how RMSNorm is written) computes the same model: each one against the
 * float64 reference at batch 1 and on a mixed, left-padded batch with routes and silencing. The
 * default variant is covered in full by numerics.test.ts.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { maxRelativeDifference } from '../../support/referenceTransformer';
import { SMALL_SPECS } from '../../support/modelFolder';
import { DEFAULT_VARIANT, type GraphVariant } from '../../../src/engine/graphs/blockGraph';
import { TOLERANCE, type Fixture, fixture, promptIds } from './engineTestModels';

const variants: GraphVariant[] = (['plain', 'contrib'] as const)
  .filter((norm) => norm !== DEFAULT_VARIANT.norm)
  .map((norm) => ({ norm }));

for (const variant of variants) {
  for (const specName of ['llama', 'qwen3'] as const) {
    const spec = SMALL_SPECS[specName];
    describe(`graph variant norm=${variant.norm}: ${specName}`, () => {
      let f: Fixture;
      before(async () => { f = await fixture(`${specName}-norm-${variant.norm}`, spec, variant); });
      const identity = Array.from({ length: spec.numBlocks }, (_, i) => i);

      it('matches the reference at batch 1', async () => {
        const ids = promptIds(6, 5, spec.vocabSize);
        const err = maxRelativeDifference(await f.model.forward(ids), f.ref.lastLogits(ids, {}));
        assert.ok(err < TOLERANCE, `relative error ${err}`);
      });

      it('matches the reference in a mixed batch with left padding, routes and silencing', async () => {
        const items = [
          { ids: promptIds(9, 1, spec.vocabSize) },
          { ids: promptIds(3, 2, spec.vocabSize), route: [0, 0, ...identity.slice(1)], silencedMlp: [0] },
          { ids: promptIds(5, 3, spec.vocabSize), route: identity.slice().reverse() },
        ];
        const got = await f.model.forwardBatch(items);
        items.forEach((item, i) => {
          const err = maxRelativeDifference(got[i], f.ref.lastLogits([...item.ids], { route: item.route, silencedMlp: item.silencedMlp }));
          assert.ok(err < TOLERANCE, `item ${i}: relative error ${err}`);
        });
      });
    });
  }
}
