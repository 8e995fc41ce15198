/**
 * Walkthrough defect 3: a stopped run has no summary.json, so the panel said it had "no paired
 * comparison" of routes and search. The extension computes it over the finished questions, the
 * same numbers the summary would hold for them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unfinishedNumbers } from '../../../src/extension/panel/unfinishedNumbers';
import { compareProbes } from '../../../src/audit/results/probeComparison';
import type { QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

function records(n: number, probes: string[]): QuestionRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const reach: Record<string, boolean> = { routes: i % 3 !== 0, search: i % 4 !== 0, sample: i % 2 === 0 };
    const entries = probes.map((p) => [p, { budget: 4, attempts: Array.from({ length: 4 }, (_, k) => deployed(reach[p] && k === 0)), correct: Array.from({ length: 4 }, (_, k) => reach[p] && k === 0), cost: { generations: 4, tokens: 4, blockApplications: 4 } }] as const);
    return testRecord(`q${i}`, i + 1, { probes: Object.fromEntries(entries), reachable: Object.fromEntries(probes.map((p) => [p, reach[p]])) });
  });
}

test('a run without a summary that ran routes and search: the summary\'s comparison over its finished questions', () => {
  const recs = records(99, ['sample', 'routes', 'search']);
  const numbers = unfinishedNumbers(recs, false);
  assert.ok(numbers);
  assert.equal(numbers.n, 99);
  assert.deepEqual(numbers.routesVsSearch, compareProbes(recs, 'routes', 'search'));
});

test('nothing when the run has its summary, no finished question, or not both probes', () => {
  assert.equal(unfinishedNumbers(records(30, ['routes', 'search']), true), undefined);
  assert.equal(unfinishedNumbers([], false), undefined);
  assert.equal(unfinishedNumbers(records(30, ['sample', 'routes']), false), undefined);
});
