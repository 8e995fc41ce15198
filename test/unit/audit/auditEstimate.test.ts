/**
 * The cost of an audit: planned generations per stage, the warm-up estimate before the first
 * question, and the time left only once it has been measured.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateAudit, estimateText, plannedGenerations, remainingMs } from '../../../src/audit/run/auditEstimate';
import { runAudit } from '../../../src/audit/run/runFolderAudit';
import type { AuditProgress } from '../../../src/audit/run/runFolderAudit';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

test('planned generations per question: deployment, each probe at its budget, the pool; repair per scanned question', () => {
  const plan = plannedGenerations(settingsFor(), 8);
  assert.deepEqual(plan.byStage, { deployment: 1, sample: 6, routes: 6, search: 6, 'global-routes': 5 });
  assert.equal(plan.repairPerScanned, 8);
  assert.equal(plannedGenerations(settingsFor(8, { repair: { enabled: false, referenceProbes: [] } }), 8).repairPerScanned, 0);
});

test('no time left before a question has finished; then the generations left at the measured speed', () => {
  const plan = plannedGenerations(settingsFor(), 8);
  const base = { questions: 10, doneQuestions: 0, scannedQuestions: 0, generations: 50, generatedTokens: 500, elapsedMs: 1000 };
  assert.equal(remainingMs(plan, base), undefined);
  // 2 of 10 done, 1 of them scanned: 24 + 4 per question = 28 × 10 = 280 planned, 230 left,
  // 10 tokens per generation at 0.5 tokens per ms: 4,600 ms.
  const left = remainingMs(plan, { ...base, doneQuestions: 2, scannedQuestions: 1 });
  assert.ok(left !== undefined && Math.abs(left - 4600) < 1e-6, String(left));
});

test('the warm-up estimate: plan, tokens per generation, measured speed, in words', async () => {
  const dataset = smallDataset(5);
  const model = fakeFor(dataset);
  const e = await estimateAudit(model, dataset.questions, settingsFor());
  assert.ok(e);
  assert.equal(e.questions, 5);
  assert.deepEqual(e.generations, { least: 5 * 24, most: 5 * 32 });
  assert.equal(e.warmUp.sequences, 16);
  assert.ok(e.warmUp.tokens > 0 && e.warmUp.tokensPerSecond > 0);
  assert.ok(e.seconds.least > 0 && e.seconds.most > e.seconds.least);
  const text = estimateText(e);
  assert.match(text.plan, /^5 questions × \(deployment 1 \+ sample 6 \+ routes 6 \+ search 6 \+ global-routes 5\) = 120 generations, \+ repair 8 per scanned question \(up to 160\)$/);
  assert.match(text.cost, /^about [\d,]+–[\d,]+ tokens \(\d+ per generation\), about \S+–\S+ at [\d.]+ tokens\/s \(measured warm-up: 16 sequences, \d+ tokens in [\d.]+ s\)$/);
});

test('a run hands out its estimate before the first question, and progress shows no time left before one is measured', async () => {
  const dataset = smallDataset(6);
  const events: string[] = [];
  const progress: AuditProgress[] = [];
  await runAudit({
    model: fakeFor(dataset),
    modelInfo: { path: '/m', contentHash: 'h' },
    engineVersion: 'test',
    dataset,
    questions: dataset.questions,
    settings: settingsFor(),
    name: 't',
    folder: tempDir(),
    resume: false,
    inFlight: 2,
    onEstimate: () => events.push('estimate'),
    onRecord: () => events.push('record'),
    onProgress: (p) => progress.push(p),
  });
  assert.equal(events[0], 'estimate');
  assert.equal(events.filter((e) => e === 'estimate').length, 1);
  for (const p of progress) if (p.doneThisSession === 0) assert.equal(p.remainingMs, undefined);
  assert.ok(progress.some((p) => p.remainingMs !== undefined && p.tokensPerSecond !== undefined));
  assert.equal(progress.at(-1)!.done, 6);
});
