import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { parseDataset } from '../../../src/audit/dataset/dataset';
import { runReportHtml } from '../../../src/audit/report/htmlReport';
import { escapeHtml } from '../../../src/common';
import type { QuestionRecord } from '../../../src/contract';
import { summarize } from '../../../src/audit/results/summary';
import { FakeGenerator } from './fakeGenerator';
import { settingsFor } from './fixtures';

test('the HTML report escapes dataset text and loads nothing remote', async () => {
  const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
  const dataset = parseDataset('/v.jsonl', JSON.stringify({ id: `<b>"id"</b>`, question: `What is 2+2? ${evil}`, answer: '#### 4' }) + '\n');
  const records: QuestionRecord[] = [];
  const model = new FakeGenerator(8, new Map(dataset.questions.map((q) => [q.text, q.gold])));
  await auditQuestions(model, dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { inFlight: 4 });
  const html = runReportHtml({ name: `run ${evil}`, model: '/m', dataset: '/d', summary: summarize(records), records });
  assert.ok(!html.includes('<script'), 'no script element at all');
  assert.ok(!/<img/i.test(html));
  assert.ok(html.includes(escapeHtml(evil)));
  assert.ok(html.includes('&lt;b&gt;&quot;id&quot;&lt;/b&gt;'));
  assert.ok(!/(src|href)\s*=\s*["']?(https?:)?\/\//i.test(html), 'no remote resources');
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  assert.match(html, /<svg /);
});

test('the HTML report shows routes vs search (budgets, spend ratios, paired counts), per-probe not-realized, blind retention and pass@k bands', async () => {
  const dataset = parseDataset('/v.jsonl', Array.from({ length: 12 }, (_, i) => JSON.stringify({ id: `q${i}`, question: `What is ${i}+${i}?`, answer: `#### ${2 * i}` })).join('\n') + '\n');
  const records: QuestionRecord[] = [];
  const model = new FakeGenerator(8, new Map(dataset.questions.map((q) => [q.text, q.gold])));
  const settings = settingsFor(8, { probes: [{ name: 'sample', budget: 4 }, { name: 'routes', budget: 6 }, { name: 'search', budget: 4 }] });
  await auditQuestions(model, dataset.questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: 12 });
  const summary = summarize(records);
  const html = runReportHtml({ name: 'run', model: '/m', dataset: '/d', summary, records });
  assert.match(html, /Random routes vs search — <strong>unmatched budgets<\/strong>/);
  assert.match(html, /UNMATCHED budgets: routes 6 vs search 4 generations per question; n = 12 paired questions\): only routes \d+, only search \d+, both \d+, neither \d+; exact McNemar p = /);
  assert.match(html, /spent routes \/ search: generations 72\/48 \(1\.50×\)/);
  assert.match(html, /of which not realized/);
  assert.match(html, /reachable ceiling \(any probe, 14 attempts: sample 4 \+ routes 6 \+ search 4\)/);
  assert.match(html, /share of the routes probe's gain kept|keeps — of routes/);
  assert.match(html, /shaded: 95% interval: Wilson where each question is 0 or 1, else bootstrap/);
  assert.match(html, /<polygon points="[\d.,\s]+" fill="#/);
  assert.doesNotMatch(html, /answer-blind search/);
});
