/**
 * When the panel says a comparison is too small to judge: at most 30 paired questions with no
 * decided difference; a decided verdict (better / worse / equivalent) over 20 or more stands alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison } from '../../../src/contract';
import { smallSampleNote } from '../../../webview/src/comparison/smallSampleNote';

const delta = (n: number, verdict: string) => ({ n, base: 0.5, tuned: 0.4, delta: -0.1, ci: { lo: -0.3, hi: 0.1 }, gained: 1, lost: 2, mcnemarP: 0.5, decision: { verdict, margin: 0.05, questionsNeeded: null } });
// The fields the note reads, as comparison.json carries them (the webview gets it as parsed JSON).
const comparison = (n: number, verdict = 'inconclusive'): Comparison => JSON.parse(JSON.stringify({ n, realized: delta(n, verdict), reachableCeiling: delta(n, verdict), reachable: {} })) as Comparison;

test('8 or 30 undecided paired questions: too few to judge, said with n', () => {
  assert.match(smallSampleNote(comparison(8))!, /^8 paired questions are too few to judge a difference between the checkpoints: on so few, either one can come out ahead by chance/);
  assert.match(smallSampleNote(comparison(30))!, /^30 paired questions are too few/);
  assert.match(smallSampleNote(comparison(1))!, /^1 paired question is too few/);
});

test('more than 30, a decided verdict, or no comparison: nothing said', () => {
  assert.equal(smallSampleNote(comparison(31)), undefined);
  assert.equal(smallSampleNote(comparison(25, 'worse')), undefined);
  assert.equal(smallSampleNote(comparison(25, 'equivalent')), undefined);
  assert.equal(smallSampleNote(undefined), undefined);
  // Under 20 a verdict is never read (counts only), so a stored one does not silence the note.
  assert.match(smallSampleNote(comparison(8, 'worse'))!, /^8 paired questions/);
});
