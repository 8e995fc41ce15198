/**
 * Continuations (`continues`) that start from a finished generation's kept state (`keepState`): on
 * a real engine model against the float64 reference, a continuation computes only its own tokens
 * (no prefill, block applications for the forced token and what it generates), gives the tokens of
 * a fresh generation from that prefix, reproduces the generation itself when it forces the token
 * the generation chose, and gets the same numbers whether the state was kept or had to be computed
 * again; the store is bounded and drops the least recently used state first.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { type Fixture, fixture, promptIds } from './engineTestModels';
import { InputError, type Generation, type GenerationRequest } from '../../../src/engine';
import { KeptStates } from '../../../src/engine/decode/keptStates';
import { KvBuffer, KvCache } from '../../../src/engine/decode/kvCache';
import { SequenceSlot } from '../../../src/engine/decode/routeExecutor';

const greedy = { temperature: 0, topP: 1, seed: 0 };
const sampled = { temperature: 1, topP: 1, seed: 7 };

describe('continuations from a kept state (real model, float64 reference)', () => {
  const spec = SMALL_SPECS.llama;
  let f: Fixture;
  before(async () => { f = await fixture('kept-llama', spec); });

  const deploy = async (prompt: number[], keepState: boolean): Promise<Generation> => {
    const [g] = await f.model.generate([{ promptIds: prompt, maxNewTokens: 12, decoding: greedy, ...(keepState ? { keepState } : {}) }]);
    assert.ok(g.tokens.length >= 6, 'the deployed output is long enough to fork inside');
    return g;
  };
  const branch = (prompt: number[], dep: Generation, position: number, token: number, decoding = greedy, maxNewTokens = 5): GenerationRequest => ({
    promptIds: [...prompt, ...dep.tokens.slice(0, position), token],
    maxNewTokens,
    decoding,
    continues: { promptTokens: prompt.length, generatedTokens: position },
  });
  const alternative = (dep: Generation, position: number) => (dep.tokens[position] + 1) % (spec.vocabSize - 8);

  it('computes only its own tokens from the kept state: no prefill, block applications for the forced token and what it generates', async () => {
    const prompt = promptIds(7, 11, spec.vocabSize);
    const dep = await deploy(prompt, true);
    const L = spec.numBlocks;
    const position = 4;
    const kept = f.model.keptStates;
    assert.ok(kept.bytes > 0, 'the deployed state is kept');
    const ran = f.model.stats.blockTokens;
    const prefills = f.model.schedulerProfile.prefillSteps;
    const [g] = await f.model.generate([branch(prompt, dep, position, alternative(dep, position))]);
    assert.equal(f.model.keptStates.hits, kept.hits + 1, 'the continuation found the kept state');
    assert.equal(f.model.schedulerProfile.prefillSteps, prefills, 'nothing was prefilled');
    // Fed: the forced token, then each generated token but the last (the prompt and the prefix: none).
    assert.equal(f.model.stats.blockTokens - ran, L * g.tokens.length);
    assert.equal(g.cost.blockApplications, L * (1 + g.tokens.length), 'charged for the forced token and the generated ones only');

    // The same request on a prompt whose generation kept nothing computes the prefix again, token by
    // token (its prompt comes from the prompt prefix store).
    const other = promptIds(7, 12, spec.vocabSize);
    const plain = await deploy(other, false);
    const ranAgain = f.model.stats.blockTokens;
    const [h] = await f.model.generate([branch(other, plain, position, alternative(plain, position))]);
    assert.equal(f.model.stats.blockTokens - ranAgain, L * (position + h.tokens.length));
    assert.equal(h.cost.blockApplications, L * (1 + h.tokens.length), 'the charge does not depend on what was kept');
  });

  it('gives the tokens of a fresh generation from that prefix, and the reference greedy continuation', async () => {
    const prompt = promptIds(6, 13, spec.vocabSize);
    const dep = await deploy(prompt, true);
    for (const position of [0, 2, 5]) {
      const asked = branch(prompt, dep, position, alternative(dep, position));
      const hits = f.model.keptStates.hits;
      const [fromKept] = await f.model.generate([asked]);
      assert.equal(f.model.keptStates.hits, hits + 1);
      const { continues: _, ...freshAsked } = asked;
      const [fresh] = await f.model.generate([freshAsked]);
      assert.deepEqual(fromKept.tokens, fresh.tokens, `position ${position}: the tokens of a fresh generation from the prefix`);
      fromKept.logprobs.forEach((lp, i) => assert.ok(Math.abs(lp - fresh.logprobs[i]) < 1e-5, `position ${position}, token ${i}: ${lp} vs ${fresh.logprobs[i]}`));
      const want = f.ref.greedy([...asked.promptIds], asked.maxNewTokens, { eosIds: f.model.eosIds });
      assert.deepEqual(fromKept.tokens, want.slice(0, fromKept.tokens.length), `position ${position}: the reference's greedy continuation`);
    }
  });

  it("reproduces the generation itself, bit for bit, when it forces the token the generation chose", async () => {
    const prompt = promptIds(8, 14, spec.vocabSize);
    const dep = await deploy(prompt, true);
    const position = 3;
    const [g] = await f.model.generate([branch(prompt, dep, position, dep.tokens[position], greedy, dep.tokens.length - position - 1)]);
    assert.deepEqual(g.tokens, dep.tokens.slice(position + 1));
    assert.deepEqual(g.logprobs, dep.logprobs.slice(position + 1));
  });

  it('gets the same numbers, greedy and sampled, whether the state was kept or computed again', async () => {
    const prompt = promptIds(9, 15, spec.vocabSize);
    const position = 3;
    const run = async (keep: boolean) => {
      const dep = await deploy(prompt, keep);
      const misses = f.model.keptStates.misses;
      const out = await f.model.generate([branch(prompt, dep, position, alternative(dep, position)), branch(prompt, dep, position, alternative(dep, position), sampled, 8)]);
      return { out, missed: f.model.keptStates.misses - misses };
    };
    const computed = await run(false);
    const fromKept = await run(true);
    assert.equal(computed.missed, 2, 'nothing kept: both computed the prompt and prefix again');
    assert.equal(fromKept.missed, 0);
    assert.deepEqual(fromKept.out, computed.out);
  });

  it('refuses a continuation that adds nothing or asks for a pooled state, naming the field', async () => {
    const prompt = promptIds(5, 16, spec.vocabSize);
    await assert.rejects(f.model.generate([{ promptIds: prompt, maxNewTokens: 2, decoding: greedy, continues: { promptTokens: 3, generatedTokens: 2 } }]), (e: Error) => e instanceof InputError && /request 0 continues: .* at least one of the 5 prompt ids to add, got 3 and 2/.test(e.message));
    await assert.rejects(f.model.generate([{ promptIds: prompt, maxNewTokens: 2, decoding: greedy, continues: { promptTokens: 3, generatedTokens: 0 }, pooledAfterBlock: 0 }]), (e: Error) => e instanceof InputError && /pooledAfterBlock/.test(e.message));
  });
});

describe('kept states store', () => {
  const slotOf = (length: number): SequenceSlot => {
    const slot = new SequenceSlot([0], new Set());
    const buffer = new KvBuffer(1, 1, 16, 8);
    slot.kv[0] = new KvCache(buffer, 0, length);
    buffer.owner[0] = slot.kv[0];
    slot.promptLength = 2;
    slot.length = length;
    return slot;
  };
  const bytesOf = (length: number) => 2 * 1 * length * 8 * 4;

  it('keeps states within its budget, drops the least recently used first, and resumes at the longest match', () => {
    const store = new KeptStates(() => 2 * bytesOf(6));
    store.keep('a', slotOf(6), [1, 2, 3, 4]);
    store.keep('b', slotOf(6), [5, 6, 7, 8]);
    assert.equal(store.usedBytes, 2 * bytesOf(6));
    assert.ok(store.resume('a', [1, 2, 9], 2), 'a is kept (and now the most recently used)');
    store.keep('c', slotOf(6), [1, 1, 1, 1]);
    assert.equal(store.usedBytes, 2 * bytesOf(6), 'within the budget');
    assert.equal(store.resume('b', [5, 6, 7], 2), null, 'b, least recently used, was dropped');
    const r = store.resume('a', [1, 2, 3, 9, 9], 4);
    assert.ok(r);
    assert.equal(r.fed, 3, 'the longest run of the forced tokens the state fed');
    assert.equal(r.slot.length, 2 + 3);
    assert.equal(r.slot.kv[0]?.length, 5);
    assert.equal(r.slot.kv[0]?.ownsRow, false, 'the continuation copies the state on its first write');
    assert.equal(store.resume('a', [1, 2, 3, 4, 5], 1)?.fed, 1, 'never more than it is allowed to take');
    assert.equal(store.hits, 3);
    assert.equal(store.misses, 1);
  });

  it('keeps nothing over the budget', () => {
    const store = new KeptStates(() => bytesOf(6) - 1);
    store.keep('a', slotOf(6), [1, 2, 3, 4]);
    assert.equal(store.usedBytes, 0);
    assert.equal(store.resume('a', [1], 0), null);
  });
});
