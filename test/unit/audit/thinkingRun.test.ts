/**
 * A run of a thinking model (docs/design/grading.md, thinking): outputs cut while thinking are
 * counted apart in summary.json and the text summary, kept out of blind pools, and regrade says
 * which part of each output it read; a model that does not think gets no new keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { emptyRegradeCounts, regradeRecord } from '../../../src/audit/runner/regrade';
import { summarize } from '../../../src/audit/results/summary';
import { formatSummary } from '../../../src/audit/report/summaryText';
import { runReportHtml } from '../../../src/audit/report/htmlReport';
import { questionRecordSchema, runSummarySchema } from '../../../src/audit/store/runFileSchemas';
import type { GenerateOptions, Generation, GenerationRequest } from '../../../src/engine/types';
import type { QuestionRecord } from '../../../src/contract';
import { FakeGenerator } from './fakeGenerator';
import { settingsFor, smallDataset } from './fixtures';

/** The fake's outputs inside a thought: a third never close it (as if cut while thinking), the rest answer after it. */
class ThinkingFake extends FakeGenerator {
  override async generate(requests: readonly GenerationRequest[], signal?: AbortSignal, options?: GenerateOptions): Promise<Generation[]> {
    const plain = await super.generate(requests, signal, options);
    return plain.map((g, i) => {
      const u = createHash('sha256').update(JSON.stringify([requests[i].promptIds.length, requests[i].route, requests[i].silencedMlp, requests[i].decoding.seed, g.text])).digest().readUInt32LE(0) / 2 ** 32;
      return { ...g, text: u < 1 / 3 ? `<think>so the answer is ${g.text.replace(/\D+/g, ' ').trim()}` : `<think>#### 99</think>${g.text}` };
    });
  }
}

async function audit(fake: FakeGenerator): Promise<QuestionRecord[]> {
  const dataset = smallDataset(24);
  const records: QuestionRecord[] = [];
  await auditQuestions(fake, dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { inFlight: 8 });
  return records.sort((a, b) => a.line - b.line);
}

function outputsOf(records: readonly QuestionRecord[]) {
  return records.flatMap((r) => [r.realized, ...Object.values(r.probes).flatMap((p) => p.attempts), ...(r.globalRoutes?.attempts ?? [])]);
}

test('outputs cut while thinking are counted apart, like truncation, and are never correct', async () => {
  const dataset = smallDataset(24);
  const records = await audit(new ThinkingFake(8, new Map(dataset.questions.map((q) => [q.text, q.gold]))));
  const outputs = outputsOf(records);
  const unfinished = outputs.filter((o) => o.thought === 'unfinished');
  assert.ok(unfinished.length > 10 && unfinished.length < outputs.length, `${unfinished.length} of ${outputs.length}`);
  assert.ok(unfinished.every((o) => o.answer === null && !o.correct && o.rule === 'none'));
  assert.ok(outputs.every((o) => o.thought !== undefined), 'every output here has a thought');
  assert.ok(outputs.filter((o) => o.thought === 'finished').every((o) => o.answer !== '99'), 'the #### 99 inside each thought is never read');
  const s = summarize(records);
  const u = s.unfinishedThoughts!;
  assert.equal(u.realized, records.filter((r) => r.realized.thought === 'unfinished').length);
  for (const p of s.probes) {
    const attempts = records.flatMap((r) => r.probes[p].attempts);
    assert.deepEqual(u.probes[p], { unfinished: attempts.filter((a) => a.thought === 'unfinished').length, outputs: attempts.length });
  }
  const pooled = records.flatMap((r) => r.globalRoutes?.attempts ?? []);
  assert.deepEqual(u.globalRoutes, { unfinished: pooled.filter((a) => a.thought === 'unfinished').length, outputs: pooled.length });
  const scanned = records.flatMap((r) => Object.values(r.repair?.unfinishedThoughtBySilencedBlock ?? {}));
  assert.ok(scanned.length > 0);
  assert.deepEqual(u.repair, { unfinished: scanned.filter(Boolean).length, outputs: scanned.length });
  assert.ok(v.safeParse(runSummarySchema, JSON.parse(JSON.stringify(s))).success);
  for (const r of records) assert.ok(v.safeParse(questionRecordSchema, JSON.parse(JSON.stringify(r))).success, r.id);
  assert.match(formatSummary(s), new RegExp(`cut while thinking \\(the thought never closed; no answer read\\): deployment ${u.realized}/${s.n}; sample ${u.probes.sample.unfinished}/${u.probes.sample.outputs}`));
  const html = runReportHtml({ name: 'thinking', model: 'm', dataset: 'd', summary: s, records });
  assert.ok(html.includes(`<th class="sub">cut while thinking</th><td>${u.realized}/${s.n}</td>`), 'the HTML report counts them too');
  assert.ok(html.includes('(cut while thinking)'), 'and marks each such deployed answer');
  // Blind picks never come from an unfinished thought.
  for (const r of records) {
    for (const [p, picks] of Object.entries(r.blind)) {
      for (const pick of Object.values(picks)) if (pick.attempt !== null) assert.notEqual(r.probes[p].attempts[pick.attempt].thought, 'unfinished');
    }
  }
});

test('a model that does not think: no thought keys in records, none in the summary', async () => {
  const dataset = smallDataset(24);
  const records = await audit(new FakeGenerator(8, new Map(dataset.questions.map((q) => [q.text, q.gold]))));
  assert.ok(outputsOf(records).every((o) => !('thought' in o)));
  assert.ok(records.every((r) => !r.repair || !('unfinishedThoughtBySilencedBlock' in r.repair)));
  const s = summarize(records);
  assert.equal('unfinishedThoughts' in s, false);
  assert.doesNotMatch(formatSummary(s), /thinking/);
});

test('regrade reports which part it read; a record graded before thoughts were read apart changes verdict', async () => {
  const dataset = smallDataset(24);
  const records = await audit(new ThinkingFake(8, new Map(dataset.questions.map((q) => [q.text, q.gold]))));
  const byId = new Map(dataset.questions.map((q) => [q.id, q]));
  const settings = settingsFor();
  const counts = emptyRegradeCounts();
  const again = records.map((r) => regradeRecord(r, byId.get(r.id)!, settings.grading, counts, settings.repair.referenceProbes));
  const outputs = outputsOf(records);
  assert.deepEqual(counts.read, { afterThought: outputs.filter((o) => o.thought === 'finished').length, unfinishedThought: outputs.filter((o) => o.thought === 'unfinished').length });
  assert.equal(counts.changed, 0, 'the same rules give the same verdicts');
  assert.deepEqual(again.map((r) => r.realized), records.map((r) => r.realized));
  // An old record: the unfinished thought was read whole and its number taken as the answer.
  const old = records.find((r) => r.realized.thought === 'unfinished')!;
  const stale: QuestionRecord = { ...old, realized: { ...old.realized, answer: old.gold, correct: true, rule: 'gsm8k-flexible' } };
  delete stale.realized.thought;
  const fixed = regradeRecord(stale, byId.get(old.id)!, settings.grading, emptyRegradeCounts(), settings.repair.referenceProbes);
  assert.deepEqual([fixed.realized.answer, fixed.realized.correct, fixed.realized.thought], [null, false, 'unfinished']);
});
