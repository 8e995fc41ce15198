import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions } from '../../../src/audit/run/questionPipeline';
import { parseDataset } from '../../../src/audit/dataset/dataset';
import { escapeHtml, runReportHtml } from '../../../src/audit/report/htmlReport';
import type { QuestionRecord } from '../../../src/audit/run/record';
import { summarize } from '../../../src/audit/results/summary';
import { FakeGenerator } from './fakeGenerator';
import { settingsFor } from './fixtures';

test('the HTML report escapes dataset text and loads nothing remote', async () => {
  const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
  const dataset = parseDataset('/v.jsonl', JSON.stringify({ id: `<b>"id"</b>`, question: `What is 2+2? ${evil}`, answer: '#### 4' }) + '\n');
  const records: QuestionRecord[] = [];
  const model = new FakeGenerator(8, new Map(dataset.questions.map((q) => [q.text, q.gold])));
  await auditQuestions(model, dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { chunkSize: 4 });
  const html = runReportHtml({ name: `run ${evil}`, model: '/m', dataset: '/d', summary: summarize(records), records });
  assert.ok(!html.includes('<script'), 'no script element at all');
  assert.ok(!/<img/i.test(html));
  assert.ok(html.includes(escapeHtml(evil)));
  assert.ok(html.includes('&lt;b&gt;&quot;id&quot;&lt;/b&gt;'));
  assert.ok(!/(src|href)\s*=\s*["']?(https?:)?\/\//i.test(html), 'no remote resources');
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  assert.match(html, /<svg /);
});
