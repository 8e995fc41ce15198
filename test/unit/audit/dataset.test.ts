import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadDataset, parseDataset, userMessage } from '../../../src/audit/dataset/dataset';
import { grade } from '../../../src/audit/answers/grade';
import { InputError } from '../../../src/common/errors';
import { callWithin } from '../../support/boundedCall';

// Compiled tests run from out/test/unit/audit; the fixtures stay in the source tree.
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/datasets');
const fixture = (name: string) => path.join(FIXTURES, name);

test('GSM8K JSONL: ids from line numbers, gold after ####, prompt verbatim', () => {
  const d = loadDataset(fixture('gsm8k.jsonl'));
  assert.equal(d.schema, 'gsm8k');
  assert.equal(d.format, 'gsm8k');
  assert.deepEqual(d.issues, []);
  assert.deepEqual(
    d.questions.map((q) => [q.id, q.line, q.gold]),
    [
      ['1', 1, '18'],
      ['2', 2, '3'],
      ['3', 3, '70000'],
      ['4', 4, '-3'],
    ],
  );
  const q = d.questions[0];
  assert.equal(userMessage(q), q.text);
  assert.match(q.text, /^Janet’s ducks lay 16 eggs/);
  assert.equal(q.raw.question, q.text);
  assert.equal(d.contentHash, createHash('sha256').update(readFileSync(fixture('gsm8k.jsonl'))).digest('hex'));
});

test('BOM, CRLF, blank lines and malformed lines: reported with their line numbers, the rest kept', () => {
  const d = loadDataset(fixture('gsm8k-crlf-malformed.jsonl'));
  assert.equal(d.schema, 'gsm8k');
  assert.deepEqual(
    d.questions.map((q) => [q.id, q.line, q.gold]),
    [
      ['1', 1, '4'],
      ['4', 4, '2.5'],
      ['8', 8, '3,000'],
    ],
  );
  assert.deepEqual(
    d.issues.map((i) => i.line),
    [3, 5, 6],
  );
  assert.match(d.issues[0].message, /invalid JSON/);
  assert.match(d.issues[1].message, /expected GSM8K .*"answer" has no "#### N"/);
  assert.match(d.issues[2].message, /expected a JSON object, got an array/);
  assert.equal(grade('#### 3000', d.questions[2]).correct, true);
  // The hash is over the raw bytes, BOM and CRLF included.
  assert.equal(d.contentHash, createHash('sha256').update(readFileSync(fixture('gsm8k-crlf-malformed.jsonl'))).digest('hex'));
});

test('ARC: ids, choices, numeric labels, the choice prompt', () => {
  const d = loadDataset(fixture('arc.jsonl'));
  assert.equal(d.schema, 'arc');
  assert.equal(d.format, 'choice');
  assert.deepEqual(
    d.questions.map((q) => [q.id, q.line, q.gold]),
    [
      ['Mercury_SC_415702', 1, 'A'],
      ['MCAS_2009_5_6516', 2, 'B'],
      ['NYSEDREGENTS_2006_8_10', 3, '1'],
    ],
  );
  assert.equal(
    userMessage(d.questions[0]),
    'George wants to warm his hands quickly by rubbing them. Which skin surface will produce the most heat?\n' +
      'A. dry palms\nB. wet palms\nC. palms covered with oil\nD. palms covered with lotion',
  );
  assert.deepEqual(
    d.questions[2].choices?.map((c) => c.label),
    ['1', '2', '3', '4'],
  );
  assert.equal(grade('Answer: B', d.questions[1]).correct, true);
  assert.equal(grade('Answer: 1', d.questions[2]).correct, true);
});

test('ARC flat (Hugging Face) shape', () => {
  const d = loadDataset(fixture('arc-flat.jsonl'));
  assert.equal(d.schema, 'arc-flat');
  assert.equal(d.format, 'choice');
  assert.deepEqual(
    d.questions.map((q) => [q.id, q.gold, q.choices?.length]),
    [
      ['Mercury_7175875', 'C', 4],
      ['Mercury_SC_409171', 'B', 4],
    ],
  );
  assert.match(userMessage(d.questions[0]), /\nC\. Planetary days will become shorter\.\n/);
});

