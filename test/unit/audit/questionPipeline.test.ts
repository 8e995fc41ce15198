/**
 * The audit's one scheduler (questionPipeline.ts): every question's generations go into one
 * queue, a record comes out as soon as its question is done, a question audited alone gets its
 * full-run record, and a stop keeps every finished question whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions, AuditAborted } from '../../../src/audit/runner/questionPipeline';
import type { QuestionRecord } from '../../../src/contract';
import type { Generation, GenerationRequest, GenerateOptions } from '../../../src/engine/types';
import { FakeGenerator } from './fakeGenerator';
import { fakeFor, settingsFor, smallDataset } from './fixtures';

async function audit(ids?: string[], inFlight = 6) {
  const dataset = smallDataset();
  const questions = ids ? dataset.questions.filter((q) => ids.includes(q.id)) : dataset.questions;
  const model = fakeFor(dataset);
  const records: QuestionRecord[] = [];
  await auditQuestions(model, questions, settingsFor(), { onRecord: (r) => records.push(r) }, { inFlight });
  return { records, model };
}

test('auditing one question alone reproduces its record from a full run, whatever the questions in flight', async () => {
  const full = await audit();
  assert.equal(full.records.length, 24);
  for (const id of ['q0', 'q5', 'q17']) {
    const alone = await audit([id], 1);
    assert.equal(JSON.stringify(alone.records[0]), JSON.stringify(full.records.find((r) => r.id === id)));
  }
  const wide = await audit(undefined, 24);
  const byId = new Map(wide.records.map((r) => [r.id, JSON.stringify(r)]));
  for (const r of full.records) assert.equal(byId.get(r.id), JSON.stringify(r), r.id);
});

/** A fake engine that answers each call after `delayMs`, recording what it was asked and when. */
class SlowFake extends FakeGenerator {
  log: { priority: number; requests: number; at: number }[] = [];
  constructor(inner: FakeGenerator, private readonly delayMs: number) {
    super(inner.numBlocks, (inner as unknown as { golds: Map<string, string> }).golds);
  }
  override async generate(requests: readonly GenerationRequest[], signal?: AbortSignal, options?: GenerateOptions): Promise<Generation[]> {
    this.log.push({ priority: options?.priority ?? 0, requests: requests.length, at: performance.now() });
    await new Promise((r) => setTimeout(r, this.delayMs));
    return super.generate(requests, signal, options);
  }
}

test('records come out one question at a time, earlier questions first, at most inFlight open', async () => {
  const dataset = smallDataset(12);
  const model = new SlowFake(fakeFor(dataset), 1);
  const timeline: string[] = [];
  const generate = model.generate.bind(model);
  model.generate = (requests, signal, options) => {
    // A search round's priority is its question's position less the number of questions.
    const p = options?.priority ?? 0;
    timeline.push(`call ${p < 0 ? p + 12 : p}`);
    return generate(requests, signal, options);
  };
  await auditQuestions(model, dataset.questions, settingsFor(), { onRecord: (r) => timeline.push(`record ${r.id.slice(1)}`) }, { inFlight: 4 });
  const recorded = timeline.filter((e) => e.startsWith('record')).map((e) => Number(e.split(' ')[1]));
  assert.deepEqual([...recorded].sort((a, b) => a - b), [...Array(12).keys()]);
  // The first record is handed out before the last question's first generation was asked for.
  assert.ok(timeline.indexOf('record 0') < timeline.indexOf('call 11'));
  // Every call carries its question's position as its priority (the engine serves lower first);
  // a search round, a link of the question's longest chain, goes ahead of all independent attempts.
  const priorities = [...new Set(model.log.map((l) => l.priority))].sort((a, b) => a - b);
  assert.deepEqual(priorities, [...[...Array(12).keys()].map((i) => i - 12), ...Array(12).keys()]);
  const searchPriorities = new Set(model.log.filter((l) => l.priority < 0).map((l) => l.requests));
  assert.deepEqual([...searchPriorities], [1], 'only single-request calls (search rounds) go ahead');
  // Never more than 4 questions open at once.
  const open = new Set<number>();
  for (const e of timeline) {
    const [kind, n] = e.split(' ');
    if (kind === 'call') open.add(Number(n));
    else open.delete(Number(n));
    assert.ok(open.size <= 4, `${open.size} questions open at ${e}`);
  }
});

test('a stop keeps every question finished before it, each whole, and no half-done one', async () => {
  const dataset = smallDataset();
  const controller = new AbortController();
  const model = fakeFor(dataset, 8, { calls: 150, controller });
  const records: QuestionRecord[] = [];
  await assert.rejects(
    auditQuestions(model, dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { inFlight: 4, signal: controller.signal }),
    AuditAborted,
  );
  assert.ok(records.length > 0 && records.length < 24, `${records.length} records kept`);
  const full = await audit();
  for (const r of records) assert.equal(JSON.stringify(r), JSON.stringify(full.records.find((x) => x.id === r.id)), r.id);
});

test('a failure-set member is handed out before its repair scan runs', async () => {
  const dataset = smallDataset();
  const model = new SlowFake(fakeFor(dataset), 0);
  const events: string[] = [];
  const generate = model.generate.bind(model);
  model.generate = async (requests, signal, options) => {
    if (requests.some((r) => r.silencedMlp && r.silencedMlp.length > 0)) events.push(`repair ${options?.priority}`);
    return generate(requests, signal, options);
  };
  await auditQuestions(model, dataset.questions, settingsFor(), { onFailureSet: (m) => events.push(`F ${dataset.questions.findIndex((q) => q.id === m[0].id)}`) }, { inFlight: 6 });
  const members = events.filter((e) => e.startsWith('F '));
  assert.ok(members.length > 0);
  for (const m of members) {
    const i = m.slice(2);
    assert.ok(events.indexOf(m) < events.indexOf(`repair ${i}`), `question ${i}: member before its scan`);
  }
});
