/**
 * KV-cached batched generation against full recomputation: greedy tokens equal the reference's
 * token by token (identity, a repeating route, silenced MLPs), each step's log-prob equals the
 * log-softmax of the reference logits for that prefix, and a sequence's output never depends on
 * its batch-mates. Also: stop rules, cost counters, seeds, cancellation and bad requests.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';
import { type Fixture, cacheDir, fixture, promptIds, testRoot } from './engineTestModels';
import { logSoftmaxAt } from '../../support/logSoftmax';
import { InputError, type Generation, type GenerationRequest, type Model, loadModel } from '../../../src/engine';

const greedy = { temperature: 0, topP: 1, seed: 0 };

for (const name of ['llama', 'qwen3', 'qwen2', 'mistral', 'mistralWindow']) {
  const spec = SMALL_SPECS[name];
  describe(`generation: ${name}`, () => {
    let f: Fixture;
    before(async () => { f = await fixture(`gen-${name}`, spec); });
    const L = spec.numBlocks;
    const identity = Array.from({ length: L }, (_, i) => i);
    const routes: { label: string; route?: number[]; silencedMlp?: number[] }[] = [
      { label: 'identity' },
      { label: 'route repeating block 1 and skipping the last', route: [0, 1, 1, ...identity.slice(2, L - 1)] },
      { label: 'silenced MLP 1', silencedMlp: [1] },
    ];
    for (const r of routes) {
      it(`greedy KV-cached decoding equals full recomputation: ${r.label}`, async () => {
        const prompt = promptIds(6, 5, spec.vocabSize);
        const [g] = await f.model.generate([{ promptIds: prompt, route: r.route, silencedMlp: r.silencedMlp, maxNewTokens: 8, decoding: greedy }]);
        const want = f.ref.greedy(prompt, 8, { route: r.route, silencedMlp: r.silencedMlp, eosIds: f.model.eosIds });
        assert.deepEqual(g.tokens, want);
        // Per step: the recorded log-prob is the log-softmax of the full-recomputation logits.
        const seq = [...prompt];
        g.tokens.forEach((t, step) => {
          const logits = f.ref.lastLogits(seq, { route: r.route, silencedMlp: r.silencedMlp });
          const lp = logSoftmaxAt(logits, t);
          assert.ok(Math.abs(g.logprobs[step] - lp) < 1e-4 * Math.max(1, Math.abs(lp)), `step ${step}: ${g.logprobs[step]} vs ${lp}`);
          seq.push(t);
        });
        const routeLength = r.route?.length ?? L;
        assert.deepEqual(g.cost, { generatedTokens: g.tokens.length, blockApplications: routeLength * (prompt.length + g.tokens.length) });
        assert.equal(g.finishReason, f.model.eosIds.includes(g.tokens[g.tokens.length - 1]) ? 'stop' : 'length');
      });
    }

    it('gives a sequence the same tokens alone and inside a mixed, padded batch', async () => {
      const requests: GenerationRequest[] = [
        { promptIds: promptIds(3, 7, spec.vocabSize), maxNewTokens: 6, decoding: { temperature: 1, topP: 0.9, seed: 42 } },
        { promptIds: promptIds(8, 8, spec.vocabSize), route: [0, 0, ...identity.slice(1)], maxNewTokens: 4, decoding: greedy },
        { promptIds: promptIds(5, 9, spec.vocabSize), route: identity.slice().reverse(), silencedMlp: [0], maxNewTokens: 7, decoding: { temperature: 0.7, topP: 1, seed: 7 } },
        { promptIds: promptIds(2, 10, spec.vocabSize), maxNewTokens: 0, decoding: greedy },
      ];
      const together = await f.model.generate(requests);
      for (let i = 0; i < requests.length; i++) {
        const [alone] = await f.model.generate([requests[i]]);
        assert.deepEqual(together[i].tokens, alone.tokens, `request ${i}`);
        assert.equal(together[i].finishReason, alone.finishReason);
        together[i].logprobs.forEach((lp, j) => assert.ok(Math.abs(lp - alone.logprobs[j]) < 1e-4));
      }
      assert.deepEqual(together[3], { tokens: [], text: '', logprobs: [], finishReason: 'length', cost: { generatedTokens: 0, blockApplications: L * 2 } });
    });

    // Bit for bit, not within a tolerance: auditing a question alone has to reproduce its record
    // exactly. This holds because every product computes each row the same way whatever the
    // number of rows, and the attention of a sequence runs over its own length (see blockGraph.ts).
    it('gives a sequence the same tokens and log-probs, bit for bit, alone and in a batch of the same prompt length', async () => {
      const prompt = promptIds(6, 11, spec.vocabSize);
      const requests: GenerationRequest[] = [
        { promptIds: prompt, maxNewTokens: 5, decoding: greedy },
        { promptIds: prompt, route: [0, 0, ...identity.slice(1)], maxNewTokens: 3, decoding: { temperature: 1, topP: 0.9, seed: 3 } },
        { promptIds: prompt, silencedMlp: [L - 1], maxNewTokens: 6, decoding: { temperature: 0.8, topP: 1, seed: 4 } },
        { promptIds: prompt, route: identity.slice().reverse(), maxNewTokens: 4, decoding: greedy },
      ];
      const together = await f.model.generate(requests);
      for (let i = 0; i < requests.length; i++) {
        const [alone] = await f.model.generate([requests[i]]);
        assert.deepEqual(together[i].tokens, alone.tokens, `request ${i}`);
        assert.deepEqual(together[i].logprobs, alone.logprobs, `request ${i} log-probs`);
      }
    });

    // Each sequence's caches start at slot 0 and the attention reads only its own length, so
    // neither batch-mates' prompt lengths, nor joining a running batch (continuous refill), nor
    // a shared, once-prefilled prompt change a single bit.
    it('gives a sequence the same tokens and log-probs, bit for bit, alone and among other prompt lengths, refills and shared prompts', async () => {
      const shared = promptIds(7, 12, spec.vocabSize);
      const requests: GenerationRequest[] = [
        { promptIds: promptIds(3, 13, spec.vocabSize), maxNewTokens: 9, decoding: greedy },
        { promptIds: shared, maxNewTokens: 4, decoding: { temperature: 1, topP: 1, seed: 1 } },
        { promptIds: promptIds(11, 14, spec.vocabSize), route: [0, 0, ...identity.slice(1)], maxNewTokens: 6, decoding: greedy },
        { promptIds: shared, maxNewTokens: 7, decoding: { temperature: 1, topP: 1, seed: 2 } },
        { promptIds: shared, silencedMlp: [0], maxNewTokens: 5, decoding: greedy },
        { promptIds: shared, maxNewTokens: 6, decoding: { temperature: 0.9, topP: 0.8, seed: 3 } },
        { promptIds: promptIds(2, 15, spec.vocabSize), maxNewTokens: 3, decoding: { temperature: 1, topP: 1, seed: 4 } },
      ];
      const narrow = await loadModel(f.written.dir, { cacheDir, threads: 1, maxBatch: 3 });
      try {
        let prefillRows = 0;
        narrow.onStep = (s) => { if (s.prefill) prefillRows += s.batch; };
        const together = await narrow.generate(requests);
        // 7 requests, 5 distinct (prompt, route, silenced): the 3 samples of `shared` share one prefill.
        assert.equal(prefillRows, 5);
        for (let i = 0; i < requests.length; i++) {
          const [alone] = await f.model.generate([requests[i]]);
          assert.deepEqual(together[i].tokens, alone.tokens, `request ${i}`);
          assert.deepEqual(together[i].logprobs, alone.logprobs, `request ${i} log-probs`);
        }
        const wide = await f.model.generate(requests);
        wide.forEach((g, i) => assert.deepEqual(g, together[i], `request ${i} with room for all`));
      } finally {
        await narrow.dispose();
      }
    });
  });
}

describe('generation: sampling, stops, errors', () => {
  let f: Fixture;
  before(async () => { f = await fixture('gen-sampling', SMALL_SPECS.qwen2); });
  const V = SMALL_SPECS.qwen2.vocabSize;
  const prompt = promptIds(5, 1, V);
  const sample = (seed: number, topP = 1): GenerationRequest => ({ promptIds: prompt, maxNewTokens: 12, decoding: { temperature: 1.5, topP, seed } });

  it('same seed gives the same sample; other seeds differ', async () => {
    const [a, b, c, d] = await f.model.generate([sample(1), sample(1), sample(2), sample(3)]);
    assert.deepEqual(a.tokens, b.tokens);
    assert.deepEqual(a.logprobs, b.logprobs);
    assert.ok(a.tokens.join() !== c.tokens.join() || a.tokens.join() !== d.tokens.join(), 'seeds 1, 2, 3 all gave the same sample');
    assert.notDeepEqual(c.tokens, d.tokens);
  });

  it('stops on an eos id from generation_config.json, keeping the eos token', async () => {
    const [g] = await f.model.generate([{ promptIds: prompt, maxNewTokens: 6, decoding: greedy }]);
    // The first greedy token after position 0 not seen before becomes the eos id.
    const at = g.tokens.findIndex((t, i) => i > 0 && !g.tokens.slice(0, i).includes(t));
    assert.ok(at > 0, `greedy tokens ${g.tokens} never change`);
    const eos = g.tokens[at];
    const dir = path.join(testRoot, 'models', 'gen-eos');
    writeRandomModel(dir, SMALL_SPECS.qwen2);
    fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [eos] }));
    const m = await loadModel(dir, { cacheDir, threads: 1 });
    try {
      const [s] = await m.generate([{ promptIds: prompt, maxNewTokens: 6, decoding: greedy }]);
      assert.deepEqual(s.tokens, g.tokens.slice(0, at + 1));
      assert.equal(s.finishReason, 'stop');
      assert.equal(s.cost.generatedTokens, at + 1);
    } finally {
      await m.dispose();
    }
  });

  it('stops at a stop string and cuts the text there', async () => {
    const [g] = await f.model.generate([{ promptIds: prompt, maxNewTokens: 6, decoding: greedy }]);
    const full = f.model.decode(g.tokens);
    const stop = full.slice(Math.floor(full.length / 2), Math.floor(full.length / 2) + 2);
    assert.ok(stop.length > 0, 'the greedy text is empty');
    const [s] = await f.model.generate([{ promptIds: prompt, maxNewTokens: 6, decoding: greedy, stop: ['never-there', stop] }]);
    assert.equal(s.finishReason, 'stop');
    assert.equal(s.text, full.slice(0, full.indexOf(stop)));
    assert.ok(s.tokens.length <= g.tokens.length);
    assert.deepEqual(s.tokens, g.tokens.slice(0, s.tokens.length));
  });

  it('honours an AbortSignal', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(f.model.generate([sample(1)], controller.signal), { name: 'AbortError' });
  });

  it('rejects bad requests with an InputError naming the field', async () => {
    const bad: [Partial<GenerationRequest>, RegExp][] = [
      [{ route: [] }, /request 0 route/],
      [{ route: [0, 9] }, /request 0 route\[1\]: block index 9 is out of range/],
      [{ silencedMlp: [-1] }, /request 0 silencedMlp/],
      [{ promptIds: [] }, /request 0 promptIds/],
      [{ promptIds: [V + 1] }, /out of range/],
      [{ maxNewTokens: 1.5 }, /maxNewTokens/],
      [{ decoding: { temperature: -1, topP: 1, seed: 0 } }, /temperature/],
      [{ decoding: { temperature: 1, topP: 0, seed: 0 } }, /topP/],
    ];
    for (const [patch, message] of bad) {
      await assert.rejects(f.model.generate([{ ...sample(1), ...patch }]), (err: unknown) => err instanceof InputError && message.test(err.message));
    }
    await assert.rejects(f.model.forward([1, 2], { route: [4] }), (err: unknown) => err instanceof InputError && /route/.test(err.message));
  });
});

// The model's one queue: calls made while others run share their batches, lower priorities are
// served first, a cancelled call leaves the others untouched, and none of it changes a bit.
describe('generation: one queue for concurrent calls', () => {
  let f: Fixture;
  before(async () => { f = await fixture('gen-queue', SMALL_SPECS.llama); });
  const V = SMALL_SPECS.llama.vocabSize;
  const L = SMALL_SPECS.llama.numBlocks;
  const requestsOf = (call: number): GenerationRequest[] => [
    { promptIds: promptIds(3 + call, 20 + call, V), maxNewTokens: 4 + call, decoding: greedy },
    { promptIds: promptIds(5, 30 + call, V), route: [0, 0, ...Array.from({ length: L - 1 }, (_, i) => i + 1)], maxNewTokens: 6, decoding: { temperature: 1, topP: 0.9, seed: call } },
    { promptIds: promptIds(5, 30 + call, V), maxNewTokens: 3, decoding: { temperature: 1, topP: 1, seed: 100 + call } },
  ];

  it('concurrent calls share steps and give each sequence its numbers alone, bit for bit', async () => {
    const alone: Generation[] = [];
    for (let c = 0; c < 4; c++) for (const r of requestsOf(c)) alone.push((await f.model.generate([r]))[0]);
    let steps = 0;
    let widest = 0;
    f.model.onStep = (s) => { steps++; widest = Math.max(widest, s.batch); };
    try {
      const together = (await Promise.all([0, 1, 2, 3].map((c) => f.model.generate(requestsOf(c), undefined, { priority: c })))).flat();
      together.forEach((g, i) => assert.deepEqual(g, alone[i], `sequence ${i}`));
    } finally {
      f.model.onStep = undefined;
    }
    assert.ok(widest > 3, `the calls shared a step (widest step ${widest} sequences)`);
    assert.ok(steps < 4 * 10, `${steps} steps for 4 calls of up to 7 tokens`);
  });

  // Places free one at a time under continuous batching; the routes of one question (one prompt)
  // waiting for them are prefilled together with the first, not one call each.
  it('prefills waiting prompts of the same length in one call and parks them until a place frees, bit for bit', async () => {
    const prompt = promptIds(6, 40, V);
    const identity = Array.from({ length: L }, (_, i) => i);
    const requests: GenerationRequest[] = [
      ...identity.map((b): GenerationRequest => ({ promptIds: prompt, silencedMlp: [b], maxNewTokens: 3 + b, decoding: greedy })),
      ...identity.map((b): GenerationRequest => ({ promptIds: prompt, route: identity.filter((x) => x !== b), maxNewTokens: 2 + ((b * 3) % 5), decoding: greedy })),
      { promptIds: prompt, route: [0, 0, ...identity.slice(1)], maxNewTokens: 5, decoding: greedy },
      // Another length: never prefilled beside the others (it would be padded).
      { promptIds: promptIds(9, 41, V), maxNewTokens: 2, decoding: greedy },
    ];
    const alone: Generation[] = [];
    for (const r of requests) alone.push((await f.model.generate([r]))[0]);
    const narrow = await loadModel(f.written.dir, { cacheDir, threads: 1, maxBatch: 3 });
    try {
      const prefills: number[] = [];
      let decodeSteps = 0;
      narrow.onStep = (s) => { if (s.prefill) prefills.push(s.batch); else decodeSteps++; };
      const together = await narrow.generate(requests);
      together.forEach((g, i) => assert.deepEqual(g, alone[i], `request ${i}`));
      // The queue's profile (the bench's account of an audit's time): each first token comes from
      // a prefill, every later one from a decode step; its clock covers its steps and choices.
      await new Promise((resolve) => setImmediate(resolve)); // the loop stops at its next turn
      const p = narrow.schedulerProfile;
      assert.equal(p.prefillSteps, prefills.length);
      assert.equal(p.prefillRows, prefills.reduce((a, b) => a + b, 0));
      assert.equal(p.decodeSteps, decodeSteps);
      assert.equal(p.decodeRows, together.reduce((n, g) => n + g.tokens.length, 0) - requests.length);
      assert.ok(p.prefillMs > 0 && p.decodeMs > 0 && p.chooseMs > 0);
      assert.ok(p.runningMs >= p.prefillMs + p.decodeMs + p.chooseMs, JSON.stringify(p));
      // 2L + 1 same-length prompts and one other: each prefilled once; a place freeing admits one
      // and prefills up to maxBatch - 1 more to wait (at most maxBatch waiting), so far fewer
      // calls than one per prompt; no call carries more than maxBatch prompts.
      const sameLength = 2 * L + 1;
      assert.equal(prefills.reduce((a, b) => a + b, 0), sameLength + 1, `prefilled rows ${prefills.join(', ')}`);
      assert.ok(Math.max(...prefills) <= 3, `no call prefills more than maxBatch prompts: ${prefills.join(', ')}`);
      assert.ok(prefills.length <= Math.ceil((sameLength + 1) / 3) + 1, `${prefills.length} prefill calls for ${sameLength + 1} prompts: ${prefills.join(', ')}`);

      // A call cancelled while its prompts wait prefilled leaves nothing behind.
      const controller = new AbortController();
      let steps = 0;
      narrow.onStep = () => { if (++steps === 2) controller.abort(); }; // after the first prefill and decode step
      const cancelled = narrow.generate(requests.map((r) => ({ ...r, maxNewTokens: 40 })), controller.signal);
      await assert.rejects(cancelled, { name: 'AbortError' });
      narrow.onStep = undefined;
      assert.deepEqual(await narrow.generate(requests), together);
      assert.deepEqual(narrow.load, { running: 0, waiting: 0 });
    } finally {
      await narrow.dispose();
    }
  });

  // A question's deployment, its routes up to where each leaves the identity and a silenced MLP up
  // to its block compute the same numbers for the prompt: each such block runs once in the prefill.
  const sharing = (prompt: number[], other: number[]): GenerationRequest[] => {
    const identity = Array.from({ length: L }, (_, i) => i);
    return [
      { promptIds: prompt, maxNewTokens: 4, decoding: greedy },
      { promptIds: prompt, route: [0, 1, 1, ...identity.slice(2)], maxNewTokens: 5, decoding: greedy },
      { promptIds: prompt, route: identity.slice(0, L - 1), maxNewTokens: 3, decoding: greedy },
      { promptIds: prompt, silencedMlp: [L - 1], maxNewTokens: 6, decoding: { temperature: 1, topP: 0.9, seed: 5 } },
      { promptIds: other, maxNewTokens: 4, decoding: greedy },
    ];
  };
  // Shared with the identity: blocks 0-1 of the repeating route, the first L - 1 blocks of the
  // route without the last and of the silenced last MLP; the other prompt shares nothing.
  const SHARED_WITH_IDENTITY = 2 + (L - 1) + (L - 1);

  /** Runs `check` with a second copy of the model that keeps no prefix store. */
  async function withoutStore(check: (plain: Model) => Promise<void>): Promise<void> {
    const plain = await loadModel(f.written.dir, { cacheDir, threads: 1, prefixStoreBytes: 0 });
    try {
      await check(plain);
    } finally {
      await plain.dispose();
    }
  }

  async function oneAtATime(model: Model, requests: readonly GenerationRequest[]): Promise<Generation[]> {
    const out: Generation[] = [];
    for (const r of requests) out.push((await model.generate([r]))[0]);
    return out;
  }

  it('prompts with the same tokens in one call run their shared leading blocks once, bit for bit', async () => {
    await withoutStore(async (plain) => {
      const requests = sharing(promptIds(7, 50, V), promptIds(7, 51, V));
      const alone = await oneAtATime(plain, requests);
      assert.equal(plain.stats.sharedPrefixRows + plain.stats.storedPrefixRows, 0, 'one request at a time shares nothing without the store');
      const together = await plain.generate(requests);
      together.forEach((g, i) => assert.deepEqual(g, alone[i], `request ${i}`));
      assert.equal(plain.stats.sharedPrefixRows, SHARED_WITH_IDENTITY);
      assert.equal(plain.stats.storedPrefixRows, 0);
    });
  });

  it('a later prefill of the same prompt starts after the blocks an earlier one stored, bit for bit', async () => {
    await withoutStore(async (plain) => {
      const requests = sharing(promptIds(7, 60, V), promptIds(7, 61, V));
      const want = await oneAtATime(plain, requests);
      const stored = f.model.stats.storedPrefixRows;
      for (const [i, r] of requests.entries()) assert.deepEqual((await f.model.generate([r]))[0], want[i], `request ${i} alone`);
      assert.equal(f.model.stats.storedPrefixRows - stored, SHARED_WITH_IDENTITY);
      // Now every route of both prompts is stored whole: no block runs in their prefills.
      const calls = f.model.stats.blockCalls;
      const again = await f.model.generate(requests.map((r) => ({ ...r, maxNewTokens: 1 })));
      assert.equal(f.model.stats.blockCalls, calls, 'no block call');
      again.forEach((g, i) => assert.deepEqual(g.logprobs, want[i].logprobs.slice(0, 1), `request ${i} from the store`));
    });
  });

  it('serves lower priorities first when the batch is full', async () => {
    const narrow = await loadModel(f.written.dir, { cacheDir, threads: 1, maxBatch: 1 });
    try {
      const finished: number[] = [];
      const one = (priority: number) => narrow.generate([{ promptIds: promptIds(4, priority, V), maxNewTokens: 2, decoding: greedy }], undefined, { priority }).then(() => finished.push(priority));
      await Promise.all([one(5), one(3), one(9), one(1)]);
      assert.deepEqual(finished, [1, 3, 5, 9]);
    } finally {
      await narrow.dispose();
    }
  });

  it('a long prefill whose only caller cancels stops at the next block call, and leaves nothing wrong behind', async () => {
    // 8 passes through every block over a 300-token prompt: 8 L block calls if it ran to the end.
    const route = Array.from({ length: 8 * L }, (_, i) => i % L);
    const request: GenerationRequest = { promptIds: promptIds(300, 11, V), route, maxNewTokens: 3, decoding: greedy };
    const before = f.model.stats.blockCalls;
    const controller = new AbortController();
    const cancelled = f.model.generate([request], controller.signal);
    while (f.model.stats.blockCalls === before) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await assert.rejects(cancelled, { name: 'AbortError' });
    // The executor runs one step at a time: a forward pass queued now starts once the prefill stopped.
    await f.model.forward([V - 1, V - 2, V - 3], {});
    const ran = f.model.stats.blockCalls - before - L;
    assert.ok(ran <= 2, `${ran} of ${8 * L} block calls ran after the cancel was seen`);
    assert.deepEqual(f.model.load, { running: 0, waiting: 0 });
    // What the stopped prefill stored (its first blocks' states) is right: the same request, run to the
    // end now, gives the reference's tokens.
    const [g] = await f.model.generate([request]);
    assert.deepEqual(g.tokens, f.ref.greedy([...request.promptIds], 3, { route, eosIds: f.model.eosIds }));
  });

  it('a cancelled call is rejected at once and the others finish unchanged', async () => {
    const controller = new AbortController();
    const want = await f.model.generate(requestsOf(1));
    const cancelled = f.model.generate(requestsOf(2).map((r) => ({ ...r, maxNewTokens: 50 })), controller.signal);
    const other = f.model.generate(requestsOf(1));
    setImmediate(() => controller.abort());
    await assert.rejects(cancelled, { name: 'AbortError' });
    assert.deepEqual(await other, want);
    assert.deepEqual(f.model.load, { running: 0, waiting: 0 });
  });
});
