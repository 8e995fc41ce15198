/**
 * How the route scheduler shares block calls between sequences with different routes, and that
 * per-route-position KV caches survive batch changes (a finished sequence leaving the batch).
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { maxRelativeDifference } from '../../support/referenceTransformer';
import { type Fixture, TOLERANCE, fixture, promptIds } from './engineTestModels';

describe('route execution', () => {
  let f: Fixture;
  const spec = SMALL_SPECS.llama; // 4 blocks
  before(async () => { f = await fixture('routes-exec', spec); });

  // Prompts not used before, so no block output comes from the prefix store.
  let salt = 0;
  async function callsFor(routes: number[][]): Promise<number> {
    const before = f.model.stats.blockCalls;
    await f.model.forwardBatch(routes.map((route) => ({ ids: promptIds(4, 1000 + salt++, spec.vocabSize), route })));
    return f.model.stats.blockCalls - before;
  }

  it('runs sequences that share blocks in shared calls', async () => {
    assert.equal(await callsFor([[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]), 4);
    assert.equal(await callsFor([[0, 1, 2, 3], [0, 1, 3]]), 4); // block 2 alone, the rest shared
    assert.equal(await callsFor([[0, 1, 2, 3], [0, 1, 1, 2, 3]]), 5); // the repeat runs alone
    assert.equal(await callsFor([[0, 1, 2, 3], [0, 2, 1, 3]]), 5); // 0, 1, 2 shared; 1 again; 3 shared
  });

  it('keeps every sequence right when the batch shrinks mid-generation (KV rows gathered)', async () => {
    const requests = [
      { promptIds: promptIds(5, 1, spec.vocabSize), route: [0, 1, 1, 2, 3], maxNewTokens: 2, decoding: { temperature: 0, topP: 1, seed: 0 } },
      { promptIds: promptIds(3, 2, spec.vocabSize), route: [0, 2, 3], maxNewTokens: 6, decoding: { temperature: 0, topP: 1, seed: 0 } },
      { promptIds: promptIds(4, 3, spec.vocabSize), maxNewTokens: 4, decoding: { temperature: 0, topP: 1, seed: 0 } },
    ];
    const gathers = f.model.stats.kvGathers;
    const idle = f.model.stats.kvIdleRows;
    const out = await f.model.generate(requests);
    assert.ok(f.model.stats.kvGathers > gathers, 'expected the first decode step to gather the prompts\' KV rows');
    assert.ok(f.model.stats.kvIdleRows > idle, 'expected the rows of the sequence that left to run idle, not a regather');
    requests.forEach((r, i) => {
      const want = f.ref.greedy([...r.promptIds], r.maxNewTokens, { route: r.route, eosIds: f.model.eosIds });
      assert.deepEqual(out[i].tokens, want, `request ${i}`);
    });
    // And the logits after the batch shrank still match a full recomputation.
    const seq = [...requests[1].promptIds, ...out[1].tokens.slice(0, -1)];
    const last = f.ref.lastLogits(seq, { route: [0, 2, 3] });
    const lp = out[1].logprobs[out[1].logprobs.length - 1];
    let max = -Infinity;
    for (const x of last) max = Math.max(max, x);
    let s = 0;
    for (const x of last) s += Math.exp(x - max);
    const want = last[out[1].tokens[out[1].tokens.length - 1]] - max - Math.log(s);
    assert.ok(Math.abs(lp - want) < 1e-4, `${lp} vs ${want}`);
    assert.ok(maxRelativeDifference([lp], [want]) < TOLERANCE * 10);
  });

  it('moves a joining sequence into the row a finished one left (continuous refill), every sequence still right', async () => {
    const previous = f.model.maxBatch;
    f.model.maxBatch = 3;
    try {
      // Different limits so sequences leave one at a time and waiting ones take their places.
      const routes: (number[] | undefined)[] = [undefined, [0, 1, 1, 2, 3], [0, 2, 3], undefined, [0, 1, 3], [0, 2, 1, 3], undefined];
      const requests = routes.map((route, i) => ({
        promptIds: promptIds(3 + (i % 3), 10 + i, spec.vocabSize),
        route,
        maxNewTokens: 2 + ((i * 5) % 7),
        decoding: { temperature: 0, topP: 1, seed: 0 },
      }));
      const moves = f.model.stats.kvRowMoves;
      const out = await f.model.generate(requests);
      assert.ok(f.model.stats.kvRowMoves > moves, 'expected joining sequences to move into free rows');
      requests.forEach((r, i) => {
        const want = f.ref.greedy([...r.promptIds], r.maxNewTokens, { route: r.route, eosIds: f.model.eosIds });
        assert.deepEqual(out[i].tokens, want, `request ${i}`);
      });
      // Bit for bit what each request gets alone.
      for (const [i, r] of requests.entries()) {
        const [alone] = await f.model.generate([r]);
        assert.deepEqual(alone.logprobs, out[i].logprobs, `request ${i} alone`);
      }
    } finally {
      f.model.maxBatch = previous;
    }
  });
});
