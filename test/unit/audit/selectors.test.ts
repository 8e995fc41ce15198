import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseGlobalRoute, selectConfidence, selectMajority } from '../../../src/audit/probes/blindSelectors';
import type { Attempt } from '../../../src/contract';

function attempt(answer: string | null, correct: boolean, logprob: number | null): Attempt {
  return { output: '', answer, correct, truncated: false, rule: 'x', logprob, tokens: 1 };
}
const key = (a: string) => a.replace(/,/g, '');

test('majority picks the most frequent normalized answer without the gold', () => {
  const c = selectMajority([attempt('1,000', false, -1), attempt('7', true, -0.1), attempt('1000', false, -2)], key);
  assert.equal(c.answer, '1,000');
  assert.equal(c.correct, false);
  assert.equal(c.attempt, 0);
});

test('majority ties go to the higher mean token log-prob', () => {
  const c = selectMajority([attempt('3', false, -1), attempt('4', true, -0.2), attempt('3', false, -1.2), attempt('4', true, -0.4)], key);
  assert.equal(c.answer, '4');
  assert.equal(c.correct, true);
  assert.equal(c.attempt, 1);
});

test('candidates without an answer do not vote; none at all gives no choice', () => {
  assert.equal(selectMajority([attempt(null, false, 0), attempt('5', true, -3)], key).answer, '5');
  assert.deepEqual(selectMajority([attempt(null, false, 0)], key), { answer: null, correct: false, attempt: null });
});

test('confidence picks the highest mean log-prob (first on ties; null log-prob ranks last)', () => {
  assert.equal(selectConfidence([attempt('1', false, null), attempt('2', true, -0.5), attempt('3', false, -0.5)]).attempt, 1);
  assert.equal(selectConfidence([]).answer, null);
});

test('log-probs within float32 rounding of each other are a tie: the earlier candidate keeps the pick', () => {
  // The same output decoded in two batches: mean log-probs 4e-8 apart (measured on the demo model).
  const a = -0.12012718172155117;
  const b = -0.12012713265692176;
  assert.equal(selectMajority([attempt('5', true, a), attempt('5', true, b)], key).attempt, 0);
  assert.equal(selectMajority([attempt('5', true, b), attempt('5', true, a)], key).attempt, 0);
  assert.equal(selectConfidence([attempt('5', true, a), attempt('6', false, b)]).attempt, 0);
  assert.equal(selectConfidence([attempt('6', false, b), attempt('5', true, a)]).attempt, 0);
  // A real difference still decides.
  assert.equal(selectConfidence([attempt('6', false, -0.13), attempt('5', true, -0.12)]).attempt, 1);
  assert.equal(selectMajority([attempt('5', true, -0.13), attempt('5', true, -0.12)], key).attempt, 1);
});

test('global route: best accuracy on the selection questions, ties to the lower index', () => {
  assert.equal(chooseGlobalRoute([[false, true, true], [false, true, true], [true, false, true]], 3), 2);
  assert.equal(chooseGlobalRoute([[true, true], [false, false]], 2), 0);
  assert.equal(chooseGlobalRoute([], 0), undefined);
});
