/**
 * The story of a run of few questions (src/contract/questionStory.ts) on records the real audit
 * wrote (test/fixtures/runs), the skipped steps and their reasons, the side view's escaping, and
 * the random-routes-vs-search view of summary.json's paired comparison.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { ProbeComparison, QuestionRecord, RunManifest, RunSummary } from '../../../src/contract';
import { countsText, gradingText, probeLine, questionsText, questionStory, readingText, repairLine, RATE_MIN_QUESTIONS, ruleText, skippedSteps, storyCounts, STORY_WORDS } from '../../../src/contract/questionStory';
import { escapeHtml } from '../../../src/common';
import { sidebarStory, storyHtml } from '../../../src/extension/sidebar/storyHtml';
import { routesVsSearchView } from '../../../webview/src/charts/routesVsSearch';
import { testRecord } from '../../support/questionRecord';

const FIXTURE = path.resolve(__dirname, '../../../../test/fixtures/runs/2026-12-01T09-30-00Z-demo-base');
const read = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(FIXTURE, file), 'utf8')) as T;
const records = fs.readFileSync(path.join(FIXTURE, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
const manifest = read<RunManifest>('manifest.json');
const summary = read<RunSummary>('summary.json');

test('a question\'s story: deployed vs gold with its rule, which attempts were right per probe, blind picks, repair row', () => {
  for (const record of records) {
    const story = questionStory(record);
    assert.equal(story.gold, record.gold);
    assert.deepEqual(story.deployed, { answer: record.realized.answer, correct: record.realized.correct, rule: record.realized.rule, truncated: record.realized.truncated });
    for (const p of story.probes) {
      const result = record.probes[p.probe];
      assert.equal(p.budget, result.budget);
      assert.deepEqual(p.right.map((r) => r.attempt), result.correct.flatMap((ok, i) => (ok ? [i] : [])));
      for (const r of p.right) {
        const a = result.attempts[r.attempt];
        assert.deepEqual([r.route, r.seed, r.answer], [a.route, a.seed, a.answer]);
      }
      assert.equal(p.reachable, record.reachable[p.probe]);
      // The most frequent answers, most frequent first, counted over every attempt.
      const tally = new Map<string | null, number>();
      for (const a of result.attempts) tally.set(a.answer, (tally.get(a.answer) ?? 0) + 1);
      assert.deepEqual(p.answers.map((a) => a.count), [...tally.values()].sort((x, y) => y - x).slice(0, 3));
      for (const a of p.answers) assert.equal(tally.get(a.answer), a.count);
    }
    assert.equal(story.blind.length, Object.values(record.blind).reduce((n, s) => n + Object.keys(s).length, 0));
    assert.equal(story.repair?.inFailureSet, record.repair?.inFailureSet);
  }
  // The first fixture question: realized, reached by routes (attempt #2) and not by sampling.
  const first = questionStory(records[0]);
  const routes = first.probes.find((p) => p.probe === 'routes')!;
  const cut = records[0].probes.routes.attempts.filter((a) => a.truncated).length;
  assert.equal(probeLine(routes), `routes: ${routes.right.length} of 4 attempts right (${routes.right.map((r) => `#${r.attempt + 1}`).join(', ')})${cut ? `; ${cut} cut at the token limit` : ''} · reachable`);
  assert.ok(routes.right.every((r) => Array.isArray(r.route) && r.route.length > 0), 'a right route attempt names its route');
  assert.equal(probeLine(first.probes.find((p) => p.probe === 'sample')!).endsWith('· not reached'), true);
  assert.equal(ruleText('gsm8k-strict'), 'read by gsm8k-strict (the first “#### N”)');
  assert.equal(ruleText('something-new'), 'read by something-new');
  assert.equal(ruleText('none'), 'no rule found an answer');
});

test('the repair row in words', () => {
  const failure = questionStory(records.find((r) => r.repair?.inFailureSet)!);
  assert.match(repairLine(failure.repair!), /^In the failure set \(reachable, not realized\); /);
  assert.equal(
    repairLine({ inFailureSet: true, realized: false, scanned: 8, repairedBy: [2, 5], damagedBy: [] }),
    'In the failure set (reachable, not realized); silencing blocks 2, 5 makes it right (of 8 scanned)',
  );
  assert.equal(repairLine({ inFailureSet: false, realized: true, scanned: 8, repairedBy: [], damagedBy: [] }), 'Realized; silencing any of the 8 blocks keeps it right');
  assert.equal(repairLine({ inFailureSet: false, realized: true, scanned: 8, repairedBy: [], damagedBy: [3] }), 'Realized; silencing block 3 breaks it (of 8 scanned)');
  assert.match(repairLine({ inFailureSet: false, realized: false, scanned: 0, repairedBy: [], damagedBy: [] }), /^Not scanned: .*this question is neither$/);
});

test('skipped steps: rates under 20 questions, the global-route pool, the identified block with a failure set of 1', () => {
  const steps = skippedSteps(manifest, summary, records);
  assert.deepEqual(steps.map((s) => s.step), ['Rates and 95% intervals', 'Identified repair block']);
  assert.match(steps[0].why, /^shown from 20 questions on; over 8 questions/);
  assert.match(steps[1].why, /needs a failure set of at least 2 questions \(this run's has 1\)$/);

  const skippedPool = { ...manifest, globalRoutes: { count: 0, routes: [], skipped: 'global-route selection skipped: it picks a route on half of the run\'s questions and scores it on the other half, which needs at least 20 questions (this run has 1)' } };
  const one = skippedSteps(skippedPool, undefined, records.slice(0, 1));
  assert.deepEqual(one.map((s) => s.step), ['Rates and 95% intervals', 'Global-route selection'], 'no repair verdict without a summary (a live run)');
  assert.match(one[1].why, /^it picks a route on half .*\(this run has 1\)$/);

  const noFailures = skippedSteps(manifest, { ...summary, repair: { ...summary.repair!, failureSetSize: 0, failureSet: [], identifiedBlock: null, repairRate: null, ci: null, n: 0 } }, records);
  assert.equal(noFailures[1].step, 'Repair analysis');
  assert.match(noFailures[1].why, /^the failure set is empty/);
  assert.deepEqual(skippedSteps({ ...manifest, repair: { enabled: false, referenceProbes: [] } }, summary, records).map((s) => s.step), ['Rates and 95% intervals', 'Repair scan']);

  // From 20 questions on rates are shown; a measured repair rate is no skipped step.
  const many = Array.from({ length: RATE_MIN_QUESTIONS }, (_, i) => testRecord(`q${i}`, i + 1));
  assert.deepEqual(skippedSteps(manifest, { ...summary, n: RATE_MIN_QUESTIONS, repair: { ...summary.repair!, n: 3, repairRate: 0.5 } }, many), []);
});

test('counts of a small run', () => {
  const c = storyCounts(records);
  assert.deepEqual(c, {
    n: 8,
    realized: records.filter((r) => r.realized.correct).length,
    reachable: ['sample', 'routes'].map((probe) => ({ probe, count: records.filter((r) => r.reachable[probe]).length })),
    reachableAny: records.filter((r) => Object.values(r.reachable).some(Boolean)).length,
    failureSet: 1,
    skipped: 0,
  });
});

test('the counts line and the reading in words, as the panel and the side view both say them', () => {
  const c = storyCounts(records);
  const count = (probe: string) => records.filter((r) => r.reachable[probe]).length;
  assert.equal(questionsText(8), '8 questions');
  assert.equal(questionsText(1, true), '1 question so far');
  assert.equal(
    countsText(c, true),
    `realized ${c.realized} of 8 · reachable by sample ${count('sample')} of 8, routes ${count('routes')} of 8 · by any probe ${c.reachableAny} of 8 · failure set 1`,
  );
  assert.ok(!countsText({ ...c, failureSet: 0 }, false).includes('failure set'), 'no repair scan: no failure set');
  assert.match(countsText({ ...c, failureSet: 0, skipped: 2 }, true), / · failure set 0 · 2 not audited \(prompt too long\)$/);
  const cut = { answer: '4', correct: false, rule: 'gsm8k-strict', truncated: true };
  assert.equal(readingText(cut, 'graded by the stated answer'), `${ruleText('gsm8k-strict')} · cut at the token limit · graded by the stated answer`);
  assert.equal(readingText({ ...cut, truncated: false }, undefined), ruleText('gsm8k-strict'));

  // The side view uses those words (escaped), not its own.
  const html = storyHtml(sidebarStory(records.slice(0, 3), manifest, undefined));
  const three = storyCounts(records.slice(0, 3));
  assert.ok(html.includes(`<strong>3 questions</strong> · ${escapeHtml(countsText(three, true))}</p>`), html);
  const first = questionStory(records[0]);
  assert.ok(html.includes(escapeHtml(readingText(first.deployed, gradingText(manifest, first.deployed.truncated)))), html);
  if (records.slice(0, 3).some((r) => Object.keys(r.blind).length > 0)) assert.ok(html.includes(`<p>${STORY_WORDS.blindPicks}</p>`));
});

test('the side view\'s story escapes question, gold and answers', () => {
  const xss = '<img src=x onerror=alert(1)>';
  const record: QuestionRecord = { ...records[0], id: `id ${xss}`, question: `Q ${xss}`, gold: xss };
  const html = storyHtml(sidebarStory([record], manifest, undefined));
  assert.ok(!html.includes('<img'), html);
  assert.ok(html.includes('Q &lt;img src=x onerror=alert(1)&gt;'));
  assert.ok(html.includes('vs gold <code>&lt;img'));
  assert.ok(html.includes('<strong>1 question</strong>'));
  // Attempts that were right name their route.
  assert.match(html, /#\d route \d+( \d+)+ → /);
});

const COMPARISON: ProbeComparison = {
  a: 'routes',
  b: 'search',
  budget: { a: 16, b: 16 },
  match: 'matched',
  cost: {
    a: { generations: 4800, tokens: 132000, blockApplications: 1_500_000 },
    b: { generations: 4800, tokens: 100000, blockApplications: 1_200_000 },
    ratio: { generations: 1, tokens: 1.32, blockApplications: 1.25 },
  },
  n: 300,
  onlyA: 21,
  onlyB: 9,
  both: 150,
  neither: 120,
  mcnemarP: 0.0428,
  difference: { estimate: 0.04, lo: 0.0067, hi: 0.0733 },
  exhausted: { a: { questions: 2, examples: [{ id: 'x', evaluated: 11, budget: 16 }, { id: 'y', evaluated: 14, budget: 16 }] }, b: { questions: 0, examples: [] } },
};

test('routes vs search: tiles and costs from summary.json, the unmatched label, the interval only from 20 questions', () => {
  const view = routesVsSearchView(COMPARISON)!;
  assert.equal(view.unmatched, undefined);
  assert.deepEqual(view.tiles.map((t) => [t.label, t.value, t.detail]), [
    ['Δ reachable (routes − search)', '+4.0 pts', '[+0.7, +7.3] pts n=300'],
    ['Only routes', '21', 'of n=300'],
    ['Only search', '9', 'of n=300'],
    ['Both', '150', 'neither 120'],
    ['McNemar (exact)', 'p = 0.043', '30 discordant'],
  ]);
  assert.deepEqual(view.costs.map((c) => [c.measure, c.a, c.b, c.ratio]), [
    ['generations', '4,800', '4,800', '1.00×'],
    ['generated tokens', '132,000', '100,000', '1.32×'],
    ['block applications', '1,500,000', '1,200,000', '1.25×'],
  ]);
  assert.deepEqual(view.notes, ['routes ran out of distinct routes on 2 questions (evaluated 11–14 of 16).']);

  const unmatched = routesVsSearchView({ ...COMPARISON, match: 'unmatched', budget: { a: 16, b: 8 }, cost: { ...COMPARISON.cost, ratio: { generations: 2, tokens: 2.6, blockApplications: null } } })!;
  assert.equal(unmatched.unmatched, 'UNMATCHED budgets: routes 16 vs search 8 generations per question');
  assert.equal(unmatched.costs[2].ratio, '—');

  const few = routesVsSearchView({ ...COMPARISON, n: 3, onlyA: 1, onlyB: 0, both: 1, neither: 1 })!;
  assert.ok(!few.tiles.some((t) => t.key === 'difference'), 'no interval over 3 questions');
  assert.match(few.notes[0], /^Over 3 questions the interval of the difference is left out/);
  assert.equal(routesVsSearchView(undefined), undefined);
});