test('MATH: gold is the last \\boxed in the solution (nested braces); an unbalanced box is an issue', () => {
  const d = loadDataset(fixture('math.jsonl'));
  assert.equal(d.schema, 'math');
  assert.equal(d.format, 'boxed');
  assert.deepEqual(
    d.questions.map((q) => q.gold),
    ['\\sqrt{2}', '\\frac{1}{2}', '\\frac{\\sqrt{3}}{2}', '\\{0,1\\}'],
  );
  assert.deepEqual(d.issues.map((i) => i.line), [5]);
  assert.match(d.issues[0].message, /no complete \\boxed/);
  assert.equal(userMessage(d.questions[0]), d.questions[0].text);
  assert.equal(grade('so the answer is $\\boxed{\\dfrac{\\sqrt{3}}{2}}$', d.questions[2]).correct, true);
});

test('MMLU: answer index or letter → letter; out-of-range index is an issue', () => {
  const d = loadDataset(fixture('mmlu.jsonl'));
  assert.equal(d.schema, 'mmlu');
  assert.equal(d.format, 'choice');
  assert.deepEqual(
    d.questions.map((q) => [q.id, q.gold]),
    [
      ['1', 'B'],
      ['2', 'B'],
      ['3', 'D'],
    ],
  );
  assert.deepEqual(d.issues.map((i) => i.line), [4]);
  assert.match(d.issues[0].message, /"7" is not one of the labels A, B/);
  assert.match(userMessage(d.questions[1]), /\nA\. Abdominal\nB\. Cranial\nC\. Pleural\nD\. Spinal$/);
});

test('generic: prompt/target and question/answer, exact format for text golds', () => {
  const d = loadDataset(fixture('generic.jsonl'));
  assert.equal(d.schema, 'generic');
  assert.equal(d.format, 'exact');
  assert.deepEqual(
    d.questions.map((q) => [q.id, q.gold]),
    [
      ['capital-fr', 'Paris'],
      ['capital-jp', 'Tokyo'],
      ['3', 'Mars'],
    ],
  );
  assert.equal(grade('Answer: Tokyo', d.questions[1]).correct, true);
});

test('JSON array: element lines, malformed element skipped, numeric golds → gsm8k format', () => {
  const d = loadDataset(fixture('generic-array.json'));
  assert.equal(d.schema, 'generic');
  assert.equal(d.format, 'gsm8k');
  assert.deepEqual(
    d.questions.map((q) => [q.id, q.line, q.gold]),
    [
      ['add-1', 2, '42'],
      ['add-2', 7, '15'],
      ['4', 13, '99'],
    ],
  );
  assert.deepEqual(
    d.issues.map((i) => i.line),
    [8, 14],
  );
  // The element starts at line 8; the missing comma is on line 11.
  assert.match(d.issues[0].message, /^invalid JSON at line 11 \(.*\); expected each array element to be a JSON object$/);
  assert.match(d.issues[1].message, /"answer" and "target" are both missing/);
  assert.equal(grade('12 + 30 = 42', d.questions[0]).correct, true);
});

test('JSON array edge cases', () => {
  const d = parseDataset('a.json', '[{"question": "q1", "answer": "1"},\n {"question": "q2", "answer": "2"},\n]');
  assert.deepEqual(d.questions.map((q) => [q.id, q.line]), [
    ['1', 1],
    ['2', 2],
  ]);
  assert.match(d.issues[0].message, /trailing comma/);
  // Strings containing brackets and commas do not confuse the element scanner.
  const tricky = parseDataset('b.json', '[{"question": "a, [b] {c} \\"d\\"", "answer": "7"}]');
  assert.equal(tricky.questions[0].text, 'a, [b] {c} "d"');
  assert.throws(() => parseDataset('c.json', '[{"question": "q", "answer": "1"}'), (e: Error) => e instanceof InputError && /c\.json:1: the JSON array is not closed/.test(e.message));
  assert.throws(() => parseDataset('d.json', '[]'), (e: Error) => e instanceof InputError && /d\.json: no usable question/.test(e.message));
});

