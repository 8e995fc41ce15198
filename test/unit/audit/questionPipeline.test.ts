import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions, AuditAborted } from '../../../src/audit/run/questionPipeline';
import type { QuestionRecord } from '../../../src/audit/run/record';
import { isValidRoute, routeKey } from '../../../src/audit/probes/routes';
import { fakeFor, settingsFor, smallDataset } from './fixtures';

async function audit(ids?: string[], chunkSize = 7) {
  const dataset = smallDataset();
  const questions = ids ? dataset.questions.filter((q) => ids.includes(q.id)) : dataset.questions;
  const model = fakeFor(dataset);
  const records: QuestionRecord[] = [];
  const events: string[] = [];
  await auditQuestions(model, questions, settingsFor(), {
    onRecord: (r) => { records.push(r); events.push(`record ${r.id}`); },
    onFailureSet: (m) => events.push(`F ${m.map((x) => x.id).join(',')}`),
    onStage: (s) => events.push(`stage ${s}`),
  }, { chunkSize });
  return { records, events, model };
}

test('auditing one question alone reproduces its record from a full run', async () => {
  const full = await audit();
  for (const id of ['q0', 'q5', 'q17']) {
    const alone = await audit([id], 1);
    assert.deepEqual(alone.records[0], full.records.find((r) => r.id === id));
  }
  // A different chunking gives the same records too.
  assert.deepEqual((await audit(undefined, 24)).records, full.records);
});

test('records follow the contract: probes, reachable, blind, repair, budgets', async () => {
  const { records } = await audit();
  assert.equal(records.length, 24);
  for (const r of records) {
    assert.deepEqual(Object.keys(r.probes), ['sample', 'routes', 'search']);
    for (const [p, res] of Object.entries(r.probes)) {
      assert.equal(res.budget, 6);
      assert.equal(res.attempts.length, 6);
      assert.deepEqual(res.correct, res.attempts.map((a) => a.correct));
      assert.equal(r.reachable[p], res.correct.some(Boolean));
      assert.equal(res.cost.generations, 6);
      assert.equal(res.cost.tokens, res.attempts.reduce((s, a) => s + a.tokens, 0));
      if (p === 'sample') assert.ok(res.attempts.every((a) => typeof a.seed === 'number' && a.route === undefined));
      else {
        assert.ok(res.attempts.every((a) => a.route && isValidRoute(a.route, 8)));
        assert.equal(new Set(res.attempts.map((a) => routeKey(a.route!))).size, 6, 'routes of a question never repeat');
      }
      // The search's outputs were chosen with the gold answer: no answer-blind choice among them.
      if (p === 'search') assert.equal(r.blind[p], undefined);
      else assert.deepEqual(Object.keys(r.blind[p]), ['majority', 'confidence']);
    }
    const rep = r.repair!;
    assert.equal(rep.inFailureSet, !r.realized.correct && Object.values(r.reachable).some(Boolean));
    const scanned = rep.inFailureSet || r.realized.correct;
    assert.equal(Object.keys(rep.correctBySilencedBlock).length, scanned ? 8 : 0);
    assert.equal(rep.cost.generations, scanned ? 8 : 0);
    assert.equal(r.globalRoutes!.attempts.length, 5);
  }
});

test('the failure set of a chunk is handed out before its repair scan runs', async () => {
  const { events } = await audit(undefined, 24);
  const f = events.findIndex((e) => e.startsWith('F '));
  const repair = events.indexOf('stage repair');
  assert.ok(f >= 0 && repair > f);
});

test('search batches one route per question per engine call', async () => {
  const { model } = await audit(undefined, 24);
  // deployment 24, sample 144, routes 144, then 6 search rounds of 24, the 5 pool routes one call each, repair.
  assert.deepEqual(model.calls.slice(0, 14), [24, 144, 144, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24]);
  assert.equal(model.calls.length, 15);
});

test('an abort stops between chunks and keeps finished records', async () => {
  const dataset = smallDataset();
  const controller = new AbortController();
  const model = fakeFor(dataset, 8, { calls: 20, controller }); // a chunk takes 15 calls: abort inside the second
  const records: QuestionRecord[] = [];
  await assert.rejects(
    auditQuestions(model, dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { chunkSize: 8, signal: controller.signal }),
    AuditAborted,
  );
  assert.equal(records.length, 8);
});
