/**
 * `regrade` (src/audit/run/regrade.ts): the failure set follows the new verdicts, and the repair
 * scan, measured for the old one, is kept as measured and marked stale.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { emptyRegradeCounts, regradeRecord } from '../../../src/audit/runner/regrade';
import { summarize } from '../../../src/audit/results/summary';
import { formatSummary } from '../../../src/audit/report/summaryText';
import { DEFAULT_GRADING } from '../../../src/audit/answers/gradingSettings';
import { runSummarySchema, questionRecordSchema } from '../../../src/audit/store/runFileSchemas';
import type { QuestionRecord } from '../../../src/contract';
import { fakeFor, settingsFor, smallDataset } from './fixtures';
import * as v from 'valibot';

test('regrade recomputes the failure set and marks the repair scan stale', async () => {
  const dataset = smallDataset(30);
  const settings = settingsFor();
  const records: QuestionRecord[] = [];
  await auditQuestions(fakeFor(dataset), dataset.questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: 10 });
  records.sort((a, b) => a.line - b.line);
  const before = summarize(records);
  assert.equal(before.repair!.stale, undefined, 'an audited run is not stale');
  const members = records.filter((r) => r.repair!.inFailureSet);
  assert.ok(members.some((r) => !r.realized.truncated && r.realized.answer !== null), 'the fake gives a failure set with a wrong stated answer');

  // A changed rule seen through changed golds: the first member's deployed answer becomes right
  // (it leaves F), and an unreached question's gold becomes a probe's answer (it joins F).
  const leaving = members.find((r) => !r.realized.truncated && r.realized.answer !== null)!;
  const unreached = records.find((r) => !r.realized.correct && !settings.repair.referenceProbes.some((p) => r.reachable[p]) && r.probes.routes.attempts.some((a) => a.answer !== null));
  assert.ok(unreached, 'the fake leaves a question unreached with a stated answer');
  const goldOf = (r: QuestionRecord): string => (r === leaving ? r.realized.answer! : r === unreached ? r.probes.routes.attempts.find((a) => a.answer !== null)!.answer! : r.gold);
  const counts = emptyRegradeCounts();
  const byId = new Map(dataset.questions.map((q) => [q.id, q]));
  const after = records.map((r) => regradeRecord({ ...r, gold: goldOf(r) }, { ...byId.get(r.id)!, gold: goldOf(r) }, DEFAULT_GRADING, counts, settings.repair.referenceProbes));

  const now = after.filter((r) => r.repair?.inFailureSet);
  assert.ok(!now.some((r) => r.id === leaving.id), 'the realized question left F');
  if (unreached) assert.ok(now.some((r) => r.id === unreached.id), 'the newly reachable question joined F');
  assert.deepEqual(counts.failureSet, { before: members.length, after: now.length, joined: unreached ? 1 : 0, left: 1 });
  assert.equal(counts.staleRepair, records.filter((r) => r.repair).length);
  for (const r of after) if (r.repair) assert.ok(v.safeParse(questionRecordSchema, JSON.parse(JSON.stringify(r))).success, r.id);

  // The repair analysis stays that of the scan as measured, and says it is stale.
  const s = summarize(after);
  assert.deepEqual({ ...s.repair!, stale: undefined }, { ...before.repair!, stale: undefined });
  assert.deepEqual(s.repair!.stale, { failureSetSize: now.length, joined: unreached ? 1 : 0, left: 1 });
  assert.ok(v.safeParse(runSummarySchema, JSON.parse(JSON.stringify(s))).success);
  assert.match(formatSummary(s), /STALE: the scan was measured for the failure set before regrading \(\d+ questions, old grading\); the new verdicts give \d+ \(\d joined, 1 left\)/);

  // Regrading the regraded run keeps the membership the scan was measured for.
  const twice = after.map((r) => regradeRecord(r, { ...byId.get(r.id)!, gold: r.gold }, DEFAULT_GRADING, emptyRegradeCounts(), settings.repair.referenceProbes));
  assert.deepEqual(twice.map((r) => r.repair?.scannedAs), after.map((r) => r.repair?.scannedAs));
  assert.equal(twice.find((r) => r.id === leaving.id)!.repair!.scannedAs!.inFailureSet, true);
});
