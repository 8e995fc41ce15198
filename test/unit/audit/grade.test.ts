import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grade, answersEqual, normalizeAnswer, type Grade } from '../../../src/audit/answers/grade';
import { lastBoxed, normalizeBoxed } from '../../../src/audit/answers/boxed';
import { extractGsm8kStrict, extractLastNumber } from '../../../src/audit/answers/gsm8k';
import { parseRational, rationalKey } from '../../../src/audit/answers/rational';
import type { AnswerFormat, Choice, Question } from '../../../src/audit/question';
import { callWithin } from '../../support/boundedCall';

/** The fields these assertions were written against (a Grade also carries its strict/flexible views). */
function core(g: Grade): Pick<Grade, 'answer' | 'rule' | 'correct' | 'truncated'> {
  return { answer: g.answer, rule: g.rule, correct: g.correct, truncated: g.truncated };
}

function question(format: AnswerFormat, gold: string, extra: Partial<Question> = {}): Question {
  return { id: 'q', line: 1, schema: 'generic', format, text: 'text', gold, raw: {}, ...extra };
}

const ABCD: Choice[] = ['dry palms', 'wet palms', 'palms covered with oil', 'palms covered with lotion'].map((text, i) => ({ label: 'ABCD'[i], text }));

test('rationals: exact, comma/$ tolerant, sign-aware', () => {
  const key = (s: string) => {
    const r = parseRational(s);
    return r ? rationalKey(r) : null;
  };
  assert.equal(key('1,000'), '1000');
  assert.equal(key('1000.00'), '1000');
  assert.equal(key('$1,000'), '1000');
  assert.equal(key('.5'), '1/2');
  assert.equal(key('0.5'), '1/2');
  assert.equal(key('3/4'), '3/4');
  assert.equal(key('6/8'), '3/4');
  assert.equal(key('-3'), '-3');
  assert.equal(key('−3'), '-3'); // unicode minus
  assert.equal(key('18.'), '18');
  assert.equal(key('50%'), '50');
  assert.equal(key('1e3'), '1000');
  // 0.1 + 0.2 is not 0.3 in floats; as rationals 0.3 is exactly 3/10.
  assert.equal(key('0.30000000000000004'), '7500000000000001/25000000000000000');
  assert.equal(key('1/0'), null);
  assert.equal(key('twelve'), null);
  assert.equal(key('1/2/3'), null);
  assert.equal(key('1 2'), null);
  assert.equal(key('$ 5'), '5');
  assert.equal(key('-$5'), '-5');
  assert.equal(key(''), null);
});

test('gsm8k: strict takes the first "#### N", flexible the last number', () => {
  assert.equal(extractGsm8kStrict('She makes 9 * 2 = $18 every day.\n#### 18\n#### 20'), '18');
  assert.equal(extractGsm8kStrict('#### $1,000.'), '$1,000');
  assert.equal(extractGsm8kStrict('####-3'), '-3');
  assert.equal(extractGsm8kStrict('no marker 5'), null);
  assert.equal(extractLastNumber('He made a profit of 200,000-130,000=$70,000.'), '$70,000');
  assert.equal(extractLastNumber('So the answer is 18.'), '18');
  assert.equal(extractLastNumber('The temperature is -3 degrees'), '-3');
  // A hyphen between numbers is not a minus sign.
  assert.equal(extractLastNumber('pages 10-12'), '12');
  assert.equal(extractLastNumber('It is .5 of the cake'), '.5');
  assert.equal(extractLastNumber('3/4 of the pie'), '3/4');
  assert.equal(extractLastNumber('no digits'), null);
});

