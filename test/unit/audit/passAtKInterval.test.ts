/**
 * pass@k's interval in summary.json: a Wilson interval wherever every question's value is 0 or 1
 * (pass@B of the unbiased estimator, every k of the search's first-k curve), the same interval as
 * the reachable rate beside it; a percentile bootstrap only for values between 0 and 1 and only
 * from 20 questions on.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarize } from '../../../src/audit/results/summary';
import { wilsonInterval, type QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

/** n questions; question i's sample attempts are right at the listed indices (of 4), search's likewise. */
function run(n: number, right: (i: number) => number[]): QuestionRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const correct = [0, 1, 2, 3].map((k) => right(i).includes(k));
    const probe = { budget: 4, attempts: correct.map((c) => ({ ...deployed(c) })), correct, cost: { generations: 4, tokens: 4, blockApplications: 4 } };
    return testRecord(`q${i}`, i + 1, { realized: deployed(false), probes: { sample: probe, search: probe }, reachable: { sample: correct.some(Boolean), search: correct.some(Boolean) } });
  });
}

const pattern = (i: number) => (i % 3 === 0 ? [] : i % 3 === 1 ? [2] : [0, 1, 3]);

test('pass@B and every first-k value are 0/1 per question: Wilson, equal to the reachable rate\'s interval', () => {
  const s = summarize(run(30, pattern));
  const reached = 20;
  assert.equal(s.reachable.sample.successes, reached);
  assert.deepEqual(s.passAtKCi.sample['4'], wilsonInterval(reached, 30));
  assert.deepEqual(s.passAtKCi.sample['4'], s.reachable.sample.ci, 'pass@8 beside reachable: one interval, not two');
  // Search's first-k: solved within the first k attempts, 0/1 at every k.
  assert.equal(s.passAtKKind.search, 'first-k');
  assert.deepEqual(s.passAtKCi.search['1'], wilsonInterval(10, 30));
  assert.deepEqual(s.passAtKCi.search['3'], wilsonInterval(20, 30));
  // pass@1 of the sampler (1/4 or 3/4 on a question) keeps its bootstrap interval at 30 questions.
  const ci = s.passAtKCi.sample['1'];
  assert.ok(ci && ci.lo < s.passAtK.sample['1'] && s.passAtK.sample['1'] < ci.hi);
  assert.notDeepEqual(ci, wilsonInterval(Math.round(30 * s.passAtK.sample['1']), 30));
});

test('below 20 questions: no percentile bootstrap (the value stands without an interval); Wilson still where values are 0/1', () => {
  const s = summarize(run(12, pattern));
  assert.equal(s.passAtKCi.sample['1'], undefined);
  assert.equal(s.passAtKCi.sample['2'], undefined);
  assert.deepEqual(s.passAtKCi.sample['4'], wilsonInterval(8, 12));
  assert.ok(Number.isFinite(s.passAtK.sample['1']));
});
