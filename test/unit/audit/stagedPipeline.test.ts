import { test } from 'node:test';
import assert from 'node:assert/strict';
/**
 * The stage-by-stage runner the bench measures the scheduler against (stagedPipeline.ts): its
 * records, chunking and abort, and that it gives the scheduler's records exactly.
 */
import { auditQuestionsByStage as auditQuestions } from '../../../src/bench/stagedPipeline';
import { auditQuestions as auditScheduled } from '../../../src/audit/runner/questionPipeline';
import { AuditAborted } from '../../../src/audit/runner/questionSteps';
import type { QuestionRecord } from '../../../src/contract';
import { isValidRoute, routeKey } from '../../../src/audit/probes/routes';
import { fakeFor, settingsFor, smallDataset } from './fixtures';
import { summarize } from '../../../src/audit/results/summary';

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

test('truncation: recorded on every output, a truncated output without a marker never counts, the summary counts it per probe', async () => {
  const dataset = smallDataset();
  const run = async (truncated: 'strict' | 'lenient') => {
    const records: QuestionRecord[] = [];
    await auditQuestions(fakeFor(dataset), dataset.questions, settingsFor(8, { grading: { correctBy: 'stated', truncated } }), { onRecord: (r) => records.push(r) }, { chunkSize: 24 });
    return records;
  };
  const strict = await run('strict');
  const lenient = await run('lenient');
  const outputs = (rs: QuestionRecord[]) => rs.flatMap((r) => [r.realized, ...Object.values(r.probes).flatMap((p) => p.attempts), ...(r.globalRoutes?.attempts ?? [])]);
  // The fake cuts about 5% of its outputs before "#### N" ("Let me think about N").
  const cut = outputs(strict).filter((o) => o.truncated);
  assert.ok(cut.length > 0);
  for (const o of outputs(strict)) {
    assert.equal(typeof o.truncated, 'boolean');
    assert.equal(o.truncated, !o.output.includes('####'));
    assert.ok(o.strict && o.flexible, 'both readings recorded');
    if (o.truncated) assert.equal(o.correct, false, o.output);
  }
  // Lenient grading lets the cut outputs' last number count, as before.
  assert.ok(outputs(lenient).some((o) => o.truncated && o.correct));
  // The repair scan records truncation per silenced block, and grades by the same rule.
  const scanned = strict.filter((r) => Object.keys(r.repair!.correctBySilencedBlock).length > 0);
  assert.ok(scanned.length > 0);
  for (const r of scanned) assert.deepEqual(Object.keys(r.repair!.truncatedBySilencedBlock!), Object.keys(r.repair!.correctBySilencedBlock));
  for (const r of scanned) {
    for (const [l, t] of Object.entries(r.repair!.truncatedBySilencedBlock!)) if (t) assert.equal(r.repair!.correctBySilencedBlock[l], false);
  }
  // The summary's counts are the records' counts.
  const s = summarize(strict);
  assert.equal(s.truncated.realized, strict.filter((r) => r.realized.truncated).length);
  for (const p of ['sample', 'routes', 'search']) {
    const attempts = strict.flatMap((r) => r.probes[p].attempts);
    assert.deepEqual(s.truncated.probes[p], { truncated: attempts.filter((a) => a.truncated).length, outputs: attempts.length });
  }
  const repairOutputs = scanned.flatMap((r) => Object.values(r.repair!.truncatedBySilencedBlock!));
  assert.deepEqual(s.truncated.repair, { truncated: repairOutputs.filter(Boolean).length, outputs: repairOutputs.length });
  assert.equal(s.readings!.strict.realized.n, 24);
  assert.equal(s.readings!.flexible.realized.successes, strict.filter((r) => r.realized.flexible!.correct).length);
});

test('the staged runner and the scheduler give the same records, byte for byte', async () => {
  const dataset = smallDataset();
  const staged = await audit(undefined, 7);
  const scheduled: QuestionRecord[] = [];
  await auditScheduled(fakeFor(dataset), dataset.questions, settingsFor(), { onRecord: (r) => scheduled.push(r) }, { inFlight: 5 });
  const byId = new Map(scheduled.map((r) => [r.id, r]));
  assert.equal(scheduled.length, staged.records.length);
  for (const r of staged.records) assert.equal(JSON.stringify(byId.get(r.id)), JSON.stringify(r), r.id);
});
