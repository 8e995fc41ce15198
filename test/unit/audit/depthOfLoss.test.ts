/**
 * Depth of loss: each continuation's prompt is the question's prompt followed by exactly the
 * deployed prefix, so greedy continuations reproduce the deployed output token for token (checked
 * on the engine with a random model); the cuts, the deepest reaching prefix, the point of no return
 * and the quarter of loss follow their definitions.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { SMALL_SPECS } from '../../support/modelFolder';
import { type Fixture, fixture, promptIds } from '../engine/engineTestModels';
import { depthCuts, depthOfLoss, depthRequest, depthResult } from '../../../src/audit/runner/depthOfLoss';
import { depthSummary } from '../../../src/audit/results/depthSummary';
import { depthLines } from '../../../src/audit/report/depthText';
import { DEFAULT_DEPLOYMENT } from '../../../src/audit/probes';
import type { Generation } from '../../../src/engine';
import type { QuestionRecord } from '../../../src/contract';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { emptyRegradeCounts, regradeRecord } from '../../../src/audit/runner/regrade';
import { DEFAULT_GRADING } from '../../../src/audit/answers/gradingSettings';
import { questionRecordSchema } from '../../../src/audit/store/runFileSchemas';
import { fakeFor, settingsFor, smallDataset } from './fixtures';
import * as v from 'valibot';

const greedy = { temperature: 0, topP: 1, seed: 0 };

describe('depth of loss on the engine', () => {
  let f: Fixture;
  const spec = SMALL_SPECS.llama;
  before(async () => { f = await fixture('depth-of-loss', spec); });

  it('resamples from exactly the deployed prefix: greedy continuations give the deployed output back', async () => {
    const d = { ...DEFAULT_DEPLOYMENT, maxNewTokens: 12 };
    const prompt = promptIds(7, 5, spec.vocabSize);
    const [deployed] = await f.model.generate([{ promptIds: prompt, maxNewTokens: d.maxNewTokens, decoding: greedy }]);
    assert.equal(deployed.finishReason, 'length', 'the test wants an output that used its whole budget');
    // A line break "after" token 7 of the output: the last occurrence of that id.
    const marked = deployed.tokens[7];
    const lastMarked = deployed.tokens.lastIndexOf(marked);
    const cuts = depthCuts(deployed, d.maxNewTokens, (id) => (id === marked ? 'x\n' : 'x'));
    assert.deepEqual(cuts.map((c) => c.tokens).sort((a, b) => a - b), [0, 3, 6, 9, lastMarked + 1].sort((a, b) => a - b));
    const requests = cuts.map((c) => depthRequest(d, prompt, deployed.tokens, c, greedy));
    requests.forEach((r, i) => {
      assert.deepEqual(r.promptIds, [...prompt, ...deployed.tokens.slice(0, cuts[i].tokens)]);
      assert.equal(r.maxNewTokens, d.maxNewTokens - cuts[i].tokens);
    });
    const out = await f.model.generate(requests);
    out.forEach((g, i) => {
      const cut = cuts[i].tokens;
      assert.deepEqual([...deployed.tokens.slice(0, cut), ...g.tokens], deployed.tokens, `continuation from ${cuts[i].at}`);
      g.logprobs.forEach((lp, j) => assert.ok(Math.abs(lp - deployed.logprobs[cut + j]) < 1e-4, `${cuts[i].at} token ${j}: ${lp} vs ${deployed.logprobs[cut + j]}`));
    });
  });
});

function gen(tokens: number[], finishReason: Generation['finishReason'] = 'length'): Generation {
  return { tokens, text: '', logprobs: tokens.map(() => -1), finishReason, cost: { generatedTokens: tokens.length, blockApplications: 10 * tokens.length } };
}

describe('depth of loss: definitions', () => {
  it('leaves out the token that stopped the output and drops cuts with no room left', () => {
    // 9 tokens, the last an eos: 8 usable; fractions at 0, 2, 4, 6.
    assert.deepEqual(depthCuts(gen([1, 2, 3, 4, 5, 6, 7, 8, 2], 'stop'), 20, () => 'a').map((c) => [c.at, c.tokens]), [['0', 0], ['1/4', 2], ['1/2', 4], ['3/4', 6]]);
    // Budget 5 spent: the line-break cut after the last token would leave no room, so it is dropped.
    assert.deepEqual(depthCuts(gen([9, 9, 9, 9, 9]), 5, (id) => (id === 9 ? '\n' : '')).map((c) => [c.at, c.tokens]), [['0', 0], ['1/4', 1], ['1/2', 2], ['3/4', 3]]);
    // A line-break cut at the depth of a fraction is the same prefix: the fraction is kept, once.
    assert.deepEqual(depthCuts(gen([1, 9, 1, 1]), 4, (id) => (id === 9 ? '\n' : '')).map((c) => c.at), ['0', '1/4', '1/2', '3/4']);
    assert.deepEqual(depthCuts(gen([1, 1, 1, 1, 9, 1, 1, 1]), 16, (id) => (id === 9 ? '\n' : '')).map((c) => [c.at, c.tokens]), [['0', 0], ['1/4', 2], ['1/2', 4], ['last-line', 5], ['3/4', 6]]);
  });

  it('cuts an empty or one-token output once, at the empty prefix, and says it is too short to cut', () => {
    for (const tokens of [[], [5], [5, 2]]) {
      const finish = tokens.length === 2 ? 'stop' : 'length';
      const cuts = depthCuts(gen(tokens, finish), 16, () => 'a');
      assert.deepEqual(cuts.map((c) => [c.at, c.tokens]), [['0', 0]], `${tokens.length} tokens, ${finish}`);
      const r = depthResult(4, Math.max(0, tokens.length - (finish === 'stop' ? 1 : 0)), cuts, [v(true, true, true, true)], '', () => '', []);
      assert.equal(r.lostIn, 'too-short');
      assert.equal(r.deepestReached, 0);
    }
    // Two tokens already give two distinct prefixes.
    assert.deepEqual(depthCuts(gen([5, 6]), 16, () => 'a').map((c) => [c.at, c.tokens]), [['0', 0], ['1/2', 1]]);
  });

  it('a run of one-token outputs reports them too short to cut, not lost in quarter 4, and spends B generations each', async () => {
    const deployed = gen([5], 'length');
    const generated: number[] = [];
    const depth = await depthOfLoss({
      q: smallDataset(1).questions[0],
      promptIds: [1, 2],
      deployed,
      budget: 2,
      deployment: { ...DEFAULT_DEPLOYMENT, maxNewTokens: 16 },
      decoding: (_at, b) => ({ temperature: 1, topP: 1, seed: b }),
      decode: (ids) => ids.map(String).join(' '),
      generate: async (requests) => {
        generated.push(requests.length);
        return requests.map(() => gen([7]));
      },
      grade: () => ({ correct: true, answer: '4' }),
    });
    assert.deepEqual(generated, [2], 'one distinct prefix, B continuations');
    assert.equal(depth.lostIn, 'too-short');
    const cutOne = depthResult(1, 20, cuts, [v(true), v(false), v(false), v(false)], output, prefixText, []);
    const summary = depthSummary([{ depth } as QuestionRecord, { depth } as QuestionRecord, { depth: cutOne } as QuestionRecord])!;
    assert.equal(summary.n, 3);
    assert.equal(summary.tooShort, 2);
    assert.deepEqual(summary.lostIn.quarter.map((r) => [r.successes, r.n]), [[1, 1], [0, 1], [0, 1], [0, 1]]);
    assert.deepEqual(summary.curve.map((c) => [c.at, c.reached.successes, c.reached.n]), [['0', 3, 3], ['1/4', 0, 1], ['1/2', 0, 1], ['3/4', 0, 1]]);
    const lines = depthLines(summary).join('\n');
    assert.match(lines, /output too short to cut \(fewer than two distinct prefixes; not counted where lost\): 2/);
    assert.match(lines, /4 or after the last prefix: 0\.0% \[0\.0, [\d.]+\] 0\/1/);
  });

  const cuts = [{ at: '0' as const, tokens: 0 }, { at: '1/4' as const, tokens: 5 }, { at: '1/2' as const, tokens: 10 }, { at: '3/4' as const, tokens: 15 }];
  const v = (...hits: boolean[]) => hits.map((correct) => ({ correct, answer: correct ? '4' : '3' }));
  const output = 'a'.repeat(200);
  const prefixText = (tokens: number) => output.slice(0, tokens * 10);

  it('finds the deepest reaching prefix and the point of no return after it, with the text around the cut', () => {
    const r = depthResult(2, 20, cuts, [v(true, false), v(false, false), v(false, true), v(false, false)], output, prefixText, [gen([1]), gen([1, 2])]);
    assert.equal(r.deepestReached, 2);
    assert.equal(r.noReturn?.point, 3);
    assert.equal(r.noReturn?.before.length, 80);
    assert.equal(r.noReturn?.after, output.slice(150, 230));
    assert.equal(r.lostIn, 3); // the cut at 15 of 20 tokens lies in the third quarter
    assert.deepEqual(r.points.map((p) => p.reached), [true, false, true, false]);
    // Where each cut falls in the deployed text (a viewer marks it there).
    assert.deepEqual(r.points.map((p) => p.chars), [0, 50, 100, 150]);
    assert.deepEqual(r.cost, { generations: 2, tokens: 3, blockApplications: 30 });
  });

  it('says "start" when no prefix reaches, and quarter 4 when even the deepest does', () => {
    const none = depthResult(1, 20, cuts, [v(false), v(false), v(false), v(false)], output, prefixText, []);
    assert.equal(none.deepestReached, null);
    assert.equal(none.noReturn?.point, 0);
    assert.equal(none.noReturn?.before, '');
    assert.equal(none.lostIn, 'start');
    const all = depthResult(1, 20, cuts, [v(false), v(false), v(false), v(true)], output, prefixText, []);
    assert.equal(all.noReturn, null);
    assert.equal(all.lostIn, 4);
    const early = depthResult(1, 20, cuts, [v(true), v(false), v(false), v(false)], output, prefixText, []);
    assert.equal(early.lostIn, 1);
  });
});

describe('depth of loss in the audit', () => {
  it('runs on exactly the failure set, writes records the run-file schema accepts, and regrade drops it', async () => {
    const dataset = smallDataset(24);
    const settings = settingsFor(8, { depthProbe: { budget: 2 } });
    const records: QuestionRecord[] = [];
    await auditQuestions(fakeFor(dataset), dataset.questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: 6 });
    const members = records.filter((r) => r.repair?.inFailureSet);
    assert.ok(members.length > 0, 'the fake gives a failure set');
    for (const r of records) {
      assert.equal(r.depth !== undefined, r.repair!.inFailureSet, r.id);
      v.parse(questionRecordSchema, r);
    }
    const d = members[0].depth!;
    assert.equal(d.points[0].at, '0');
    assert.ok(d.points.every((p) => p.correct.length === 2));
    assert.equal(d.cost.generations, 2 * d.points.length);
    const byId = new Map(dataset.questions.map((q) => [q.id, q]));
    const regraded = regradeRecord(members[0], byId.get(members[0].id)!, DEFAULT_GRADING, emptyRegradeCounts(), settings.repair.referenceProbes);
    assert.equal(regraded.depth, undefined);
  });
});
