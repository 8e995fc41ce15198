import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadDataset } from '../../../src/audit/dataset/dataset';

// Compiled tests run from out/test/unit/demo; the demo data stays in the source tree.
const ROOT = path.resolve(__dirname, '../../../..');
const DATA = path.join(ROOT, 'media/demo/data');
const PATTERNS = path.join(ROOT, 'tools/demo-model/train-patterns.txt');

interface ArithItem { id: string; question: string; answer: string }
interface ChoiceItem { id: string; question: { stem: string; choices: { label: string; text: string }[] }; answerKey: string }

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T);
}

/**
 * The number pattern of a question, as tools/demo-model/data.py defines it: the template id
 * (carried in the test id, e.g. arith-A03-0007) and the sorted numbers of the question's text.
 * Two questions with one pattern are the same problem up to wording.
 */
function pattern(id: string, text: string): string {
  const template = /^(?:arith|choice)-([AC]\d\d)-\d+$/.exec(id);
  assert.ok(template, `test id ${id} does not name its template`);
  const nums = (text.match(/\d+/g) ?? []).map(Number).sort((a, b) => a - b);
  return `${template[1]}:${nums.join(',')}`;
}

function trainingPatterns(): Set<string> {
  const lines = readFileSync(PATTERNS, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  return new Set(lines);
}

const arith = readJsonl<ArithItem>(path.join(DATA, 'arith-test.jsonl'));
const choice = readJsonl<ChoiceItem>(path.join(DATA, 'choice-test.jsonl'));

test('arith-test: at least 300 GSM8K questions, 2-3 worked steps that compute, ending in #### N', () => {
  assert.ok(arith.length >= 300, `only ${arith.length} questions`);
  const templates = new Set<string>();
  for (const q of arith) {
    const lines = q.answer.split('\n');
    const final = /^#### (\d+)$/.exec(lines[lines.length - 1]);
    assert.ok(final, `${q.id}: answer does not end in '#### N'`);
    const steps = lines.slice(0, -1);
    assert.ok(steps.length >= 2 && steps.length <= 3, `${q.id}: ${steps.length} steps`);
    let last = NaN;
    for (const s of steps) {
      const m = /^(\d+) ([-+*/]) (\d+) = (\d+)$/.exec(s);
      assert.ok(m, `${q.id}: step '${s}' is not 'x op y = z'`);
      const [x, op, y, z] = [Number(m[1]), m[2], Number(m[3]), Number(m[4])];
      const want = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y;
      assert.equal(z, want, `${q.id}: step '${s}' is wrong`);
      last = z;
    }
    assert.equal(Number(final[1]), last, `${q.id}: #### differs from the last step`);
    templates.add(q.id.split('-')[1]);
  }
  assert.ok(templates.size >= 10, `only ${templates.size} templates`);
  assert.equal(new Set(arith.map((q) => q.question)).size, arith.length, 'duplicate questions');
});

test('choice-test: at least 200 ARC questions with a valid answerKey', () => {
  assert.ok(choice.length >= 200, `only ${choice.length} questions`);
  for (const q of choice) {
    assert.equal(typeof q.question.stem, 'string');
    assert.deepEqual(q.question.choices.map((c) => c.label), ['A', 'B', 'C', 'D'], q.id);
    assert.ok(q.question.choices.some((c) => c.label === q.answerKey), `${q.id}: answerKey ${q.answerKey}`);
    assert.equal(new Set(q.question.choices.map((c) => c.text)).size, 4, `${q.id}: repeated choice`);
  }
});

test('the audit reads both files as their benchmark schemas, without issues', () => {
  const a = loadDataset(path.join(DATA, 'arith-test.jsonl'));
  assert.equal(a.schema, 'gsm8k');
  assert.equal(a.format, 'gsm8k');
  assert.deepEqual(a.issues, []);
  assert.equal(a.questions.length, arith.length);
  assert.equal(a.questions[0].id, arith[0].id);
  const c = loadDataset(path.join(DATA, 'choice-test.jsonl'));
  assert.equal(c.format, 'choice');
  assert.deepEqual(c.issues, []);
  assert.equal(c.questions.length, choice.length);
});

test('no test question, nor its number pattern under the same template, is in the training data', () => {
  const train = trainingPatterns();
  // The recipe trained on 12,000 arithmetic and 3,000 choice questions (10,991 distinct
  // patterns); a short list would mean the file is not the one the checkpoints were trained with.
  assert.ok(train.size >= 10000, `only ${train.size} training patterns`);
  const clashes: string[] = [];
  for (const q of arith) {
    if (train.has(pattern(q.id, q.question))) clashes.push(q.id);
  }
  for (const q of choice) {
    const text = [q.question.stem, ...q.question.choices.map((c) => c.text)].join(' ');
    if (train.has(pattern(q.id, text))) clashes.push(q.id);
  }
  assert.deepEqual(clashes, []);
});

test('the pattern check can fail: a training pattern of the same template is recognised', () => {
  const train = trainingPatterns();
  const sample = [...train].find((p) => p.startsWith('A00:'));
  assert.ok(sample);
  const nums = sample.slice(4).split(',');
  // The same numbers in another wording (and order) under template A00 is the same pattern.
  const reworded = `Ava had ${nums[2]} cups, got ${nums[0]} more and gave ${nums[1]} away.`;
  assert.ok(train.has(pattern('arith-A00-9999', reworded)));
  // The template is part of the pattern: the same numbers under another template are another problem.
  assert.notEqual(pattern('arith-A00-9999', reworded), pattern('arith-A01-9999', reworded));
});
