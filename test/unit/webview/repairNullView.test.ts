/**
 * The repair card's null sentences from a summary the audit wrote, and nothing from an older
 * summary or a malformed one.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRepair } from '../../../src/audit/repair/repairScan';
import { repairNullSentences } from '../../../webview/src/headline/repairNullView';
import type { QuestionRecord } from '../../../src/contract';
import { deployed, repairScan, testRecord } from '../../support/questionRecord';

test('random-block null, truncation split and net effect, as sentences with their n', () => {
  const records: QuestionRecord[] = [];
  for (let i = 0; i < 8; i++) records.push(testRecord(`f${i}`, i + 1, { realized: { ...deployed(false), truncated: i === 7 }, reachable: { sample: true }, repair: { ...repairScan(true, false, { '0': i % 2 === 0, '1': i < 6 }), splitKey: i / 8 } }));
  for (let i = 0; i < 4; i++) records.push(testRecord(`r${i}`, 20 + i, { realized: deployed(true), reachable: { sample: true }, repair: repairScan(false, true, { '0': true, '1': i !== 0 }) }));
  const summary = analyzeRepair(records)!;
  const lines = repairNullSentences(summary.identifiedBlock, JSON.parse(JSON.stringify(summary.null)));
  assert.equal(lines.length, 3);
  // Four held-out questions: no bootstrap interval (fewer than 20), said so; the exact p stands.
  assert.match(lines[0], /^Against a block drawn at random per question, on the same 4 held-out questions: \d+\.\d% \(median block \d+\.\d%\); identified − random [+−]\d+\.\d pts \(no bootstrap interval below 20 questions\), /);
  assert.match(lines[0], /exact one-sided \(Poisson-binomial\) p (=|<) /);
  assert.doesNotMatch(lines[0], /p p/, 'the p said once');
  assert.match(lines[1], /hit the token limit: \d of 1; where it did not: \d of 3\.$/);
  assert.match(lines[2], new RegExp(`^Net effect of silencing block ${summary.identifiedBlock} on the scanned questions .* n = 8\\): \\d repaired, \\d broken`));
  assert.deepEqual(repairNullSentences(1, undefined), [], 'an older summary: nothing');
  assert.deepEqual(repairNullSentences(1, { n: 'x' } as never), [], 'a malformed one: nothing');
});