test('a JSONL file whose first line is an array is still JSONL', () => {
  const d = parseDataset('j.jsonl', '[1, 2]\n{"question": "q2", "answer": "#### 2"}\n{"question": "q3", "answer": "#### 3"}\n');
  assert.deepEqual(d.questions.map((q) => [q.id, q.line]), [
    ['2', 2],
    ['3', 3],
  ]);
  assert.deepEqual(d.issues, [{ line: 1, message: 'expected a JSON object, got an array' }]);
});

test('duplicate ids are issues', () => {
  const d = parseDataset('dup.jsonl', '{"id": "x", "prompt": "a", "target": "1"}\n{"id": "x", "prompt": "b", "target": "2"}\n');
  assert.equal(d.questions.length, 1);
  assert.deepEqual(d.issues, [{ line: 2, message: 'duplicate question id "x" (first at line 1); ids must be unique' }]);
});

test('schema from the majority; lines of another schema are issues', () => {
  const text = [
    '{"question": "1+1?", "answer": "#### 2"}',
    '{"problem": "2+2?", "solution": "\\\\boxed{4}"}',
    '{"question": "3+3?", "answer": "#### 6"}',
  ].join('\n');
  const d = parseDataset('mixed.jsonl', text);
  assert.equal(d.schema, 'gsm8k');
  assert.deepEqual(d.questions.map((q) => q.id), ['1', '3']);
  assert.equal(d.issues[0].line, 2);
  assert.match(d.issues[0].message, /expected GSM8K \{question, answer: "… #### N"\}: field "question" is missing/);
});

test('explicit formats: field and pattern', () => {
  const exact = parseDataset('g.jsonl', '{"prompt": "Say hi", "target": "hi", "alt": "hello"}', { format: 'exact', field: 'alt' });
  assert.equal(exact.questions[0].gold, 'hello');
  const regex = parseDataset('g.jsonl', '{"prompt": "Say hi", "target": "hi"}', { format: 'regex', pattern: 'says (\\w+)' });
  assert.equal(regex.format, 'regex');
  assert.equal(grade('The model says hi', regex.questions[0]).correct, true);
  const boxedFromGsm8k = loadDataset(fixture('gsm8k.jsonl'), { format: 'boxed' });
  assert.equal(boxedFromGsm8k.questions[0].gold, '18');
  assert.equal(grade('\\boxed{18}', boxedFromGsm8k.questions[0]).correct, true);
  const exactArc = loadDataset(fixture('arc.jsonl'), { format: 'exact' });
  assert.equal(exactArc.questions[0].gold, 'A');
});

test('generic records: the auto format follows what the golds look like', () => {
  const choice = parseDataset('c.jsonl', '{"prompt": "Pick one", "choices": ["red", "blue"], "target": "B"}');
  assert.equal(choice.format, 'choice');
  assert.equal(userMessage(choice.questions[0]), 'Pick one\nA. red\nB. blue');
  assert.equal(grade('Answer: B', choice.questions[0]).correct, true);
  const boxed = parseDataset('b.jsonl', JSON.stringify({ prompt: 'Half?', answer: 'It is $\\boxed{\\frac{1}{2}}$' }));
  assert.equal(boxed.format, 'boxed');
  assert.equal(boxed.questions[0].gold, '\\frac{1}{2}');
  // MATH-500 carries a separate "answer" field; --field reads the gold from it.
  const row = { problem: '1/2 + 0?', solution: 'Trivially $\\boxed{\\frac12}$.', answer: '\\frac{1}{2}', unique_id: 'test/x.json' };
  const math500 = parseDataset('m.jsonl', JSON.stringify(row), { field: 'answer' });
  assert.equal(math500.schema, 'math');
  assert.equal(math500.format, 'boxed');
  assert.equal(math500.questions[0].gold, '\\frac{1}{2}');
  assert.equal(parseDataset('m.jsonl', JSON.stringify(row)).questions[0].gold, '\\frac12');
});

