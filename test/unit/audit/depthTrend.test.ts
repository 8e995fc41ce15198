/** Depth of loss: "early vs late" is tested against a constant-rate null, not read off counts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { depthTrend } from '../../../src/audit/results/depthTrend';
import { depthSummary } from '../../../src/audit/results/depthSummary';
import { depthLines, depthTrendText } from '../../../src/audit/report/depthText';
import { seededRandom } from '../../../src/audit/stats';
import { testRecord } from '../../support/questionRecord';

test('one question reached only from the start of 5 prefixes: p = 1/5 exactly (its reached prefix is one of 5)', () => {
  const t = depthTrend([[true, false, false, false, false]]);
  assert.equal(t.informative, 1);
  assert.ok(Math.abs(t.p - 0.2) < 1e-12);
  assert.ok(Math.abs(t.minP - 0.2) < 1e-12);
  // Uninformative questions (none or all reached) are left out.
  assert.equal(depthTrend([[false, false], [true, true]]).informative, 0);
});

test('the same rate at every prefix: the trend test rejects about 5% of the time, where "late" counts reach 90%', () => {
  // q = 0.15 per sample, B = 4: each prefix reached with 1 − 0.85^4 ≈ 0.48, independently.
  const random = seededRandom(7, 'depth-null');
  let rejected = 0;
  let late = 0;
  const runs = 400;
  for (let r = 0; r < runs; r++) {
    const seqs = Array.from({ length: 30 }, () => Array.from({ length: 5 }, () => Array.from({ length: 4 }, () => random() < 0.15).some(Boolean)));
    if (depthTrend(seqs).p < 0.05) rejected++;
    late += seqs.filter((s) => s.lastIndexOf(true) >= 1).length / 30;
  }
  assert.ok(late / runs > 0.9, `late share ${late / runs}`);
  assert.ok(rejected / runs <= 0.05 + 3 * Math.sqrt(0.05 * 0.95 / runs), `size ${rejected / runs}`);
});

test('the depth summary carries the test, and the text calls early vs late counts, not a finding', () => {
  const point = (at: '0' | '1/4' | '1/2' | '3/4' | 'last-line', reached: boolean) => ({ at, tokens: 1, chars: 1, correct: [reached], answers: [null], reached });
  const records = [0, 1, 2].map((i) => testRecord(`q${i}`, i + 1, {
    depth: { budget: 4, outputTokens: 8, points: [point('0', true), point('1/4', i === 0), point('1/2', false), point('3/4', false), point('last-line', false)], deepestReached: 0, noReturn: null, lostIn: 1 as const, cost: { generations: 20, tokens: 20, blockApplications: 0 } },
  }));
  const d = depthSummary(records)!;
  assert.ok(d.trend && d.trend.informative === 3);
  const text = depthLines(d).join('\n');
  assert.match(text, /counts, not a finding: early/);
  assert.match(text, /p = 0\.0\d+ over 3 informative questions \(exact within-question permutation test against a constant rate at every prefix/);
  // One informative question cannot give p < 0.05 (its smallest is 1/5): too few to say.
  assert.match(depthTrendText(depthTrend([[true, false, false, false, false]])), /^does reach fall with depth\? too few to say: 1 question/);
});
