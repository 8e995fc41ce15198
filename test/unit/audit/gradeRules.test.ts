/**
 * The grading rules of docs/design/grading.md, each from real answer strings: the examples named
 * when the rules were set, and outputs in the shape models write them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grade, answersEqual } from '../../../src/audit/answers/grade';
import type { GradingSettings } from '../../../src/contract';
import { boxedEqual } from '../../../src/audit/answers/boxed';
import { extractGsm8k, gsm8kEqual } from '../../../src/audit/answers/gsm8k';
import { parseRational } from '../../../src/audit/answers/rational';
import type { AnswerFormat, Choice, Question } from '../../../src/audit/question';

function question(format: AnswerFormat, gold: string, extra: Partial<Question> = {}): Question {
  return { id: 'q', line: 1, schema: 'generic', format, text: 'text', gold, raw: {}, ...extra };
}

const LENIENT: GradingSettings = { correctBy: 'stated', truncated: 'lenient' };

test('gsm8k: a stated answer wins over a trailing number', () => {
  const q = question('gsm8k', '18');
  const sold = grade('The answer is 18 dollars. She sold 9 eggs.', q);
  assert.equal(sold.answer, '18');
  assert.equal(sold.rule, 'gsm8k-answer-phrase');
  assert.equal(sold.correct, true);
  // lm-eval's flexible-extract reads the last number; that view is kept beside the verdict.
  assert.deepEqual(sold.flexible, { answer: '9', correct: false });
  assert.deepEqual(sold.strict, { answer: null, correct: false });

  const next = grade('16 - 3 - 4 = 9 eggs, 9 * 2 = 18. The answer is 18.\n\nQuestion: A robe takes 2 bolts of blue fiber and half that much white fiber. How many bolts in total does it take?\nAnswer: 3', q);
  assert.equal(next.answer, '18');
  assert.equal(next.correct, true);
  assert.equal(next.flexible.answer, '3');

  // A self-correction counts its last stated answer; a made-up next question's does not count.
  const corrected = grade('The answer is 17. Wait, I missed one egg: 9 * 2 = 18.\nThe answer is 18 dollars.', q);
  assert.deepEqual([corrected.answer, corrected.rule, corrected.correct], ['18', 'gsm8k-answer-phrase', true]);
  const nextStated = grade('The answer is 18.\n\nQuestion: Tom has 3 apples and eats 1. How many are left?\nThe answer is 2.', q);
  assert.deepEqual([nextStated.answer, nextStated.correct], ['18', true]);
  const correctedThenNext = grade('The answer is 17. No wait, the answer is 18.\nQ: Tom has 3 apples. The answer is 3.', q);
  assert.equal(correctedThenNext.answer, '18');

  const boxed = grade('So she makes $\\boxed{18}$ dollars every day. Each egg costs 2.', q);
  assert.deepEqual([boxed.answer, boxed.rule, boxed.correct], ['18', 'gsm8k-boxed', true]);
  assert.equal(grade('The final answer is **$18**. That is 9 eggs at $2.', q).answer, '$18');
  // `#### N` comes first: it is the format's own marker (and lm-eval's strict-match).
  const marked = grade('The answer is 17.\n#### 18\nCheck: 9 * 2 = 18. Then 4.', q);
  assert.deepEqual([marked.answer, marked.rule, marked.correct], ['18', 'gsm8k-strict', true]);
  assert.deepEqual(marked.strict, { answer: '18', correct: true });
  assert.deepEqual(marked.flexible, { answer: '4', correct: false });
  // No statement: the last number, as before.
  assert.deepEqual(extractGsm8k('She makes 9 * 2 = $18 every day'), { answer: '$18', rule: 'gsm8k-flexible' });
});

test('gsm8k: the run chooses which view defines correct', () => {
  const q = question('gsm8k', '18');
  const out = 'The answer is 18 dollars. She sold 9 eggs.';
  assert.equal(grade(out, q, { grading: { correctBy: 'stated', truncated: 'strict' } }).correct, true);
  const strict = grade(out, q, { grading: { correctBy: 'strict', truncated: 'strict' } });
  assert.deepEqual([strict.answer, strict.rule, strict.correct], [null, 'none', false]);
  const flexible = grade(out, q, { grading: { correctBy: 'flexible', truncated: 'strict' } });
  assert.deepEqual([flexible.answer, flexible.rule, flexible.correct], ['9', 'gsm8k-flexible', false]);
  assert.equal(grade('#### 18', q, { grading: { correctBy: 'strict', truncated: 'strict' } }).correct, true);
});

test('gsm8k: gold and prediction read numbers by one rule (accepted forms)', () => {
  // `#### 1e3` was read as "1" while the gold "1e3" was 1000.
  const e = question('gsm8k', '1e3');
  const g = grade('#### 1e3', e);
  assert.deepEqual([g.answer, g.correct], ['1e3', true]);
  assert.equal(grade('#### 1000', e).correct, true);
  assert.equal(grade('#### 1', e).correct, false);
  assert.equal(grade('so it is 1e3', e).flexible.answer, '1e3');
  // "1,00" is not a thousands grouping: it is not silently 100 on either side.
  assert.equal(parseRational('1,00'), null);
  assert.equal(parseRational('1,0000'), null);
  assert.equal(parseRational('12,345.5')?.num, 24691n);
  assert.equal(parseRational('3/1,000')?.den, 1000n);
  const hundred = question('gsm8k', '100');
  const bad = grade('#### 1,00', hundred);
  assert.deepEqual([bad.answer, bad.correct], ['1,00', false]);
  assert.equal(grade('The total is 1,00', hundred).flexible.answer, '1,00');
  assert.equal(gsm8kEqual('1,00', '100'), false);
  assert.equal(gsm8kEqual('1,00', '1,00'), true); // the same text is the same answer
  // The forms that are numbers: sign, $, thousands commas, decimals, exponent, fraction, %.
  for (const [a, b] of [['-$1,234.50', '-1234.5'], ['2.5e-1', '1/4'], ['50%', '50'], ['−7', '-7'], ['$ 5', '5']]) assert.equal(gsm8kEqual(a, b), true, `${a} = ${b}`);
  // A word after `####` is not a number: lm-eval's strict-match does not read it either.
  assert.equal(grade('#### eighteen', question('gsm8k', '18')).strict.answer, null);
});

test('truncated outputs: correct only with an answer marker', () => {
  // A route attempt cut at the token limit, graded correct through the last number before.
  const junk = `dollars dollars dollars ${'1'.repeat(6)} dollars - - - - 1`;
  const one = question('gsm8k', '1');
  const cut = grade(junk, one, { truncated: true });
  assert.deepEqual([cut.answer, cut.rule, cut.correct, cut.truncated], ['1', 'gsm8k-flexible', false, true]);
  assert.equal(grade(junk, one, { truncated: true, grading: LENIENT }).correct, true);
  assert.equal(grade(junk, one).correct, true); // not truncated: the ordinary rule
  // A marker makes a truncated output count.
  assert.equal(grade('9 - 8 = 1\n#### 1\nQuestion: next one is about', one, { truncated: true }).correct, true);
  assert.equal(grade('so the answer is \\boxed{1} and then', one, { truncated: true }).correct, true);
  // "the answer is N" is no marker.
  assert.equal(grade('the answer is 1 and so on and so', one, { truncated: true }).correct, false);

  const box = question('boxed', '\\frac{1}{2}');
  assert.equal(grade('Final Answer: The final answer is $\\frac{1}{2}$. I hope', box, { truncated: true }).correct, false);
  assert.equal(grade('$\\boxed{\\frac{1}{2}}$. Now let us', box, { truncated: true }).correct, true);

  const abcd: Choice[] = ['a', 'b', 'c', 'd'].map((t, i) => ({ label: 'ABCD'[i], text: t }));
  const c = question('choice', 'C', { choices: abcd });
  assert.equal(grade('C', c, { truncated: true }).correct, false);
  assert.equal(grade('C', c, { truncated: true, grading: LENIENT }).correct, true);
  assert.equal(grade('Answer: C\nExplanation: because', c, { truncated: true }).correct, true);

  const exact = question('exact', 'Paris');
  assert.equal(grade('Paris', exact, { truncated: true }).correct, false);
  assert.equal(grade('Answer: Paris\nThe city', exact, { truncated: true }).correct, true);
});

test('boxed: matrices keep their row separators', () => {
  // MATH-500 golds that were not equal to their own whitespace-free form.
  for (const gold of [
    '\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}',
    '\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}',
    '\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}',
    '\\begin{pmatrix} -18 \\\\ -49 \\\\ 96 \\end{pmatrix}',
  ]) {
    assert.equal(boxedEqual(gold, gold.replace(/\s+/g, '')), true, gold);
    assert.equal(boxedEqual(gold, gold.replace(/\\\\/, '&')), false, `${gold}: a row is not a column`);
  }
  assert.equal(boxedEqual('\\begin{pmatrix} -2 \\\\ -14 \\end{pmatrix}', '\\begin{pmatrix}-2\\\\-14\\end{pmatrix}'), true);
  assert.equal(boxedEqual('\\begin{pmatrix} -2 \\\\ -14 \\end{pmatrix}', '\\begin{pmatrix} -2 \\\\ 14 \\end{pmatrix}'), false);
  assert.equal(boxedEqual('\\begin{pmatrix} -1/3 \\\\ 2/3 \\end{pmatrix}', '\\begin{pmatrix} -\\frac{1}{3} \\\\ \\frac{2}{3} \\end{pmatrix}'), true);
});

test('boxed: equal answers written differently', () => {
  const same: [string, string][] = [
    ['\\pi/2', '\\frac{\\pi}{2}'],
    ['\\left( 3, \\frac{\\pi}{2} \\right)', '(3, \\pi/2)'],
    ['2\\pi/3', '\\frac{2\\pi}{3}'],
    ['-\\pi/4', '-\\frac{\\pi}{4}'],
    ['2{,}220', '2220'],
    ['2{,}220', '2,220'],
    ['52_{8}', '52_8'],
    ['x^{2}+1', 'x^2+1'],
    ['C', '\\text{(C)}'],
    ['\\text{(C)}', '(C)'],
    ['10\\text{ cm}', '10'],
    ['\\frac{270}7\\text{ degrees}', '\\frac{270}{7}'],
    ['9\\text{ a.m.}', '9 \\text{a.m.}'],
  ];
  for (const [a, b] of same) {
    assert.equal(boxedEqual(a, b), true, `${a} = ${b}`);
    assert.equal(boxedEqual(b, a), true, `${b} = ${a}`);
  }
  const q = question('boxed', '\\frac{\\pi}{2}');
  assert.equal(grade('so $\\theta = \\boxed{\\pi/2}$', q).correct, true);
});

test('boxed: different answers, units included, stay different', () => {
  const different: [string, string][] = [
    ['9\\text{ a.m.}', '9\\text{ p.m.}'],
    ['10\\text{ cm}', '10\\text{ m}'],
    ['10\\text{ cm}^2', '10\\text{ cm}'],
    ['52_{8}', '52_{9}'],
    ['52_8', '52'],
    ['\\pi/2', '\\frac{\\pi}{3}'],
    ['a^2/b', 'a^{\\frac{2}{b}}'],
    ['(2,100)', '2100'],
    ['C', 'D'],
  ];
  for (const [a, b] of different) {
    assert.equal(boxedEqual(a, b), false, `${a} ≠ ${b}`);
    assert.equal(answersEqual(b, a, 'boxed'), false, `${b} ≠ ${a}`);
  }
  assert.equal(grade('It opens at $\\boxed{9\\text{ p.m.}}$', question('boxed', '9\\text{ a.m.}')).correct, false);
});

test('choice: "Option C", restated choice text, a rejected letter before the answer', () => {
  // ARC-Challenge Mercury_7175875.
  const planet: Choice[] = ['Planetary density will decrease.', 'Planetary years will become longer.', 'Planetary days will become shorter.', 'Planetary gravity will become stronger.'].map((text, i) => ({
    label: 'ABCD'[i],
    text,
  }));
  const q = question('choice', 'C', { choices: planet });
  const cases: [string, string | null, string][] = [
    ['Option C', 'C', 'choice-option'],
    ['I would pick option (C).', 'C', 'choice-option'],
    ['Answer: Planetary days will become shorter.', 'C', 'choice-text'],
    ['Answer: planetary days will become shorter', 'C', 'choice-text'],
    ['Answer: A is tempting, but the correct answer is C', 'C', 'choice-answer-line'],
    ['Option A is tempting, but option C fits: faster rotation means shorter days.', 'C', 'choice-option'],
    ['Answer: C\n\nQuestion: Which is a renewable resource?\nAnswer: A', 'C', 'choice-answer-line'],
    ['The answer is C because a faster spin shortens the day.', 'C', 'choice-answer-line'],
  ];
  for (const [output, answer, rule] of cases) {
    const g = grade(output, q);
    assert.deepEqual([g.answer, g.rule, g.correct], [answer, rule, answer === 'C'], output);
  }
  // Strict view: only an answer phrase.
  assert.deepEqual(grade('Option C', q).strict, { answer: null, correct: false });
  assert.deepEqual(grade('Answer: A is tempting, but the correct answer is C', q).strict, { answer: 'C', correct: true });
  // A text that is not one of the choices is no answer.
  assert.equal(grade('Answer: Planetary days will stay the same.', q).answer, null);
  // "the best choice a student can make" is the article, not option A.
  assert.equal(grade('This is the best choice a student can make', q).answer, null);
});

test('choice: an answer phrase beats option mentions; several labels are no answer; the last committed answer counts', () => {
  // ARC-Challenge Mercury_SC_409171 (gold B).
  const build: Choice[] = ['buildings will be built faster', 'buildings will be made safer', 'building designs will look nicer', 'building materials will be cheaper'].map((text, i) => ({ label: 'ABCD'[i], text }));
  const q = question('choice', 'B', { choices: build });
  const cases: [string, string | null, string][] = [
    // Option mentions walk through the choices; the answer phrase says which one.
    ['Option A: speed is not what a shake table tests. Option B: safety is. The answer is B.', 'B', 'choice-answer-line'],
    ['Option A: speed is not tested. Option D: cost is not tested either. The answer is B.', 'B', 'choice-answer-line'],
    ['Option B is about safety, but option D is about cost.\nAnswer: D', 'D', 'choice-answer-line'],
    // Several labels in one statement: no answer, and no earlier or later mention stands in.
    ['Answer: A or B', null, 'none'],
    ['The answer is A or B.', null, 'none'],
    ['Answer: A, B', null, 'none'],
    ['Answer: (A) and (B)', null, 'none'],
    ['Option B looks right. The answer is B or D.', null, 'none'],
    // A second letter that is set aside, or the article, is not a second label.
    ['The answer is B, and D is wrong because cost is not measured.', 'B', 'choice-answer-line'],
    ['The answer is B, a safer building.', 'B', 'choice-answer-line'],
    // Self-correction: the last committed answer.
    ['Answer: A ... no wait. A shake table tests how buildings survive. Answer: B', 'B', 'choice-answer-line'],
    ['Answer: B\n\nHmm, no wait, cost matters more. Answer: D', 'D', 'choice-answer-line'],
    ['I think the answer is A, since speed matters.\nActually, wait: the test measures safety, so the correct answer is B.', 'B', 'choice-answer-line'],
    // A made-up next question's answer is not this question's.
    ['Answer: B\n\nQuestion: Which gas do plants take in?\nA. oxygen\nB. nitrogen\nC. carbon dioxide\nAnswer: C', 'B', 'choice-answer-line'],
    ['Answer: B\n**Question 2:** Which is fastest?\nAnswer: A', 'B', 'choice-answer-line'],
  ];
  for (const [output, answer, rule] of cases) {
    const g = grade(output, q);
    assert.deepEqual([g.answer, g.rule, g.correct], [answer, rule, answer === 'B'], output);
  }
  // The strict view reads answer phrases by the same rules.
  assert.equal(grade('Answer: A or B', q).strict.answer, null);
  assert.equal(grade('Answer: A\nNo wait. Answer: B', q).strict.answer, 'B');
  assert.equal(grade('Option A: fast. The answer is B.', q).strict.answer, 'B');
  // Truncated: a committed answer phrase is still a marker; "A or B" is none.
  assert.equal(grade('Answer: A or B\nBecause', q, { truncated: true }).correct, false);
});

test('boxed: equivalent forms by rule and through the CAS, each with the rule that matched', () => {
  const same: [string, string, string][] = [
    ['\\frac{\\sqrt{3}}{2}', '\\sqrt{3}/2', 'symbolic'],
    ['\\frac{\\sqrt{2}}{2}', '\\frac{1}{\\sqrt{2}}', 'symbolic'],
    ['3\\sqrt{13}', '\\sqrt{117}', 'symbolic'],
    ['\\pi-2', '-2+\\pi', 'symbolic'],
    ['x^2+2x+1', '(x+1)^2', 'symbolic'],
    ['2^{50}', '\\sqrt{2}^{100}', 'symbolic'], // exact: in float64 the difference simplifies to 7.75
    ['\\pi', 'π', 'normalized'],
    ['\\frac{\\pi}{2}', 'π/2', 'normalized'],
    ['10', '10 cm', 'units-stripped'],
    ['10', '\\text{10 cm}', 'units-stripped'],
    ['5', '5\\text{ inches}', 'units-stripped'],
    ['12', '12 square units', 'units-stripped'],
    ['1,-2', '-2, 1', 'unordered-set'],
    ['-1, 4', 'x = 4 \\text{ or } x = -1', 'unordered-set'],
    ['2, 3', '3 and 2', 'unordered-set'],
    ['\\frac{1}{2}, -\\frac{1}{2}', '-0.5, 0.5', 'unordered-set'],
    ['5', '\\text{five}', 'number-word'],
    ['21', 'twenty-one', 'number-word'],
    ['1600', '1 600', 'rational'],
    ['\\frac{5}{54}', '\\frac{10}{108}', 'rational'],
  ];
  for (const [gold, said, rule] of same) {
    const g = grade(`so the answer is $\\boxed{${said}}$.`, question('boxed', gold));
    assert.deepEqual([g.correct, g.match], [true, { rule }], `${said} = ${gold}`);
  }
  // Several boxed answers in one final statement are one list; a box in an earlier sentence is not part of it.
  const roots = question('boxed', '2, 3');
  const two = grade('Factoring, $(x-2)(x-3)=0$, so $x=\\boxed{2}$ or $x=\\boxed{3}$.', roots);
  assert.deepEqual([two.answer, two.rule, two.correct, two.match], ['2, 3', 'boxed-several', true, { rule: 'normalized' }]);
  assert.equal(grade('The values are $\\boxed{3}$ and $\\boxed{2}$.', roots).correct, true);
  assert.equal(grade('The values are $\\boxed{3}$, $\\boxed{2}$', roots).strict.correct, true);
  const earlier = grade('First, $a = \\boxed{2}$. Then the other root is larger.\n\nSo the answer is $\\boxed{3}$.', roots);
  assert.deepEqual([earlier.answer, earlier.rule, earlier.correct], ['3', 'boxed', false]);
  assert.equal(grade('so $x = \\boxed{3}$ or $x = \\boxed{3}$', roots).rule, 'boxed'); // one answer boxed twice
});

test('boxed: the CAS does not make different answers equal', () => {
  const different: [string, string, string | undefined][] = [
    ['\\frac{\\sqrt{3}}{2}', '\\frac{\\sqrt{3}}{3}', undefined],
    ['0', '\\frac{1}{10^{12}}', undefined], // the library's isEqual would call these equal (tolerance)
    ['10^{20}', '10^{20}+1', undefined],
    ['\\frac{\\pi}{4}', '0.7853981633974483', 'cas-decimal'], // a decimal is exact, not an approximation
    ['(3,4]', '[3,4]', undefined],
    ['(1,2)', '(2,1)', undefined], // a tuple's order matters
    ['2,220', '220, 2', undefined], // a grouped number is one value
    ['10\\text{ cm}', '10 m', undefined],
    ['x^2', 'y^2', undefined],
    ['2, 3', '2, 3, 4', undefined],
    ['\\text{east}', '\\text{west}', undefined],
  ];
  for (const [gold, said, note] of different) {
    const g = grade(`$\\boxed{${said}}$`, question('boxed', gold));
    assert.equal(g.correct, false, `${said} ≠ ${gold}`);
    assert.equal(g.match?.rule, 'different', said);
    if (note) assert.equal(g.match?.note, note, said);
  }
  // "2 x" is not 2 with a unit x: only the listed unit words are units.
  assert.equal(grade('$\\boxed{2 x}$', question('boxed', '2')).correct, false);
});

test('boxed: every CAS comparison is bounded in input length and time', () => {
  const long = `${'(x+1)'.repeat(40)}`;
  const g = grade(`$\\boxed{${long}}$`, question('boxed', 'x'));
  assert.deepEqual([g.correct, g.match], [false, { rule: 'different', note: 'cas-input-too-long' }]);
  // Answers that differ, however pathological, are told apart by the float64 screen, far inside
  // the deadline (1 s each) whatever the machine's load, so their verdict never depends on it.
  const hard = ['99999^{99999}', '\\sqrt{\\sqrt{\\sqrt{\\sqrt{2}}}}^{1000}', '(x+1)^{30}', '\\frac{x^{40}-1}{x-1}', '2^{2^{2^{2^{2}}}}', '\\sin(\\cos(\\tan(e^{\\pi})))', '\\Gamma(\\frac{1}{3})', '(2^{100}+1)^{20}'];
  for (const said of hard) {
    const started = performance.now();
    const r = grade(`$\\boxed{${said}}$`, question('boxed', '3'));
    const ms = performance.now() - started;
    assert.equal(r.correct, false, said);
    assert.notEqual(r.match?.note, 'cas-timeout', said);
    assert.ok(ms < 1000, `${said}: ${ms.toFixed(0)} ms`);
  }
  // The fuzz's find (seed 318088138): E notation with a six-digit exponent took 28 s as a bignum, past the deadline.
  const started = performance.now();
  const e = grade('The final answer is 50527299E556124\n', question('boxed', '\\frac{1}{2}'), { truncated: true });
  assert.equal(e.correct, false);
  assert.ok(performance.now() - started < 1000, `${(performance.now() - started).toFixed(0)} ms`);
  assert.equal(grade('$\\boxed{5E556124}$', question('boxed', '\\frac{1}{2}')).match?.note, 'cas-large-exponent');
});

test('gsm8k: number words and space thousands separators in stated answers', () => {
  const seven = question('gsm8k', '7');
  const words = grade('She bought 3 on Monday and 4 on Tuesday, so seven DVDs.\nThe answer is seven.', seven);
  assert.deepEqual([words.answer, words.rule, words.correct, words.match], ['seven', 'gsm8k-answer-phrase', true, { rule: 'number-word' }]);
  assert.equal(grade('The answer is twenty-one.', question('gsm8k', '21')).correct, true);
  // "a" is the article, not a number: the last number is read instead, or a later answer phrase.
  assert.equal(grade('The answer is a lot: 12 in all.', question('gsm8k', '12')).answer, '12');
  const later = grade('The answer is a bit tricky. The answer is 12. Check: 3 * 4 = 12, plus 5.', question('gsm8k', '12'));
  assert.deepEqual([later.answer, later.rule], ['12', 'gsm8k-answer-phrase']);
  const grouped = question('gsm8k', '1,600');
  assert.deepEqual([grade('#### 1 600', grouped).answer, grade('#### 1 600', grouped).correct], ['1 600', true]);
  assert.equal(grade('The answer is 1 600 sticks.', grouped).correct, true);
  assert.equal(grade('#### 1 600', grouped).match?.rule, 'rational');
  // Groups of three only: "1 60" is not 160; in running prose the last number is read as before.
  assert.equal(gsm8kEqual('1 60', '160'), false);
  assert.equal(grade('He had 2 and then 600 more', question('gsm8k', '600')).answer, '600');
  assert.equal(grade('#### 18', question('gsm8k', '18')).match?.rule, 'rational');
});
