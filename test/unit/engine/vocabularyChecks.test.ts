/**
 * A tokenizer.json whose vocabulary outgrows the model's embedding is refused before the tokenizer
 * library builds it, naming the file, the field and the bound; added tokens that collide (one
 * string, two ids; one id, two strings) are refused naming both entries; an added token shadowing a
 * vocabulary entry keeps its stated behaviour (encoding gives the added id, both decode alike).
 */
import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { InputError } from '../../../src/common/errors';
import { loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-vocab-'));
  writeRandomModel(dir, SMALL_SPECS.llama);
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
function editTokenizer(edit: (json: Json) => Json): void {
  const full = path.join(dir, 'tokenizer.json');
  fs.writeFileSync(full, JSON.stringify(edit(JSON.parse(fs.readFileSync(full, 'utf8')) as Json)));
}
const addedTokens = (t: Json) => (Array.isArray(t.added_tokens) ? (t.added_tokens as Json[]) : []);
const token = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });

/** Writes a tokenizer.json whose model.vocab has `entries` entries, streamed (no 5,000,000-key object in memory). */
function writeVocabulary(entries: number): void {
  const full = path.join(dir, 'tokenizer.json');
  const t = JSON.parse(fs.readFileSync(full, 'utf8')) as Json;
  const head = JSON.stringify({ ...t, model: { ...(t.model as Json), vocab: '@VOCAB@', merges: [] } });
  const [before, after] = head.split('"@VOCAB@"');
  const fd = fs.openSync(full, 'w');
  fs.writeSync(fd, `${before}{`);
  for (let start = 0; start < entries; start += 100_000) {
    const chunk: string[] = [];
    for (let i = start; i < Math.min(entries, start + 100_000); i++) chunk.push(`"t${i}":${i}`);
    fs.writeSync(fd, (start === 0 ? '' : ',') + chunk.join(','));
  }
  fs.writeSync(fd, `}${after}`);
  fs.closeSync(fd);
}

test('a 5,000,000-entry vocabulary is refused from the file\'s size before it is read, naming the file, the bound and the field it comes from', () => {
  writeVocabulary(5_000_000);
  const file = path.join(dir, 'tokenizer.json');
  const size = fs.statSync(file).size;
  const started = Date.now();
  assert.throws(() => loadModelTokenizer(dir, readModelConfig(dir)), (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.message, `${file}: ${size.toLocaleString('en-US')} bytes, more than a tokenizer for the model's 300 embedding rows can need (vocab_size in ${path.join(dir, 'config.json')}; bound 17,391,616 bytes: 2 KiB a row + 16 MiB); refused before reading it. Expected the tokenizer saved with this model (name the folder that holds it with --tokenizer-from DIR)`);
    return true;
  });
  assert.ok(Date.now() - started < 2_000, `${Date.now() - started} ms: the file was read`);
});

test('a vocabulary within the size bound but with more entries than embedding rows is refused as a count, before the tokenizer is built', () => {
  writeVocabulary(100_000);
  assert.throws(() => loadModelTokenizer(dir, readModelConfig(dir)), (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.message, `${path.join(dir, 'tokenizer.json')}: field model.vocab has more than 300 entries, more than the model's 300 embedding rows (vocab_size in ${path.join(dir, 'config.json')}); expected the tokenizer saved with this model (name the folder that holds it with --tokenizer-from DIR)`);
    return true;
  });
});

test('one added string under two ids is refused, naming both entries', () => {
  editTokenizer((t) => ({ ...t, added_tokens: [...addedTokens(t), token('<|end|>', 290), token('<|end|>', 291)] }));
  const n = (() => { const t = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')) as Json; return addedTokens(t).length; })();
  assert.throws(() => loadModelTokenizer(dir, readModelConfig(dir)), (e: unknown) =>
    e instanceof InputError && e.message.startsWith(`${path.join(dir, 'tokenizer.json')}: added_tokens[${n - 2}] and added_tokens[${n - 1}] are both "<|end|>", with ids 290 and 291; `));
});

test('one id under two added strings is refused, naming both entries', () => {
  editTokenizer((t) => ({ ...t, added_tokens: [...addedTokens(t), token('<a>', 293), token('<b>', 293)] }));
  assert.throws(() => loadModelTokenizer(dir, readModelConfig(dir)), (e: unknown) => e instanceof InputError && /: added_tokens\[\d+\] and added_tokens\[\d+\] both have id 293, as "<a>" and "<b>"; an id must decode to one string/.test(e.message));
});

test('an added token that shadows a vocabulary entry: encoding gives the added id, both ids decode to the same text', () => {
  let shadowed = '';
  let vocabId = -1;
  editTokenizer((t) => {
    const vocab = (t.model as Json).vocab as Record<string, number>;
    [shadowed, vocabId] = Object.entries(vocab).find(([piece]) => /^[a-z]{2,}$/.test(piece))!;
    return { ...t, added_tokens: [...addedTokens(t), { ...token(shadowed, 294), special: false }] };
  });
  const tokenizer = loadModelTokenizer(dir, readModelConfig(dir));
  assert.deepEqual(tokenizer.encodeText(shadowed), [294]);
  assert.equal(tokenizer.decode([294]), shadowed);
  assert.equal(tokenizer.decode([vocabId]), shadowed);
});
