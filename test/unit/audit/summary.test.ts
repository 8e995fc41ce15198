import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { questionState, type QuestionRecord } from '../../../src/contract';
import { readRecords } from '../../../src/audit/store/runStore';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { summarize } from '../../../src/audit/results/summary';
import { readJsonFile } from '../../../src/audit/store/runStore';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

async function records(): Promise<QuestionRecord[]> {
  const dataset = smallDataset(30);
  const out: QuestionRecord[] = [];
  await auditQuestions(fakeFor(dataset), dataset.questions, settingsFor(), { onRecord: (r) => out.push(r) }, { inFlight: 10 });
  return out;
}

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
}

/** pass@k by enumerating every k-subset of the attempts. */
function bruteForcePassAtK(correct: boolean[], k: number): number {
  const n = correct.length;
  let hit = 0;
  let total = 0;
  const pick = (start: number, left: number, any: boolean) => {
    if (left === 0) {
      total++;
      if (any) hit++;
      return;
    }
    for (let i = start; i <= n - left; i++) pick(i + 1, left - 1, any || correct[i]);
  };
  pick(0, k, false);
  assert.equal(total, choose(n, k));
  return hit / total;
}

test('summary rates, pass@k and budgets follow from the records', async () => {
  const recs = await records();
  const s = summarize(recs);
  assert.equal(s.n, 30);
  assert.equal(s.realized.successes, recs.filter((r) => r.realized.correct).length);
  assert.ok(s.realized.ci.lo <= s.realized.rate && s.realized.rate <= s.realized.ci.hi);
  for (const p of ['sample', 'routes', 'search']) {
    assert.equal(s.reachable[p].successes, recs.filter((r) => r.reachable[p]).length);
    assert.equal(s.budget[p].generations, 30 * 6);
    assert.equal(s.budget[p].tokens, recs.reduce((t, r) => t + r.probes[p].cost.tokens, 0));
    // pass@B is the reachable rate.
    assert.ok(Math.abs(s.passAtK[p]['6'] - s.reachable[p].rate) < 1e-12);
  }
  for (const k of [1, 2, 3, 5]) {
    const brute = recs.reduce((t, r) => t + bruteForcePassAtK(r.probes.sample.correct, k), 0) / recs.length;
    assert.ok(Math.abs(s.passAtK.sample[String(k)] - brute) < 1e-12, `pass@${k}`);
  }
  // search is ordered: first-k.
  assert.equal(s.passAtKKind.search, 'first-k');
  assert.equal(s.passAtK.search['1'], recs.filter((r) => r.probes.search.correct[0]).length / 30);
  assert.deepEqual(Object.keys(s.blind.routes), ['majority', 'confidence', 'global-route']);
  assert.equal(s.blind.sample['global-route'], undefined);
  assert.equal(s.blind.routes['global-route'].n, 15, 'global route is scored on the held-out half only');
  assert.equal(s.globalRoute!.selection.n + s.globalRoute!.heldOut.n, 30);
  const states = recs.map(questionState);
  assert.equal(s.states.realized, states.filter((x) => x === 'realized').length);
  assert.equal(s.repair!.failureSetSize, recs.filter((r) => r.repair!.inFailureSet).length);
  assert.equal(s.repair!.selectionSize + s.repair!.n, s.repair!.failureSetSize);
  // The fake repairs with block 2 at 80%: the identified block must be 2.
  assert.equal(s.repair!.identifiedBlock, 2);
  assert.equal(s.repair!.byBlock.length, 8);
});

test('the blind pools\' dropped candidates are counted per probe; records of older runs carry none', async () => {
  const recs = await records();
  const s = summarize(recs);
  for (const p of ['sample', 'routes']) {
    const dropped = recs.reduce((t, r) => t + r.blind[p].majority.dropped!, 0);
    assert.deepEqual(s.blindDropped![p], { dropped, candidates: 30 * 6, questions: 30 });
    assert.deepEqual(recs.map((r) => r.blind[p].confidence.dropped), recs.map((r) => r.blind[p].majority.dropped), 'one pool for both selectors');
  }
  assert.equal(s.blindDropped!.search, undefined, 'search is not answer-blind');
  const older = recs.map((r) => ({ ...r, blind: Object.fromEntries(Object.entries(r.blind).map(([p, sel]) => [p, Object.fromEntries(Object.entries(sel).map(([k, c]) => [k, { answer: c.answer, correct: c.correct, attempt: c.attempt }]))])) }));
  assert.equal(summarize(older).blindDropped, undefined);
});

test('the summary does not depend on record order', async () => {
  const recs = await records();
  assert.deepEqual(summarize(recs.slice().reverse()), summarize(recs));
});

test('an interrupted and resumed run ends with the same summary.json as an uninterrupted one, recomputable from records.jsonl', async () => {
  const dataset = smallDataset(30);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, settings: settingsFor(), name: 't', inFlight: 7, modelInfo: { path: '/m', contentHash: 'h' } };
  const whole = tempDir();
  const a = await runAudit({ ...base, model: fakeFor(dataset), folder: whole, resume: false });
  assert.ok(a.summary);

  const split = tempDir();
  const controller = new AbortController();
  // 7 questions in flight make about 11 engine calls each: stop after some have finished.
  const first = await runAudit({ ...base, model: fakeFor(dataset, 8, { calls: 100, controller }), folder: split, resume: false, signal: controller.signal });
  assert.equal(first.stopped, true);
  assert.ok(first.records.length > 0 && first.records.length < 30);
  const second = await runAudit({ ...base, model: fakeFor(dataset), folder: split, resume: true });
  assert.equal(second.stopped, false);

  const wholeSummary = readJsonFile(path.join(whole, 'summary.json'));
  assert.deepEqual(readJsonFile(path.join(split, 'summary.json')), wholeSummary);
  assert.deepEqual(JSON.parse(JSON.stringify(summarize(readRecords(split).values))), wholeSummary);
  assert.deepEqual(JSON.parse(JSON.stringify(summarize(readRecords(whole).values))), wholeSummary);
  // Questions finish out of order; a finished run's files are in dataset order, the same bytes either way.
  assert.deepEqual(readRecords(whole).values.map((r) => r.id), dataset.questions.map((q) => q.id));
  for (const file of ['records.jsonl', 'failure-set.jsonl']) {
    assert.equal(fs.readFileSync(path.join(split, file), 'utf8'), fs.readFileSync(path.join(whole, file), 'utf8'), file);
  }
});
