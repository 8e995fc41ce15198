/**
 * The fork probe: how B is spent, which positions each arm forks at, and, on a real engine model
 * against the float64 reference, that a branch starts with the forced alternative after exactly the
 * deployed prefix and continues as a fresh greedy generation from that prefix does (KV-correct,
 * whatever shares its batch), starting from the deployed sequence's own caches; the run summary's counts and when it gives a paired verdict.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { type Fixture, fixture, promptIds } from '../engine/engineTestModels';
import { InputError, type GenerationRequest } from '../../../src/engine';
import { chooseSites, deployedTokensOf, forkPlan, forkProbe, forkSites, type ForkSite } from '../../../src/audit/runner/forkProbe';
import { forkSummary, forkTransition } from '../../../src/audit/results/forkSummary';
import { questionRecordSchema } from '../../../src/audit/store/runFileSchemas';
import { seededRandom } from '../../../src/audit/stats';
import { DEFAULT_DEPLOYMENT } from '../../../src/audit/probes';
import type { Deployment, ForkResult, ForkTry } from '../../../src/contract';
import { testRecord, deployed } from '../../support/questionRecord';
import * as v from 'valibot';

describe('fork plan', () => {
  it('spends B on two arms, B/4 positions each, as many alternatives as fit (at most 3)', () => {
    assert.deepEqual(forkPlan(8), { budget: 8, positions: 2, alternatives: 1, k: 4 });
    assert.deepEqual(forkPlan(16), { budget: 16, positions: 4, alternatives: 1, k: 4 });
    assert.deepEqual(forkPlan(16, 2), { budget: 16, positions: 2, alternatives: 2, k: 4 });
    assert.deepEqual(forkPlan(40, 1), { budget: 40, positions: 1, alternatives: 3, k: 4 });
  });
  it('refuses a budget under 4 and more positions than B pays for, naming the flag and the bound', () => {
    assert.throws(() => forkPlan(3), (e: Error) => e instanceof InputError && /--fork-probe 3: expected at least 4/.test(e.message));
    assert.throws(() => forkPlan(8, 3), (e: Error) => e instanceof InputError && /--fork-positions 3: .* 12 generations .* lower --fork-positions to at most 2/.test(e.message));
  });
});

const site = (position: number, entropy: number): ForkSite => ({ position, entropy, deployed: { token: 1, text: 'a', logprob: -0.1 }, alternatives: [{ token: 2, text: 'b', logprob: -2 }] });

describe('fork sites', () => {
  it('gives the entropy arm the highest-entropy sites (ties: the earlier) and the random arm a seeded draw, in order of position', () => {
    const sites = [site(0, 0.1), site(1, 2.0), site(2, 0.5), site(3, 2.0), site(4, 0.01), site(5, 1.0)];
    const a = chooseSites(sites, 2, seededRandom(1, 'q', 'fork-positions'));
    const b = chooseSites(sites, 2, seededRandom(1, 'q', 'fork-positions'));
    assert.deepEqual(a, b, 'deterministic per question');
    assert.deepEqual(a.filter((c) => c.arms.includes('entropy')).map((c) => c.site.position), [1, 3]);
    assert.equal(a.filter((c) => c.arms.includes('random')).length, 2);
    assert.deepEqual(a.map((c) => c.site.position), [...a.map((c) => c.site.position)].sort((x, y) => x - y));
    // Over many seeds the random arm reaches every site.
    const seen = new Set<number>();
    for (let s = 0; s < 60; s++) for (const c of chooseSites(sites, 2, seededRandom(s, 'q'))) if (c.arms.includes('random')) seen.add(c.site.position);
    assert.equal(seen.size, sites.length);
  });

  it('leaves out positions with no room to continue and alternatives that spell nothing', () => {
    const record = { k: 3, steps: [
      { token: 5, text: 'x', entropy: 1, top: [[5, -0.5], [6, -1], [0, -2]] as [number, number][] },
      { token: 7, text: 'y', entropy: 1, top: [[7, -0.5], [0, -1]] as [number, number][] },
      { token: 8, text: 'z', entropy: 1, top: [[8, -0.5], [9, -1]] as [number, number][] },
    ] };
    const decode = (ids: readonly number[]) => (ids[0] === 0 ? '' : `t${ids[0]}`);
    const sites = forkSites(record, [-0.5, -0.5, -0.5], 3, decode);
    // Position 1's only alternative is a special token; position 2 leaves no room within 3 new tokens.
    assert.deepEqual(sites.map((s) => s.position), [0]);
    assert.deepEqual(sites[0].alternatives.map((a) => a.token), [6]);
  });
});

describe('fork branches on a real model (float64 reference)', () => {
  const spec = SMALL_SPECS.llama;
  let f: Fixture;
  before(async () => { f = await fixture('fork-llama', spec); });

  it("starts each branch with the forced alternative after the deployed prefix, and continues as a fresh greedy generation from that prefix", async () => {
    const prompt = promptIds(6, 4, spec.vocabSize);
    const plan = forkPlan(16, 2);
    const d: Deployment = { ...DEFAULT_DEPLOYMENT, maxNewTokens: 10 };
    const [dep] = await f.model.generate([{ promptIds: prompt, maxNewTokens: d.maxNewTokens, decoding: { temperature: 0, topP: 1, seed: 0 }, tokenRecord: plan.k, keepState: true }]);
    const record = deployedTokensOf(dep, plan.k, (ids) => f.model.decode(ids));
    const asked: GenerationRequest[] = [];
    const hits = f.model.keptStates.hits;
    const result = await forkProbe({
      promptIds: prompt,
      deployed: dep,
      record,
      plan,
      deployment: d,
      random: seededRandom(0, 'q1', 'fork-positions'),
      decodings: (p, t) => ({ greedy: { temperature: 0, topP: 1, seed: 0 }, sample: { temperature: 1, topP: 1, seed: p * 1000 + t } }),
      decode: (ids) => f.model.decode(ids),
      generate: async (rs) => {
        asked.push(...rs);
        return f.model.generate(rs);
      },
      grade: (text) => ({ correct: text.length % 2 === 0, answer: null, truncated: false }),
    });
    assert.ok(result.forks.length >= 2, 'forks were tried');
    assert.equal(f.model.keptStates.hits - hits, asked.length, "every branch started from the deployed sequence's kept caches");
    assert.ok(result.cost.generations <= plan.budget);
    for (const [i, fork] of result.forks.entries()) {
      const greedyAsked = asked[2 * i];
      const prefix = dep.tokens.slice(0, fork.position);
      assert.deepEqual(greedyAsked.promptIds, [...prompt, ...prefix, fork.alternative.token], `fork ${i}: prompt, deployed prefix, forced alternative`);
      assert.notEqual(fork.alternative.token, fork.deployed.token);
      assert.equal(fork.deployed.token, dep.tokens[fork.position]);
      assert.ok(record.steps[fork.position].top.some(([t]) => t === fork.alternative.token), 'the alternative is one of the recorded most likely tokens');
      // The continuation equals full recomputation's greedy continuation from that prefix.
      const want = f.ref.greedy([...prompt, ...prefix, fork.alternative.token], greedyAsked.maxNewTokens, { eosIds: f.model.eosIds });
      assert.deepEqual(greedyAsked.continues, { promptTokens: prompt.length, generatedTokens: fork.position }, 'it continues the deployed generation');
      const { continues: _, ...freshAsked } = greedyAsked;
      const [fresh] = await f.model.generate([freshAsked]);
      assert.equal(fork.greedy.continuation, f.model.decode(want), `fork ${i}: greedy continuation`);
      assert.equal(fork.greedy.continuation, fresh.text);
      assert.equal(greedyAsked.maxNewTokens, d.maxNewTokens - fork.position - 1, 'the forced token counts against the budget');
    }
    assert.ok(v.safeParse(questionRecordSchema, { ...testRecord('q1', 1), deployedTokens: record, fork: result }).success, 'the record passes the run-file schema');
  });
});

const forkTry = (position: number, arms: ('entropy' | 'random')[], saves: boolean): ForkTry => {
  const branch = { correct: saves, answer: null, truncated: false, continuation: '', tokens: 1 };
  return { arms, position, entropy: 1, deployed: { token: 1, text: 'a', logprob: -0.1 }, alternative: { token: 2, text: 'b', logprob: -2 }, greedy: branch, sample: { ...branch, correct: false }, saves };
};
const forkResult = (entropy: boolean, random: boolean): ForkResult => {
  const forks = [forkTry(1, ['random'], random), forkTry(3, ['entropy'], entropy)];
  const earliest = forks.findIndex((t) => t.saves);
  return { budget: 8, positions: 1, alternatives: 1, eligible: 4, forks, saved: entropy || random, savedBy: { entropy, random }, earliest: earliest >= 0 ? earliest : null, cost: { generations: 4, tokens: 4, blockApplications: 40 } };
};

describe('fork summary', () => {
  const records = (pattern: [boolean, boolean][]) => pattern.map(([e, r], i) => testRecord(`q${i}`, i + 1, { fork: forkResult(e, r), reachable: { sample: i % 2 === 0 } }));
  it('counts saved questions, each arm, the discordant pairs; under 20, no paired verdict', () => {
    const s = forkSummary([...records([[true, false], [true, true], [false, false], [false, true], [true, false]]), testRecord('r', 9, { realized: deployed(true) })]);
    assert.ok(s);
    assert.equal(s.n, 5);
    assert.equal(s.saved.successes, 4);
    assert.equal(s.entropy.successes, 3);
    assert.equal(s.random.successes, 2);
    assert.equal(s.entropyOnly, 2);
    assert.equal(s.randomOnly, 1);
    assert.equal(s.entropyVsRandom, undefined, 'counts only under 20');
    assert.equal(s.savedInFailureSet.n, 3);
    assert.deepEqual(s.forks.entropy, { ...s.forks.entropy, n: 5, successes: 3 });
    assert.equal(s.cost.generations, 20);
  });
  it('from 20 on, decides entropy against random both ways', () => {
    const better = forkSummary(records([...Array(14).fill([true, false]), ...Array(6).fill([false, false])]));
    assert.equal(better?.entropyVsRandom?.decision?.verdict, 'better');
    const worse = forkSummary(records([...Array(14).fill([false, true]), ...Array(6).fill([false, false])]));
    assert.equal(worse?.entropyVsRandom?.decision?.verdict, 'worse');
  });
  it('pairs base and tuned on the questions both forked', () => {
    const base = records([[false, false], [true, false], [false, false]]);
    const tuned = [...records([[true, false], [true, true]]), testRecord('q2', 3, { realized: deployed(true) })];
    const t = forkTransition(base, tuned);
    assert.deepEqual({ ...t }, { paired: 2, lost: 0, gained: 1, both: 1, baseOnly: 1, tunedOnly: 0 });
  });
});
