/**
 * The informed route search (--search-reward gold-logprob) on a model where one route, two edits
 * from the identity, answers correctly and the gold answer's probability rises as a route gets
 * closer to it: the 0/1 search walks blind until it stumbles on that route, the informed one
 * expands under the routes that come closer, so it reaches it on more questions at the same budget
 * (40 questions, 4 blocks: 20 vs 24 at 16 routes, 13 vs 16 at 8). Also: each wrong attempt records its gold log-probability, the scoring cost is counted,
 * the reward is recorded and a resume with the other reward is refused, a backend without a
 * scorer and the regex format are refused before any work, and the answer slot per format.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContinuationScore, Generation, GenerationRequest, ScoreRequest } from '../../../src/engine/types';
import { FakeGenerator } from './fakeGenerator';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { answerSlot } from '../../../src/audit/answers/answerSlot';
import { searchReward } from '../../../src/audit/probes/goldAnswerScore';
import { settingsFor, smallDataset, tempDir } from './fixtures';
import type { RunSettings } from '../../../src/contract';
import { routeEditDistance } from '../../support/routeEditDistance';

const L = 4;
/** The one route that answers correctly: block 1 repeated, block 2 skipped. */
const TARGET = [0, 1, 1, 3];

/** Edit distance (insert, delete, substitute a block) to the target: 0 only at the target. */
const distance = (route: readonly number[]) => routeEditDistance(route, TARGET);

/** The fake engine's character tokenizer, with answers and scores of its own. */
class NeedleModel extends FakeGenerator {
  scored = 0;
  constructor(private readonly needleGolds: Map<string, string>, scorer = true) {
    super(L, needleGolds);
    if (!scorer) this.scoreContinuations = undefined;
  }
  private gold(ids: readonly number[]): string {
    const prompt = this.decode(ids);
    return [...this.needleGolds.entries()].find(([text]) => prompt.includes(text))?.[1] ?? '0';
  }
  override async generate(requests: readonly GenerationRequest[]): Promise<Generation[]> {
    return requests.map((r) => {
      const gold = this.gold(r.promptIds);
      const right = r.route !== undefined && distance(r.route) === 0;
      const text = right ? `so\n#### ${gold}` : `so\n#### ${Number(gold) + 1}`;
      return { tokens: [1, 2, 3], text, logprobs: [-0.1, -0.1, -0.1], finishReason: 'stop', cost: { generatedTokens: 3, blockApplications: 3 * (r.route?.length ?? L) } };
    });
  }
  scoreContinuations?: (requests: readonly ScoreRequest[]) => Promise<ContinuationScore[]> = async (requests) =>
    requests.map((r) => {
      this.scored++;
      const d = r.route ? distance(r.route) : 6;
      return { logprobs: r.continuationIds.map(() => -0.7 * d), blockApplications: 5 * r.continuationIds.length };
    });
}

async function audit(reward: 'correct' | 'gold-logprob', model = new NeedleModel(new Map(smallDataset(40).questions.map((q) => [q.text, q.gold])))) {
  const dataset = smallDataset(40);
  const settings: RunSettings = settingsFor(L, {
    probes: [{ name: 'search', budget: 16 }],
    selectors: [],
    repair: { enabled: false, referenceProbes: ['search'] },
    globalRoutes: { count: 0, routes: [] },
    search: { ...settingsFor(L).search, ...(reward === 'gold-logprob' ? { reward } : {}) },
  });
  const folder = tempDir();
  const result = await runAudit({ engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 4, modelInfo: { path: '/m', contentHash: 'h' }, settings, model, folder, resume: false });
  return { records: result.records, settings, model, folder };
}

test('gold-logprob: the informed search reaches the one correct route on more questions than the 0/1 search, blind until a hit', async () => {
  const blind = await audit('correct');
  const informed = await audit('gold-logprob');
  const reached = (rs: typeof blind.records) => rs.filter((r) => r.reachable.search).length;
  assert.ok(reached(informed.records) > reached(blind.records), `informed ${reached(informed.records)} vs 0/1 ${reached(blind.records)} of 40`);
  // Every wrong attempt of the informed search carries its gold log-probability; correct ones and the 0/1 search's none.
  for (const r of informed.records) {
    for (const a of r.probes.search.attempts) {
      if (a.correct) assert.equal(a.goldLogprob, undefined);
      else assert.ok(typeof a.goldLogprob === 'number' && a.goldLogprob <= 0 && Math.abs(a.goldLogprob + 0.7 * distance(a.route!)) < 1e-12);
    }
  }
  assert.ok(blind.records.every((r) => r.probes.search.attempts.every((a) => a.goldLogprob === undefined)));
  // The scoring passes cost block applications (5 per gold token here), no generations.
  const r0 = informed.records[0];
  const wrong = r0.probes.search.attempts.filter((a) => !a.correct).length;
  const generated = r0.probes.search.attempts.reduce((s, a) => s + 3 * a.route!.length, 0);
  assert.equal(r0.probes.search.cost.generations, r0.probes.search.attempts.length);
  assert.ok(r0.probes.search.cost.blockApplications > generated, 'scoring adds block applications');
  assert.equal(informed.model.scored, informed.records.reduce((s, r) => s + r.probes.search.attempts.filter((a) => !a.correct).length, 0));
  assert.ok(wrong > 0);
  // The same run again: the same records (determinism).
  const again = await audit('gold-logprob');
  assert.deepEqual(again.records, informed.records);
});

test('gold-logprob: a backend that cannot score, or the regex format, is refused before any generation', async () => {
  const golds = new Map(smallDataset(40).questions.map((q) => [q.text, q.gold]));
  await assert.rejects(audit('gold-logprob', new NeedleModel(golds, false)), /--search-reward gold-logprob: this backend cannot score a given continuation/);
});

test('the answer slot: after the last marker, or the format\'s marker appended', () => {
  assert.deepEqual(answerSlot('3 + 4 = 7\n#### 7', 'gsm8k'), { prefix: '3 + 4 = 7\n#### ', appended: false });
  assert.deepEqual(answerSlot('it is 7', 'gsm8k'), { prefix: 'it is 7\n#### ', appended: true });
  assert.deepEqual(answerSlot('so \\boxed{3} wait \\boxed{', 'boxed'), { prefix: 'so \\boxed{3} wait \\boxed{', appended: false });
  assert.deepEqual(answerSlot('x', 'boxed'), { prefix: 'x\nThe final answer is $\\boxed{', appended: true });
  assert.deepEqual(answerSlot('The answer is (B', 'choice'), { prefix: 'The answer is (', appended: false });
  assert.deepEqual(answerSlot('Answer: 12', 'exact'), { prefix: 'Answer: ', appended: false });
  assert.equal(answerSlot('anything', 'regex'), null);
  assert.equal(searchReward(true, null), 1);
  assert.equal(searchReward(false, null), 0);
  assert.ok(Math.abs(searchReward(false, { meanLogprob: Math.log(0.5), tokens: 1, appended: false, blockApplications: 1 }) - 0.25) < 1e-12);
});
