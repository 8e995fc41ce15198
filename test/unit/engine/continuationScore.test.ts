/**
 * Teacher-forced continuation scores (the search's gold-answer reward) against the independent
 * float64 reference: log p(c_j | prompt, c_<j) from the reference's last-position logits of each
 * prefix, under the identity and a skip route; and a score asked for while the engine is generating
 * waits for its step instead of interleaving with it (the outputs are those of a quiet engine).
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { type Fixture, fixture, promptIds } from './engineTestModels';
import { SMALL_SPECS } from '../../support/modelFolder';

function referenceLogProb(logits: Float64Array | Float32Array | number[], token: number): number {
  let max = -Infinity;
  for (const x of logits) if (x > max) max = x;
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  return logits[token] - max - Math.log(sum);
}

describe('continuation scores', () => {
  const [name, spec] = Object.entries(SMALL_SPECS)[0];
  let f: Fixture;
  before(async () => { f = await fixture(`${name}-score`, { ...spec, dtype: 'F32' }); });

  it('match the reference log-softmax of each prefix, identity and skip routes, with their cost', async () => {
    const L = spec.numBlocks;
    const prompt = promptIds(7, 3, spec.vocabSize);
    const continuation = promptIds(4, 9, spec.vocabSize);
    const skip = Array.from({ length: L }, (_, i) => i).filter((b) => b !== 1);
    const [plain, skipped] = await f.model.scoreContinuations([
      { promptIds: prompt, continuationIds: continuation },
      { promptIds: prompt, continuationIds: continuation, route: skip },
    ]);
    for (const [scored, route] of [[plain, undefined], [skipped, skip]] as const) {
      assert.equal(scored.logprobs.length, continuation.length);
      scored.logprobs.forEach((lp, j) => {
        const want = referenceLogProb(f.ref.lastLogits([...prompt, ...continuation.slice(0, j)], { route }), continuation[j]);
        assert.ok(Math.abs(lp - want) < 1e-3, `token ${j}: ${lp} vs ${want}`);
        assert.ok(lp <= 0);
      });
      // Prefixes of 7, 8, 9 and 10 tokens through the route.
      assert.equal(scored.blockApplications, (7 + 8 + 9 + 10) * (route ? route.length : L));
    }
  });

  it('a score asked for during generation waits for the step in flight; generation is unchanged', async () => {
    const prompt = promptIds(6, 5, spec.vocabSize);
    const request = { promptIds: prompt, maxNewTokens: 12, decoding: { temperature: 0, topP: 1, seed: 1 } };
    const [quiet] = await f.model.generate([request]);
    const during = f.model.generate([request]);
    const scores = await Promise.all([1, 2, 3].map((k) => f.model.scoreContinuations([{ promptIds: prompt, continuationIds: promptIds(k, k, spec.vocabSize) }])));
    const [busy] = await during;
    assert.deepEqual(busy.tokens, quiet.tokens);
    const [alone] = await f.model.scoreContinuations([{ promptIds: prompt, continuationIds: promptIds(2, 2, spec.vocabSize) }]);
    assert.deepEqual(scores[1][0].logprobs, alone.logprobs, 'the same score with or without generation around it');
  });
});
