/**
 * The residual perturbation against the float64 reference transformer: a generation with a
 * perturbation equals the reference's greedy decoding with the same vector (scale·‖h_t‖·u at each
 * touched token) added after the same block, for every position rule, also when perturbed and
 * unperturbed requests of one prompt share a batch (prefill sharing and the prefix store must keep
 * them apart, and every later block's KV cache must hold the perturbed stream).
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { logSoftmaxAt } from '../../support/logSoftmax';
import { InputError, perturbationDirection, type GenerationRequest, type ResidualPerturbation } from '../../../src/engine';
import { type Fixture, fixture, promptIds } from './engineTestModels';

function norm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

describe('residual perturbation', () => {
  let f: Fixture;
  const spec = SMALL_SPECS.qwen2;
  before(async () => { f = await fixture('residual-perturbation', spec); });

  /** The reference's option for the same perturbation, the vector built from its own residual. */
  function referenceAdd(p: ResidualPerturbation, promptLength: number) {
    const u = perturbationDirection(p.seed, spec.hiddenSize);
    return {
      block: p.afterBlock,
      vector(t: number, residual: Float64Array): Float64Array | null {
        const touched = p.positions === 'all' || (p.positions === 'prompt' ? t < promptLength : t >= promptLength - 1);
        if (!touched) return null;
        const length = p.scale * norm(residual);
        return u.map((x) => x * length);
      },
    };
  }

  it('draws a unit direction that depends on the seed only', () => {
    const a = perturbationDirection(7, 896);
    assert.ok(Math.abs(norm(a) - 1) < 1e-12);
    assert.deepEqual(perturbationDirection(7, 896), a);
    const b = perturbationDirection(8, 896);
    let dot = 0;
    for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
    // Two random unit vectors in 896 dimensions: |cos| is about 1/sqrt(896) = 0.033.
    assert.ok(Math.abs(dot) < 0.2, `cos ${dot}`);
  });

  it('equals the reference with the same vector added, for each block and position rule', async () => {
    const ids = promptIds(6, 3, spec.vocabSize);
    const maxNewTokens = 5;
    const greedy = { temperature: 0, topP: 1, seed: 0 };
    const cases: ResidualPerturbation[] = [];
    for (const positions of ['all', 'prompt', 'continuation'] as const) {
      for (const afterBlock of [0, 2]) cases.push({ afterBlock, seed: 11 + afterBlock, scale: 1.5, positions });
    }
    const requests: GenerationRequest[] = [
      { promptIds: ids, maxNewTokens, decoding: greedy },
      ...cases.map((perturbation) => ({ promptIds: ids, maxNewTokens, decoding: greedy, perturbation })),
    ];
    // One call: the unperturbed deployment and every perturbation share the prompt and the batch.
    const out = await f.model.generate(requests);
    const plain = f.ref.greedy([...ids], maxNewTokens, { eosIds: f.model.eosIds });
    assert.deepEqual(out[0].tokens, plain);
    let changed = 0;
    cases.forEach((p, c) => {
      const g = out[c + 1];
      const addAfter = referenceAdd(p, ids.length);
      const want = f.ref.greedy([...ids], maxNewTokens, { eosIds: f.model.eosIds, addAfter });
      assert.deepEqual(g.tokens, want, `perturbation ${JSON.stringify(p)}`);
      // And each token's log-probability, from the reference's full recomputation.
      g.tokens.forEach((tok, j) => {
        const logits = f.ref.lastLogits([...ids, ...g.tokens.slice(0, j)], { addAfter });
        const lp = logSoftmaxAt(logits, tok);
        assert.ok(Math.abs(g.logprobs[j] - lp) < 1e-3, `${JSON.stringify(p)} token ${j}: ${g.logprobs[j]} vs ${lp}`);
      });
      if (g.tokens.join(',') !== plain.join(',')) changed++;
    });
    // The vectors are large enough to move the output: a perturbation that was never added fails here.
    assert.ok(changed >= 3, `only ${changed} of ${cases.length} perturbations changed the output`);
  });

  it('gives each request alone the bits it gets in a shared batch', async () => {
    const ids = promptIds(5, 9, spec.vocabSize);
    const r: GenerationRequest = { promptIds: ids, maxNewTokens: 4, decoding: { temperature: 0, topP: 1, seed: 0 }, perturbation: { afterBlock: 1, seed: 3, scale: 0.8, positions: 'continuation' } };
    const [alone] = await f.model.generate([r]);
    const [again] = await f.model.generate([{ ...r, perturbation: undefined }, r]).then((g) => [g[1]]);
    assert.deepEqual(again.tokens, alone.tokens);
    assert.deepEqual(again.logprobs, alone.logprobs);
  });

  it('refuses a perturbation after a block the route does not run, naming the field', async () => {
    const ids = promptIds(4, 1, spec.vocabSize);
    await assert.rejects(
      f.model.generate([{ promptIds: ids, route: [0, 1, 3], maxNewTokens: 1, decoding: { temperature: 0, topP: 1, seed: 0 }, perturbation: { afterBlock: 2, seed: 1, scale: 0.1, positions: 'all' } }]),
      (err: unknown) => err instanceof InputError && /request 0 perturbation\.afterBlock/.test(err.message),
    );
    await assert.rejects(
      f.model.generate([{ promptIds: ids, maxNewTokens: 1, decoding: { temperature: 0, topP: 1, seed: 0 }, perturbation: { afterBlock: 0, seed: 1, scale: -1, positions: 'all' } }]),
      (err: unknown) => err instanceof InputError && /perturbation\.scale/.test(err.message),
    );
  });
});
