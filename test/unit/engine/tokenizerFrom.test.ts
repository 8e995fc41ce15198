/**
 * --tokenizer-from DIR (issue 39): a checkpoint saved without tokenizer files reads them from the
 * folder named, never from one guessed; bad folders and a tokenizer larger than the model's
 * embedding are refused with the path and what was expected.
 */
import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { InputError } from '../../../src/common/errors';
import { loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { tokenizerFolder } from '../../../src/engine/text/tokenizerFolder';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-tokfrom-'));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function expectInputError(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

/** A base model folder and a checkpoint of it saved the way a Trainer does: weights and config, no tokenizer files. */
function baseAndCheckpoint(): { base: string; ckpt: string } {
  const base = path.join(root, 'base');
  writeRandomModel(base, SMALL_SPECS.llama);
  const ckpt = path.join(root, 'checkpoint-100');
  fs.mkdirSync(ckpt);
  for (const name of fs.readdirSync(base)) if (!name.startsWith('tokenizer')) fs.copyFileSync(path.join(base, name), path.join(ckpt, name));
  return { base, ckpt };
}

test('a checkpoint without tokenizer files says so and names --tokenizer-from; nothing is guessed from the base beside it', () => {
  const { ckpt } = baseAndCheckpoint();
  expectInputError(() => loadModelTokenizer(ckpt, readModelConfig(ckpt)), new RegExp(`${path.join(ckpt, 'tokenizer.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not found`), /--tokenizer-from DIR/);
  assert.equal(tokenizerFolder(ckpt, undefined), ckpt, 'no flag: the model folder, whatever is beside it');
});

test("with the base's folder the checkpoint's tokenizer is the base's: same ids, same chat prompt, same eos", () => {
  const { base, ckpt } = baseAndCheckpoint();
  const own = loadModelTokenizer(base, readModelConfig(base));
  const borrowed = loadModelTokenizer(ckpt, readModelConfig(ckpt), tokenizerFolder(ckpt, path.relative(process.cwd(), base)));
  const chat = [{ role: 'user' as const, content: 'What is 6 times 7?' }];
  assert.deepEqual(borrowed.encodeChat(chat), own.encodeChat(chat));
  assert.deepEqual(borrowed.encodeRaw('The answer is 42.'), own.encodeRaw('The answer is 42.'));
  assert.deepEqual(borrowed.eosTokenIds, own.eosTokenIds);
  assert.equal(borrowed.hasChatTemplate, true);
});

test('a --tokenizer-from that is missing, a file, or a folder without tokenizer.json is refused, naming it and what was expected', () => {
  const { ckpt } = baseAndCheckpoint();
  const missing = path.join(root, 'nowhere');
  expectInputError(() => tokenizerFolder(ckpt, missing), /^--tokenizer-from /, new RegExp(`${path.basename(missing)}: no such folder`), /expected a folder holding the model's tokenizer\.json/);
  const file = path.join(ckpt, 'config.json');
  expectInputError(() => tokenizerFolder(ckpt, file), /config\.json: not a folder/, /expected a folder/);
  // The checkpoint itself has no tokenizer: naming it is no way round the flag.
  expectInputError(() => tokenizerFolder(ckpt, ckpt), new RegExp(`${path.basename(ckpt)}: it holds no tokenizer\\.json`), /such as the base model's folder/);
});

test("a tokenizer with ids past the model's embedding rows is refused, naming both files", () => {
  const { ckpt } = baseAndCheckpoint();
  const bigger = path.join(root, 'bigger-vocab');
  writeRandomModel(bigger, { ...SMALL_SPECS.llama, vocabSize: 400 });
  expectInputError(
    () => loadModelTokenizer(ckpt, readModelConfig(ckpt), tokenizerFolder(ckpt, bigger)),
    new RegExp(`bigger-vocab/tokenizer\\.json: field model\\.vocab has more than 300 entries, more than the model's 300 embedding rows`),
    new RegExp(`\\(vocab_size in \\S*checkpoint-100/config\\.json\\)`),
    /expected the tokenizer saved with this model/,
  );
});
