/**
 * An import whose record would be longer than the line every command reads a run with (256 MiB) is
 * refused before anything is written, naming the question: a logged output of 270,000,000
 * characters, the log written here as a stream (never a committed file, never one string in the
 * test). Before the bound, such a run imported and then report, regrade and compare refused it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { importCommand } from '../../../src/cli/import';
import { InputError } from '../../../src/common/errors';

const LONG = 270_000_000;

function writeSamples(file: string): void {
  const line = (docId: number, response: string) =>
    `{"doc_id": ${docId}, "doc": {"question": "What is 2 + ${docId}?", "answer": "#### ${docId + 2}"}, "target": "${docId + 2}", "arguments": {"gen_args_0": {"arg_0": "Q: What is 2 + ${docId}?", "arg_1": {"until": ["\\n"], "do_sample": false}}}, "resps": [["${response}"]], "filtered_resps": ["${docId + 2}"], "exact_match": 1.0}\n`;
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, line(0, '2'));
    const [head, tail] = line(1, '@').split('@');
    fs.writeSync(fd, head);
    const chunk = 'a'.repeat(1_000_000);
    for (let written = 0; written < LONG; written += chunk.length) fs.writeSync(fd, chunk);
    fs.writeSync(fd, tail);
  } finally {
    fs.closeSync(fd);
  }
}

test('a logged output that would make a 270 MB record line is refused before writing, naming the question and the bound', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-long-line-'));
  try {
    const file = path.join(dir, 'samples_gsm8k_2024-01-01T00-00-00.jsonl');
    writeSamples(file);
    assert.ok(fs.statSync(file).size > 256 * 1024 * 1024);
    const out = path.join(dir, 'run');
    await assert.rejects(importCommand.run([file, '--out', out]), (e: unknown) => {
      assert.ok(e instanceof InputError, String(e));
      assert.match(e.message, /samples_gsm8k_2024-01-01T00-00-00\.jsonl.*: question \S+: its record would be 2\d{8} bytes, over the 268435456-byte line that report, regrade and compare read \(a fixed bound\); .*Nothing was written$/);
      return true;
    });
    assert.equal(fs.existsSync(out), false, 'no run folder');
    assert.deepEqual(fs.readdirSync(dir), [path.basename(file)], 'no staging folder left behind');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
