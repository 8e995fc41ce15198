/**
 * The grader on real benchmark samples (test/fixtures/benchmarks, provenance in its README): every
 * gold parses in its format, every reference solution grades correct against its own gold, and
 * each gold equals itself written without spaces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadDataset } from '../../../src/audit/dataset/dataset';
import { grade } from '../../../src/audit/answers/grade';
import { boxedEqual } from '../../../src/audit/answers/boxed';
import { parseRational } from '../../../src/audit/answers/rational';

// Compiled tests run from out/test/unit/audit; the fixtures stay in the source tree.
const BENCHMARKS = path.resolve(__dirname, '../../../../test/fixtures/benchmarks');
const load = (name: string) => loadDataset(path.join(BENCHMARKS, name));

test('GSM8K test sample: golds are numbers; the reference solutions grade correct', () => {
  const d = load('gsm8k-test-sample.jsonl');
  assert.equal(d.format, 'gsm8k');
  assert.equal(d.questions.length, 38);
  for (const q of d.questions) {
    assert.notEqual(parseRational(q.gold), null, `${q.id}: gold ${q.gold}`);
    const g = grade(String(q.raw.answer), q);
    assert.deepEqual([g.correct, g.rule, g.strict.correct], [true, 'gsm8k-strict', true], `${q.id}: ${q.gold}`);
  }
  assert.ok(d.questions.some((q) => q.gold.includes(',')), 'a thousands-separator gold');
  assert.ok(d.questions.some((q) => q.gold.startsWith('-')), 'a negative gold');
});

for (const file of ['math500-test-sample.jsonl', 'math-hendrycks-test-sample.jsonl']) {
  test(`${file}: golds equal themselves without spaces; the reference solutions grade correct`, () => {
    const d = load(file);
    assert.equal(d.format, 'boxed');
    for (const q of d.questions) {
      assert.ok(q.gold.trim() !== '', `${q.id}: empty gold`);
      assert.equal(boxedEqual(q.gold, q.gold.replace(/\s+/g, '')), true, `${q.id}: ${q.gold}`);
      const g = grade(String(q.raw.solution), q);
      assert.equal(g.correct, true, `${q.id}: solution's box ${g.answer} vs gold ${q.gold}`);
      // MATH-500 also states the answer apart from the solution: both must agree.
      if (typeof q.raw.answer === 'string') assert.equal(boxedEqual(q.raw.answer, q.gold), true, `${q.id}: answer field ${q.raw.answer}`);
    }
  });
}

for (const [file, n] of [['arc-challenge-test-sample.jsonl', 35], ['mmlu-test-sample.jsonl', 30], ['mmlu-pro-sample.jsonl', 20]] as const) {
  test(`${file}: golds are labels; "Answer: X", "Option X" and the choice's text grade correct`, () => {
    const d = load(file);
    assert.equal(d.format, 'choice');
    assert.equal(d.questions.length, n);
    for (const q of d.questions) {
      const choices = q.choices ?? [];
      const gold = choices.find((c) => c.label === q.gold);
      assert.ok(gold, `${q.id}: gold ${q.gold} is not one of ${choices.map((c) => c.label).join(',')}`);
      assert.equal(grade(`Answer: ${q.gold}`, q).correct, true, q.id);
      assert.equal(grade(`Option ${q.gold}`, q).correct, true, q.id);
      const other = choices.find((c) => c.label !== q.gold)!;
      assert.equal(grade(`Answer: ${other.label}`, q).correct, false, q.id);
      // Restating the text works when that text is not also another choice's.
      if (choices.filter((c) => c.text.trim().toLowerCase() === gold.text.trim().toLowerCase()).length === 1) {
        const g = grade(`Answer: ${gold.text}`, q);
        assert.equal(g.correct, true, `${q.id}: Answer: ${gold.text} → ${g.answer} (${g.rule})`);
      }
    }
  });
}

test('MMLU golds match the files\' own letters (answer_idx and gold)', () => {
  const d = load('mmlu-test-sample.jsonl');
  for (const q of d.questions) assert.equal(q.gold, q.raw.gold, q.id);
});
