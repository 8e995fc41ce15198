import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseGlobalRoute, selectConfidence, selectMajority } from '../../../src/audit/probes/blindSelectors';
import type { Attempt } from '../../../src/contract';
import { grade } from '../../../src/audit/answers/grade';
import type { Question } from '../../../src/audit/question';

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
  assert.deepEqual(selectMajority([attempt(null, false, 0)], key), { answer: null, correct: false, attempt: null, dropped: 1 });
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

test('blind pools are cleaned before selecting: no answer, or cut at the token limit without an answer marker', () => {
  // Graded as the audit grades them: the same function, on a GSM8K question whose gold is 18.
  const q: Question = { id: 'q', line: 1, schema: 'gsm8k', format: 'gsm8k', text: '', gold: '18', raw: {} };
  const graded = (output: string, logprob: number, truncated = false): Attempt => ({ ...grade(output, q, { truncated }), output, logprob, tokens: 10 });
  const junk = graded('dollars dollars dollars 111111 dollars - - 7', -0.01, true); // degenerate, cut: "7" with no marker
  const cutMarked = graded('9 * 2 = 18\n#### 18\nQuestion: next', -0.9, true); // cut after its marker: kept
  const none = graded('I am not sure how to', -0.02); // no answer at all
  const stated = graded('She makes 9 * 2 = 18 dollars.\nThe answer is 18.', -0.5);
  const wrong = graded('The answer is 7.', -0.6);
  // Unclean, the junk would win confidence (highest mean log-prob) and tie majority on 7.
  const attempts = [junk, none, wrong, stated, cutMarked];
  const conf = selectConfidence(attempts);
  assert.deepEqual([conf.attempt, conf.answer, conf.correct, conf.dropped], [3, '18', true, 2]);
  const maj = selectMajority(attempts, key);
  assert.deepEqual([maj.attempt, maj.answer, maj.correct, maj.dropped], [3, '18', true, 2]);
  // A truncated member with no marker never carries the majority's pick, even as its most confident.
  const votes = [graded('The answer is 7.', -0.4), graded('so it is 7', -0.05, true), graded('The answer is 7.', -0.5), graded('The answer is 18.', -0.3)];
  const picked = selectMajority(votes, key);
  assert.deepEqual([picked.attempt, picked.answer, picked.dropped], [0, '7', 1]);
  // Nothing clean: no choice, and the count says why.
  assert.deepEqual(selectConfidence([junk, none]), { answer: null, correct: false, attempt: null, dropped: 2 });
  // No gold is read: the same outputs against another gold leave the same pool.
  const other: Question = { ...q, gold: '7' };
  const regraded = attempts.map((a) => ({ ...a, ...grade(a.output, other, { truncated: a.truncated }) }));
  assert.equal(selectConfidence(regraded).attempt, 3);
  assert.equal(selectMajority(regraded, key).dropped, 2);
  // Records of runs made before the strict view was recorded: the rule says whether it was a marker.
  const old = (rule: string): Attempt => ({ output: '', answer: '5', correct: true, truncated: true, rule, logprob: -0.1, tokens: 1 });
  assert.equal(selectConfidence([old('gsm8k-flexible'), old('gsm8k-strict')]).attempt, 1);
});
