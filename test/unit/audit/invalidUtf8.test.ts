/**
 * Dataset bytes that are not UTF-8: decoding turns them into U+FFFD without a word, so the reader
 * reports the first bad sequence (line and byte offset) and how many there are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { invalidUtf8, invalidUtf8Warning } from '../../../src/common';
import { loadDataset } from '../../../src/audit/dataset/dataset';
import { tempDir } from './fixtures';
import { InputError } from '../../../src/common/errors';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

test('invalidUtf8 finds the first bad sequence, its line and byte, and counts them all', () => {
  assert.equal(invalidUtf8(Buffer.from('{"a": "café ✓ 𝄞"}\n', 'utf8')), null);
  const latin1 = Buffer.concat([Buffer.from('ok\nline two caf'), Buffer.from([0xe9]), Buffer.from('\nthree '), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]);
  assert.deepEqual(invalidUtf8(latin1), { count: 3, line: 2, byte: 15 });
  // Overlong, surrogate and truncated sequences are not UTF-8 either.
  for (const bad of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]]) assert.ok(invalidUtf8(Buffer.from(bad)), bad.join(','));
});

test('a dataset with Latin-1 bytes says where, instead of auditing U+FFFD silently', () => {
  const file = path.join(tempDir(), 'latin1.jsonl');
  const line = (i: number, q: Buffer) => Buffer.concat([Buffer.from(`{"id": "q${i}", "question": "`), q, Buffer.from(`", "answer": "#### ${i}"}\n`)]);
  fs.writeFileSync(file, Buffer.concat([line(1, Buffer.from('What is 1?')), line(2, Buffer.concat([Buffer.from('Qu'), Buffer.from([0xe9]), Buffer.from(' vaut 2 ?')]))]));
  const dataset = loadDataset(file);
  assert.equal(dataset.questions.length, 2);
  assert.deepEqual(dataset.invalidUtf8, { count: 1, line: 2, byte: 87 });
  assert.match(invalidUtf8Warning(file, dataset.invalidUtf8), /latin1\.jsonl: line 2 \(byte 87\) is not valid UTF-8; 1 invalid byte sequence in the file was read as U\+FFFD .*Save the file as UTF-8/);
});

test('a model\'s JSON file or chat template that is not UTF-8 is refused naming the file, line and byte', () => {
  const dir = tempDir();
  writeRandomModel(dir, SMALL_SPECS.llama);
  const configFile = path.join(dir, 'tokenizer_config.json');
  const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  // A Latin-1 'é' inside the template string, on the file's third line.
  const text = JSON.stringify({ ...config, chat_template: 'CAF@' }, null, 1).split('\n');
  const at = text.findIndex((l) => l.includes('CAF@'));
  const bytes = Buffer.concat(text.map((l, i) => (i === at ? Buffer.concat([Buffer.from(l.split('@')[0]), Buffer.from([0xc9]), Buffer.from(l.split('@')[1])]) : Buffer.from(l))).flatMap((b, i) => (i < text.length - 1 ? [b, Buffer.from('\n')] : [b])));
  fs.writeFileSync(configFile, bytes);
  const byte = bytes.indexOf(0xc9);
  assert.throws(() => loadModelTokenizer(dir, readModelConfig(dir)), (e: unknown) => e instanceof InputError && e.message === `${configFile}: line ${at + 1} (byte ${byte}) is not valid UTF-8 (1 invalid byte sequence in the file); this file must be UTF-8: save it as UTF-8 (for example: iconv -f latin1 -t utf-8)`);
  // The separate template file is read only when the config has none.
  const withoutTemplate = { ...config };
  delete withoutTemplate.chat_template;
  fs.writeFileSync(configFile, JSON.stringify(withoutTemplate));
  fs.writeFileSync(path.join(dir, 'chat_template.jinja'), Buffer.from([0x7b, 0x7b, 0x20, 0xff, 0x20, 0x7d, 0x7d]));
  assert.throws(() => loadModelTokenizer(dir, readModelConfig(dir)), (e: unknown) => e instanceof InputError && e.message.startsWith(`${path.join(dir, 'chat_template.jinja')}: line 1 (byte 3) is not valid UTF-8`));
});
