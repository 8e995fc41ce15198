/**
 * The prompt's pooled state read during a generation's own prefill: the mean over the prompt's
 * tokens of the residual after the first application of a block equals the float64 reference's,
 * on the identity route and on a route that repeats the block; the same bits alone, beside other
 * requests of the same prompt, and when the prefix store serves the prompt's earlier blocks.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { InputError, type GenerationRequest } from '../../../src/engine';
import { type Fixture, fixture, promptIds } from './engineTestModels';

describe('pooled state of the prompt', () => {
  let f: Fixture;
  const spec = SMALL_SPECS.qwen2;
  before(async () => { f = await fixture('pooled-state', spec); });
  const greedy = { temperature: 0, topP: 1, seed: 0 };

  /** The reference's mean residual over the prompt after the first application of `block` of `route`. */
  function referenceMean(ids: number[], block: number, route?: number[]): Float64Array {
    const rows: Float64Array[] = [];
    f.ref.lastLogits(ids, { ...(route ? { route } : {}), addAfter: { block, vector: (t, r) => { rows[t] = r.slice(); return null; } } });
    const mean = new Float64Array(spec.hiddenSize);
    for (const r of rows.slice(0, ids.length)) for (let d = 0; d < mean.length; d++) mean[d] += r[d] / ids.length;
    return mean;
  }

  function assertClose(got: readonly number[] | undefined, want: Float64Array, what: string): void {
    assert.ok(got, `${what}: no pooled state`);
    assert.equal(got.length, want.length);
    let scale = 0;
    for (const w of want) scale = Math.max(scale, Math.abs(w));
    got.forEach((g, d) => assert.ok(Math.abs(g - want[d]) <= 1e-4 * Math.max(1, scale), `${what} dim ${d}: ${g} vs ${want[d]}`));
  }

  it('equals the reference mean after the block, on the identity route and on a repeating one', async () => {
    const ids = promptIds(7, 4, spec.vocabSize);
    const route = [0, 1, 1, 2, 3];
    const out = await f.model.generate([
      { promptIds: ids, maxNewTokens: 2, decoding: greedy, pooledAfterBlock: 1 },
      { promptIds: ids, maxNewTokens: 2, decoding: greedy, pooledAfterBlock: 0 },
      { promptIds: ids, route, maxNewTokens: 2, decoding: greedy, pooledAfterBlock: 1 },
      { promptIds: ids, maxNewTokens: 2, decoding: greedy },
    ]);
    assertClose(out[0].pooledState, referenceMean(ids, 1), 'identity, block 1');
    assertClose(out[1].pooledState, referenceMean(ids, 0), 'identity, block 0');
    assertClose(out[2].pooledState, referenceMean(ids, 1, route), 'route [0,1,1,2,3], block 1');
    // Asked for by a request only: one that did not ask gets none.
    assert.equal(out[3].pooledState, undefined);
    // The block's output, not the embedding's: two blocks give two different states.
    assert.notDeepEqual(out[0].pooledState, out[1].pooledState);
  });

  it('gives the same bits alone, beside other requests of the prompt, and from the prefix store', async () => {
    const ids = promptIds(6, 8, spec.vocabSize);
    const pooled: GenerationRequest = { promptIds: ids, maxNewTokens: 3, decoding: greedy, pooledAfterBlock: 2 };
    const [alone] = await f.model.generate([pooled]);
    const sampled = Array.from({ length: 3 }, (_, s): GenerationRequest => ({ promptIds: ids, maxNewTokens: 3, decoding: { temperature: 1, topP: 1, seed: s } }));
    const beside = await f.model.generate([...sampled, pooled, { ...pooled, route: [0, 1, 2, 2, 3] }]);
    assert.deepEqual(beside[3].pooledState, alone.pooledState);
    assert.deepEqual(beside[3].tokens, alone.tokens);
    // Again after the prompt's earlier prefills were stored: the state is read from the store's rows.
    const [again] = await f.model.generate([pooled]);
    assert.deepEqual(again.pooledState, alone.pooledState);
  });

  it('refuses a block the route does not run, naming the field', async () => {
    const ids = promptIds(4, 2, spec.vocabSize);
    await assert.rejects(
      f.model.generate([{ promptIds: ids, route: [0, 1, 3], maxNewTokens: 1, decoding: greedy, pooledAfterBlock: 2 }]),
      (err: unknown) => err instanceof InputError && /request 0 pooledAfterBlock/.test(err.message),
    );
  });
});
