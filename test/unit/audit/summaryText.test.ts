import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import type { QuestionRecord } from '../../../src/contract';
import { summarize } from '../../../src/audit/results/summary';
import { chanceText, formatSummary, probeComparisonLines } from '../../../src/audit/report/summaryText';
import { chanceLevel } from '../../../src/audit/results/chanceLevel';
import { fakeFor, settingsFor, smallDataset } from './fixtures';

test('the terminal summary gives every rate with its interval and n', async () => {
  const dataset = smallDataset(20);
  const records: QuestionRecord[] = [];
  await auditQuestions(fakeFor(dataset), dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { inFlight: 10 });
  const text = formatSummary(summarize(records));
  const rateLines = text.split('\n').filter((l) => /^\s+(realized|reachable|answer-blind)/.test(l));
  // realized; reachable by 3 probes and the ceiling; blind: sample 2 selectors, routes 3 (search is not answer-blind)
  assert.ok(rateLines.length >= 1 + 4 + 5, `${rateLines.length} rate lines`);
  assert.doesNotMatch(text, /answer-blind search/);
  assert.match(text, /reachable by any probe \(ceiling, 18 attempts: sample 6 \+ routes 6 \+ search 6\)/);
  assert.match(text, /of which not realized\s+\d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+\d+\/\d+/);
  assert.match(text, /routes vs search \(matched budget, 6 generations each; n = 20 paired questions\): only routes \d+, only search \d+, both \d+, neither \d+; exact McNemar p = /);
  assert.match(text, /spent routes \/ search: generations 120\/120 \(1\.00×\), tokens \d+\/\d+ \(\d\.\d\d×\)/);
  assert.match(text, /pass@k sample \(unbiased\)\s+@1 \d+\.\d% \[\d+\.\d%, \d+\.\d%\]/);
  for (const line of rateLines) assert.match(line, /\d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+\d+\/\d+/, line);
  assert.match(text, /repair rate on held-out F: \d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+\d+\/\d+/);
  assert.match(text, /damage to realized questions: \d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+n = \d+/);
  assert.match(text, /blind pool: \d+ of 120 routes candidates \(\d+\.\d%\) left out before selecting — no answer, or cut at the token limit without an answer marker \(20 questions\)/);
});

test('the terminal summary states plainly when a choice-format rate is not above chance, and labels unmatched budgets', () => {
  const low = chanceLevel(Array.from({ length: 50 }, (_, i) => ({ options: 4, attempts: 16, reached: i < 49 })));
  assert.match(chanceText(low), /^chance 99\.0% \(4 options × 16 attempts\); observed − chance [-+]?\d+\.\d pts \[-?\d+\.\d, [-+]?\d+\.\d\] \(Wilson, shifted\); NOT above chance: uniform guessing reaches 99\.0%/);
  const high = chanceLevel(Array.from({ length: 50 }, (_, i) => ({ options: 4, attempts: 1, reached: i < 40 })));
  assert.match(chanceText(high), /chance 25\.0% \(4 options × 1 attempt\); observed − chance \+\d+\.\d pts \[\+\d+\.\d, \+\d+\.\d\] \(Wilson, shifted\); above chance \(exact p = /);
  const lines = probeComparisonLines({
    a: 'routes', b: 'search', budget: { a: 16, b: 8 }, match: 'unmatched', n: 3, onlyA: 1, onlyB: 0, both: 1, neither: 1, mcnemarP: 1,
    cost: { a: { generations: 48, tokens: 100, blockApplications: 800 }, b: { generations: 24, tokens: 50, blockApplications: 400 }, ratio: { generations: 2, tokens: 2, blockApplications: 2 } },
    difference: { estimate: 1 / 3, lo: 0, hi: 2 / 3 },
    exhausted: { a: { questions: 0, examples: [] }, b: { questions: 0, examples: [] } },
  });
  assert.match(lines[0], /UNMATCHED budgets: routes 16 vs search 8 generations per question/);
});
