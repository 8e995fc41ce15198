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