test('gsm8k grading on real outputs', () => {
  const q = question('gsm8k', '18');
  assert.deepEqual(core(grade('Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 18', q)), {
    answer: '18',
    rule: 'gsm8k-strict',
    correct: true,
    truncated: false,
  });
  assert.deepEqual(core(grade('She makes $18 every day at the market.', q)), { answer: '$18', rule: 'gsm8k-flexible', correct: true, truncated: false });
  // strict wins over a later number
  assert.equal(grade('#### 17\nWait, 18.', q).correct, false);
  assert.deepEqual(core(grade('I cannot solve this.', q)), { answer: null, rule: 'none', correct: false, truncated: false });

  const big = question('gsm8k', '70000');
  assert.equal(grade('So he made a profit of $70,000.\n#### 70,000', big).correct, true);
  assert.equal(grade('#### 70000.00', big).correct, true);
  assert.equal(grade('#### $70,000', big).correct, true);
  assert.equal(grade('#### 7000', big).correct, false);

  const neg = question('gsm8k', '-3');
  assert.equal(grade('4 - 7 = -3\n#### -3', neg).correct, true);
  assert.equal(grade('#### 3', neg).correct, false);

  const half = question('gsm8k', '0.5');
  assert.equal(grade('#### .5', half).correct, true);
  assert.equal(grade('#### 1/2', half).correct, true);
  assert.equal(grade('#### 0.50', half).correct, true);
});

test('a truncated output is graded and flagged', () => {
  const q = question('gsm8k', '18');
  // Cut before its "####": flexible extraction takes the last number so far.
  const g = grade('Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = ', q, { truncated: true });
  assert.deepEqual(core(g), { answer: '2', rule: 'gsm8k-flexible', correct: false, truncated: true });
  const boxed = grade('so the probability is $\\boxed{\\frac{1}{', question('boxed', '\\frac{1}{2}'), { truncated: true });
  assert.deepEqual(core(boxed), { answer: null, rule: 'none', correct: false, truncated: true });
});

test('boxed: last \\boxed with balanced (nested) braces', () => {
  assert.equal(lastBoxed('so $\\boxed{\\frac{1}{2}}$.'), '\\frac{1}{2}');
  assert.equal(lastBoxed('$\\boxed{\\frac{\\sqrt{3}}{2}}$'), '\\frac{\\sqrt{3}}{2}');
  assert.equal(lastBoxed('first \\boxed{1} then \\boxed{2}'), '2');
  assert.equal(lastBoxed('$\\boxed{\\{0,1\\}}$'), '\\{0,1\\}');
  assert.equal(lastBoxed('the answer is $\\boxed 5$.'), '5');
  assert.equal(lastBoxed('\\fbox{7}'), '7');
  assert.equal(lastBoxed('\\boxed{\\frac{1}{2}'), null); // unterminated
  assert.equal(lastBoxed('no box'), null);
});

test('boxed normalization', () => {
  assert.equal(normalizeBoxed('\\dfrac{1}{2}'), '\\frac{1}{2}');
  assert.equal(normalizeBoxed('\\tfrac12'), '\\frac{1}{2}');
  assert.equal(normalizeBoxed('\\left( 3, \\frac{\\pi}{2} \\right)'), '(3,\\frac{\\pi}{2})');
  assert.equal(normalizeBoxed('90^\\circ'), '90');
  assert.equal(normalizeBoxed('90^{\\circ}'), '90');
  assert.equal(normalizeBoxed('10\\text{ cm}'), '10');
  assert.equal(normalizeBoxed('\\text{(C)}'), '(C)');
  assert.equal(normalizeBoxed('x = 5'), '5');
  assert.equal(normalizeBoxed('5.0'), '5');
  assert.equal(normalizeBoxed('2.50'), '2.5');
  assert.equal(normalizeBoxed('\\$1,000'), '1000');
  assert.equal(normalizeBoxed('50\\%'), '50');
  assert.equal(normalizeBoxed('3/4'), '\\frac{3}{4}');
  assert.equal(normalizeBoxed('\\sqrt2'), '\\sqrt{2}');
  assert.equal(normalizeBoxed('10\\!000'), '10000');
  assert.equal(normalizeBoxed('(2,100)'), '(2,100)'); // a pair, not a thousands comma
});

