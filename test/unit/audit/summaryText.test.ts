import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions } from '../../../src/audit/run/questionPipeline';
import type { QuestionRecord } from '../../../src/audit/run/record';
import { summarize } from '../../../src/audit/results/summary';
import { formatSummary } from '../../../src/audit/report/summaryText';
import { fakeFor, settingsFor, smallDataset } from './fixtures';

test('the terminal summary gives every rate with its interval and n', async () => {
  const dataset = smallDataset(20);
  const records: QuestionRecord[] = [];
  await auditQuestions(fakeFor(dataset), dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { chunkSize: 10 });
  const text = formatSummary(summarize(records));
  const rateLines = text.split('\n').filter((l) => /^\s+(realized|reachable|answer-blind)/.test(l));
  assert.ok(rateLines.length >= 3 + 3 + 6);
  for (const line of rateLines) assert.match(line, /\d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+\d+\/\d+/, line);
  assert.match(text, /repair rate on held-out F: \d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+\d+\/\d+/);
  assert.match(text, /damage to realized questions: \d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+n = \d+/);
});
