/**
 * Tokenizer patterns that repeat a repeating group are refused before the tokenizer is built,
 * naming the file and the field: `(a+)+`-like pre-tokenizer or normalizer patterns took 3.9 s at 20
 * characters and past a minute at 30. Real tokenizers' patterns still pass.
 */
import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { InputError } from '../../../src/common/errors';
import { loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { nestedRepetition, tokenizerPatterns } from '../../../src/engine/text/patternRepetition';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';
import { compilePattern } from '../../../src/audit/answers/text';

const REAL_PATTERNS: Record<string, string> = {
  gpt2: "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
  llama3: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  qwen2: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  o200k: "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  deepseek: "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  metaspace: '▁',
  digits: '\\p{N}{1,3}(?=(?:\\p{N}{3})*\\b)',
};

test('real tokenizers\' patterns repeat no repeating group', () => {
  for (const [name, pattern] of Object.entries(REAL_PATTERNS)) {
    assert.equal(nestedRepetition(pattern), null, name);
  }
  for (const ok of ['(a+)?b', '\\p{L}{1,3}', '[(+]+', '(?<name>a+)b', '\\u{1F600}+', '(?:ab)+', '(a|b)*c', 'a{2}{', '[]a+]+', '\\(a+\\)+']) {
    assert.equal(nestedRepetition(ok), null, ok);
  }
});

test('nested repetition is found, with the repeated group', () => {
  assert.equal(nestedRepetition('(a+)+$'), '(a+)+');
  assert.equal(nestedRepetition('x(?:\\s*a)*y'), '(?:\\s*a)*');
  assert.equal(nestedRepetition('(a{2,})+'), '(a{2,})+');
  assert.equal(nestedRepetition('((ab)*c)*'), '((ab)*c)*');
  assert.equal(nestedRepetition('(?i:(\\p{L}+ )*)$'), '(\\p{L}+ )*');
  assert.equal(nestedRepetition('((a+))+'), '((a+))+');
  assert.equal(nestedRepetition('(a+){2,5}'), '(a+){2,5}');
  // A repeated lookahead over repetition: the digit-grouping shape repeats a fixed group only.
  assert.equal(nestedRepetition(REAL_PATTERNS.digits), null);
});

test('patterns are found at any depth of the tokenizer\'s parts, with their field paths', () => {
  const found = tokenizerPatterns({
    model: { type: 'BPE', vocab: { '(a+)+': 0 } },
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { Regex: 'x+' }, content: 'y' }] },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'ByteLevel' }, { type: 'Split', pattern: { Regex: 'b*' }, behavior: 'Isolated' }] },
    decoder: { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
  });
  assert.deepEqual(found, [
    { field: 'normalizer.normalizers[0].pattern.Regex', pattern: 'x+' },
    { field: 'pre_tokenizer.pretokenizers[1].pattern.Regex', pattern: 'b*' },
  ]);
});

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-redos-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function editTokenizer(folder: string, edit: (json: Record<string, unknown>) => Record<string, unknown>): void {
  const full = path.join(folder, 'tokenizer.json');
  fs.writeFileSync(full, JSON.stringify(edit(JSON.parse(fs.readFileSync(full, 'utf8')) as Record<string, unknown>)));
}

function expectRefusal(fn: () => unknown, file: string, field: string): void {
  const started = Date.now();
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    assert.ok(e.message.startsWith(`${file}: field ${field} `), e.message);
    assert.match(e.message, /repeats a group that itself repeats .*star height 1.*--tokenizer-from DIR/);
    return true;
  });
  assert.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms`);
}

test('a pre-tokenizer Split pattern with nested repetition is refused at load, naming tokenizer.json and the field', () => {
  writeRandomModel(dir, SMALL_SPECS.llama);
  editTokenizer(dir, (t) => ({ ...t, pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '(a+)+$' }, behavior: 'Isolated', invert: false }, t.pre_tokenizer] } }));
  expectRefusal(() => loadModelTokenizer(dir, readModelConfig(dir)), path.join(dir, 'tokenizer.json'), 'pre_tokenizer.pretokenizers[0].pattern.Regex');
});

test('a normalizer Replace pattern with nested repetition is refused the same way', () => {
  writeRandomModel(dir, SMALL_SPECS.llama);
  editTokenizer(dir, (t) => ({ ...t, normalizer: { type: 'Replace', pattern: { Regex: '(x+x+)+y' }, content: 'z' } }));
  expectRefusal(() => loadModelTokenizer(dir, readModelConfig(dir)), path.join(dir, 'tokenizer.json'), 'normalizer.pattern.Regex');
});

test('through --tokenizer-from, the refusal names the other folder\'s tokenizer.json', () => {
  const model = path.join(dir, 'model');
  const other = path.join(dir, 'tokenizer');
  writeRandomModel(model, SMALL_SPECS.llama);
  writeRandomModel(other, SMALL_SPECS.llama);
  editTokenizer(other, (t) => ({ ...t, pre_tokenizer: { type: 'Split', pattern: { Regex: '(?:\\s*a)*$' }, behavior: 'Isolated', invert: false } }));
  expectRefusal(() => loadModelTokenizer(model, readModelConfig(model), other), path.join(other, 'tokenizer.json'), 'pre_tokenizer.pattern.Regex');
  // The model's own tokenizer still loads.
  assert.ok(loadModelTokenizer(model, readModelConfig(model)).encodeRaw('aaaa').length > 0);
});

test('a repeated group whose alternatives begin alike is found; alternatives that start apart pass', () => {
  assert.equal(nestedRepetition('^(a|a)*$'), '(a|a)*');
  assert.equal(nestedRepetition('(a|ab)+c'), '(a|ab)+');
  assert.equal(nestedRepetition('(?:\\w|\\d)*!'), '(?:\\w|\\d)*');
  assert.equal(nestedRepetition('(.|x){2,}'), '(.|x){2,}');
  assert.equal(nestedRepetition('([a-z]|q)+'), '([a-z]|q)+');
  for (const ok of ['(\\d|,)+', '(?:foo|bar)+', '(a|b)*c', '(a|a)?', '(x|y|z)+', '(?i:\'s|\'t)']) assert.equal(nestedRepetition(ok), null, ok);
});

test('a user\'s answer pattern that can take exponential time is refused, naming the flag and the group', () => {
  for (const slow of ['(a|a)*$', '(a+)+$', 'Answer: ((\\d|\\d,)+)']) {
    assert.throws(() => compilePattern(slow), (e: unknown) => e instanceof InputError && /^--pattern ".*": ".*" repeats a group that can match the same text in more than one way .*exponential time/.test(e.message), slow);
  }
  assert.equal(compilePattern('Answer: ([0-9,]+)').source, 'Answer: ([0-9,]+)');
});