test('boxed grading: strings after normalization, numbers as rationals', () => {
  const half = question('boxed', '\\frac{1}{2}');
  assert.deepEqual(core(grade('The probability is $\\boxed{\\frac{1}{2}}$.', half)), { answer: '\\frac{1}{2}', rule: 'boxed', correct: true, truncated: false });
  assert.equal(grade('$\\boxed{\\dfrac{1}{2}}$', half).correct, true);
  assert.equal(grade('$\\boxed{0.5}$', half).correct, true);
  assert.equal(grade('$\\boxed{2/4}$', half).correct, true);
  assert.equal(grade('$\\boxed{\\frac{1}{3}}$', half).correct, false);
  const root = question('boxed', '\\frac{\\sqrt{3}}{2}');
  assert.equal(grade('so $\\cos 30^\\circ = \\boxed{\\frac{\\sqrt{3}}{2}}$', root).correct, true);
  assert.equal(grade('$\\boxed{\\dfrac{\\sqrt3}{2}}$', root).correct, true);
  assert.equal(grade('$\\boxed{\\frac{\\sqrt{2}}{2}}$', root).correct, false);
  const negFrac = question('boxed', '-\\frac{3}{4}');
  assert.equal(grade('\\boxed{\\frac{-3}{4}}', negFrac).correct, true);
  assert.equal(grade('\\boxed{-0.75}', negFrac).correct, true);
  assert.equal(grade('\\boxed{0.75}', negFrac).correct, false);
  const set = question('boxed', '\\{0,1\\}');
  assert.equal(grade('$\\boxed{\\{0, 1\\}}$', set).correct, true);
  // Minerva-style final answer line when the output has no box.
  assert.deepEqual(core(grade('Final Answer: The final answer is $\\frac{1}{2}$. I hope it is correct.', half)), {
    answer: '\\frac{1}{2}',
    rule: 'boxed-final-answer',
    correct: true,
    truncated: false,
  });
  const deg = question('boxed', '90^\\circ');
  assert.equal(grade('\\boxed{90}', deg).correct, true);
});

test('choice: answer lines, lone letters, only the question\'s labels', () => {
  const q = question('choice', 'C', { choices: ABCD });
  const cases: [string, string | null, string][] = [
    ['Answer: C', 'C', 'choice-answer-line'],
    ['answer:c', 'C', 'choice-answer-line'],
    ['The answer is (C).', 'C', 'choice-answer-line'],
    ['The correct answer is C because oil reduces friction.', 'C', 'choice-answer-line'],
    ['**Answer:** C', 'C', 'choice-answer-line'],
    ['Answer: **C**', 'C', 'choice-answer-line'],
    ['Answer: C\nQuestion: next one\nAnswer: A', 'C', 'choice-answer-line'],
    ['Answer:\n\nThe correct option is C', 'C', 'choice-answer-line'],
    ['The answer is [C]', 'C', 'choice-answer-line'],
    ['C', 'C', 'choice-lone-letter'],
    ['(C)', 'C', 'choice-lone-letter'],
    ['C.', 'C', 'choice-lone-letter'],
    ['C. palms covered with oil', 'C', 'choice-leading-letter'],
    ['palms covered with oil', 'C', 'choice-text'],
  ];
  for (const [output, answer, rule] of cases) {
    const g = grade(output, q);
    assert.equal(g.answer, answer, output);
    assert.equal(g.rule, rule, output);
    assert.equal(g.correct, answer === 'C', output);
  }
  // "E" is not a label of this question: no answer rather than a wrong one.
  assert.deepEqual(core(grade('Answer: E', q)), { answer: null, rule: 'none', correct: false, truncated: false });
  // The article "a" is not option A.
  assert.equal(grade('The answer is a type of friction.', q).answer, null);
  assert.equal(grade('Answer: Because oil is slippery', q).answer, null);
  // A lowercase label ending the statement is a label.
  assert.equal(grade('the answer is (b)', q).answer, 'B');
  assert.equal(grade('The answer is B.', q).correct, false);
});

