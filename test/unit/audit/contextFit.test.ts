import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitPrompt } from '../../../src/audit/probes/contextFit';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { parseDataset } from '../../../src/audit/dataset/dataset';
import type { QuestionRecord } from '../../../src/contract';
import { summarize } from '../../../src/audit/results/summary';
import { compareRecords } from '../../../src/audit/results/compare';
import { formatSummary } from '../../../src/audit/report/summaryText';
import type { ModelContext } from '../../../src/engine/types';
import { FakeGenerator } from './fakeGenerator';
import { settingsFor } from './fixtures';

test('fitPrompt: fits, skips with the reason, or keeps the last (context − new tokens) tokens like lm-eval', () => {
  const ids = Array.from({ length: 10 }, (_, i) => i);
  assert.deepEqual(fitPrompt(ids, 6, { maxPositions: 16 }, 'none'), { ids });
  assert.deepEqual(fitPrompt(ids, 6, undefined, 'none'), { ids });
  const skipped = fitPrompt(ids, 7, { maxPositions: 16 }, 'none');
  assert.ok('skipped' in skipped);
  assert.deepEqual({ ...skipped.skipped, message: undefined }, { reason: 'context', message: undefined, promptTokens: 10, maxNewTokens: 7, contextLimit: 16 });
  assert.match(skipped.skipped.message, /10 prompt tokens \+ 7 new tokens = 17 positions exceed the model's context of 16/);
  // lm-eval: context_enc[-(max_length - max_gen_toks):]
  assert.deepEqual(fitPrompt(ids, 7, { maxPositions: 16 }, 'left'), { ids: ids.slice(-(16 - 7)), truncated: { fromTokens: 10, toTokens: 9 } });
});

class ShortContextFake extends FakeGenerator {
  readonly context: ModelContext = { maxPositions: 400 };
}

function dataset() {
  const lines = [
    { id: 'short', question: 'What is 2 plus 2?', answer: '#### 4' },
    { id: 'long', question: `Read this: ${'word '.repeat(3000)} What is 1 plus 1?`, answer: '#### 2' },
    { id: 'short2', question: 'What is 3 plus 3?', answer: '#### 6' },
  ];
  return parseDataset('/v.jsonl', lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

test('a question whose prompt does not fit is recorded as skipped, counted apart from n, never generated', async () => {
  const ds = dataset();
  const model = new ShortContextFake(8, new Map(ds.questions.map((q) => [q.text, q.gold])));
  const records: QuestionRecord[] = [];
  const settings = settingsFor(8, { deployment: { ...settingsFor().deployment, maxNewTokens: 64 } });
  await auditQuestions(model, ds.questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: 3 });
  // Records come in the order questions finish (the run folder keeps dataset order, see summary.test.ts).
  assert.deepEqual(records.map((r) => r.id).sort(), ['long', 'short', 'short2'], 'every question recorded');
  const long = records.find((r) => r.id === 'long')!;
  assert.ok(long.skipped && long.skipped.reason === 'context');
  assert.equal(long.skipped.contextLimit, 400);
  assert.equal(long.skipped.maxNewTokens, 64);
  assert.ok(long.skipped.promptTokens > 400);
  assert.deepEqual(long.probes, {});
  const s = summarize(records);
  assert.equal(s.n, 2);
  assert.equal(s.skipped.n, 1);
  assert.equal(s.skipped.questions[0].id, 'long');
  assert.match(formatSummary(s), /skipped, not in n: 1 question whose prompt \+ max new tokens exceed the model's context \(long: \d+ \+ 64 > 400\)/);
  assert.equal(compareRecords(records, records).n, 2, 'a skipped question is not paired');
});

test('--truncate-prompt left cuts the prompt to fit and records it', async () => {
  const ds = dataset();
  const model = new ShortContextFake(8, new Map(ds.questions.map((q) => [q.text, q.gold])));
  const records: QuestionRecord[] = [];
  const base = settingsFor();
  const settings = settingsFor(8, { deployment: { ...base.deployment, maxNewTokens: 64, truncatePrompt: 'left' } });
  await auditQuestions(model, ds.questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: 3 });
  const long = records.find((r) => r.id === 'long')!;
  assert.equal(long.skipped, undefined);
  assert.equal(long.promptTruncated?.toTokens, 400 - 64);
  const s = summarize(records);
  assert.equal(s.n, 3);
  assert.equal(s.promptTruncated, 1);
});

test('max new tokens that leave no room for a prompt is refused before anything runs', async () => {
  const ds = dataset();
  const model = new ShortContextFake(8, new Map(ds.questions.map((q) => [q.text, q.gold])));
  const settings = settingsFor(8, { deployment: { ...settingsFor().deployment, maxNewTokens: 400 } });
  await assert.rejects(auditQuestions(model, ds.questions, settings, {}, { inFlight: 3 }), /--max-new-tokens 400 leaves no room for a prompt in the model's context of 400 positions/);
});