test('bad input: one clear InputError naming the file and what was expected', () => {
  const expectError = (fn: () => unknown, re: RegExp) =>
    assert.throws(fn, (e: Error) => {
      assert.ok(e instanceof InputError, `expected InputError, got ${e.name}: ${e.message}`);
      assert.match(e.message, re);
      return true;
    });
  expectError(() => loadDataset(fixture('does-not-exist.jsonl')), /cannot read dataset .*does-not-exist\.jsonl: no such file/);
  expectError(() => loadDataset(FIXTURES), /is a folder/);
  // Missing fields: says which fields the line has and which schemas were tried.
  expectError(() => loadDataset(fixture('unknown.jsonl')), /unknown\.jsonl: no usable question; line 1 has fields \{input, output\}.*Tried ARC.*MATH.*MMLU.*GSM8K.*generic/);
  expectError(() => loadDataset(fixture('gsm8k.jsonl'), { format: 'choice' }), /answer format choice does not fit this file's GSM8K/);
  expectError(() => loadDataset(fixture('arc.jsonl'), { format: 'gsm8k' }), /answer format gsm8k does not fit this file's ARC/);
  expectError(() => loadDataset(fixture('generic.jsonl'), { format: 'gsm8k' }), /generic\.jsonl: no gold answer could be read in format gsm8k.*line 1: field "target": gold "Paris" is not a number/);
  expectError(() => loadDataset(fixture('gsm8k.jsonl'), { format: 'fancy' as never }), /unknown answer format "fancy"; expected auto, gsm8k, boxed, choice, exact, regex/);
  expectError(() => loadDataset(fixture('generic.jsonl'), { format: 'regex' }), /regex needs a prediction pattern/);
  expectError(() => loadDataset(fixture('generic.jsonl'), { format: 'regex', pattern: '(' }), /invalid --pattern "\("/);
  expectError(() => loadDataset(fixture('generic.jsonl'), { format: 'exact', field: 'missing' }), /field "missing"/);
  expectError(() => parseDataset('empty.jsonl', '\n\n'), /empty\.jsonl: no usable question: the file has no records/);
  expectError(() => parseDataset('bad.jsonl', 'not json\n{also not'), /bad\.jsonl: no usable question: line 1: invalid JSON.*line 2: invalid JSON/);
});

test('loadDataset reads what parseDataset parses', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'reach-audit-dataset-'));
  const file = path.join(dir, 'd.jsonl');
  const text = '{"question": "What is 6 * 7?", "answer": "6 * 7 = 42\\n#### 42"}\n';
  writeFileSync(file, text);
  const loaded = loadDataset(file);
  const parsed = parseDataset(file, text);
  assert.deepEqual(loaded, parsed);
});

test('a MATH solution whose \\boxed lost its brace is an issue at its line; the file is read to the end', async () => {
  // The input the fuzz pass found hanging the reader for ever (lastBoxed looped at position 0).
  const bad = JSON.stringify({ problem: 'p', solution: '\\boxedJn*}0T&1I}' });
  const good = JSON.stringify({ problem: 'What is 1+1?', solution: 'It is $\\boxed{2}$.' });
  const mixed = await callWithin(5000, 'audit/dataset/dataset', 'parseDataset', 'math.jsonl', `${good}\n${bad}\n`);
  assert.ok('value' in mixed, JSON.stringify(mixed));
  const d = mixed.value as ReturnType<typeof parseDataset>;
  assert.deepEqual(d.questions.map((q) => [q.line, q.gold]), [[1, '2']]);
  assert.deepEqual(d.issues, [{ line: 2, message: 'field "solution" has no complete \\boxed{…} answer' }]);
  const alone = await callWithin(5000, 'audit/dataset/dataset', 'parseDataset', 'math.jsonl', bad);
  assert.deepEqual(alone, { error: { name: 'InputError', message: 'math.jsonl: no gold answer could be read in format boxed (MATH {problem, solution with \\boxed{…}}): line 1: field "solution" has no complete \\boxed{…} answer' } });
});