test('choice with numeric labels (ARC uses 1-4 for some questions)', () => {
  const q = question('choice', '1', { choices: ['store bile', 'produce bile', 'store enzymes', 'produce enzymes'].map((text, i) => ({ label: String(i + 1), text })) });
  assert.equal(grade('Answer: 1', q).correct, true);
  assert.equal(grade('Answer: 2', q).correct, false);
  assert.equal(grade('Answer: 12', q).answer, null);
});

test('exact and regex formats', () => {
  const q = question('exact', 'Paris');
  assert.deepEqual(core(grade('Paris', q)), { answer: 'Paris', rule: 'exact', correct: true, truncated: false });
  assert.equal(grade('  paris. ', q).correct, true);
  assert.deepEqual(core(grade('Let me think.\nAnswer: Paris', q)), { answer: 'Paris', rule: 'exact-answer-line', correct: true, truncated: false });
  assert.equal(grade('Lyon', q).correct, false);
  assert.deepEqual(core(grade('', q)), { answer: null, rule: 'none', correct: false, truncated: false });

  const r = question('regex', 'Tokyo', { pattern: 'capital is (\\w+)' });
  assert.deepEqual(core(grade('The capital is Tokyo, of course.', r)), { answer: 'Tokyo', rule: 'regex', correct: true, truncated: false });
  assert.equal(grade('I do not know', r).rule, 'none');
  assert.equal(grade('city: Tokyo', r, { pattern: 'city: (\\w+)' }).correct, true);
  assert.throws(() => grade('x', question('regex', 'x')), /needs a prediction pattern/);
});

test('answersEqual and normalizeAnswer agree (majority-vote buckets)', () => {
  const groups: [AnswerFormat, string[][]][] = [
    ['gsm8k', [['1,000', '1000', '1000.00', '$1,000'], ['0.5', '.5', '1/2'], ['-3'], ['3']]],
    ['boxed', [['\\frac{1}{2}', '\\dfrac{1}{2}', '0.5', '1/2'], ['\\frac{\\sqrt{3}}{2}', '\\dfrac{\\sqrt3}{2}'], ['x^2+1', 'x^2 + 1']]],
    ['choice', [['B', 'b', ' B '], ['C']]],
    ['exact', [['Paris', 'paris.', ' Paris '], ['Lyon']]],
  ];
  for (const [format, buckets] of groups) {
    const all = buckets.flat();
    for (const a of all) {
      for (const b of all) {
        const same = buckets.some((g) => g.includes(a) && g.includes(b));
        assert.equal(answersEqual(a, b, format), same, `${format}: ${a} vs ${b}`);
        assert.equal(normalizeAnswer(a, format) === normalizeAnswer(b, format), same, `${format} keys: ${a} vs ${b}`);
      }
    }
  }
});

test('boxed: a box command at the very start followed by a letter is no box, and reading it ends', async () => {
  // Found by the fuzz pass: a MATH solution "\boxedJn*}0T&1I}" (its "{" lost) made lastBoxed loop
  // for ever, hanging the dataset reader; a model output starting so would hang grading the same way.
  for (const text of ['\\boxedJn*}0T&1I}', '\\fboxsep=2pt', '\\boxedx']) {
    assert.deepEqual(await callWithin(5000, 'audit/answers/boxed', 'lastBoxed', text), { value: null }, text);
  }
  assert.equal(lastBoxed('\\fboxsep \\boxed{3}'), '3');
  assert.equal(lastBoxed('\\boxedx \\boxed{4}'), '4');
  const graded = await callWithin(5000, 'audit/answers/grade', 'grade', '\\boxedJn then nothing', question('boxed', '1'));
  assert.ok('value' in graded);
  assert.deepEqual(core(graded.value as Grade), { answer: null, rule: 'none', correct: false, truncated: false });
});
