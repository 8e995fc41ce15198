import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { ModelConfig, readModelConfig } from '../../../src/engine/checkpoint/config';
import { ModelTokenizer, loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { ChatMessage } from '../../../src/engine/types';

// Compiled tests run from out/test/unit/engine; the fixtures stay in the source tree.
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/tokenizers');

interface Reference {
  vocabSize: number;
  texts: { text: string; ids: number[]; idsWithoutSpecial: number[]; decoded: string }[];
  chats: Record<string, { messages: ChatMessage[]; rendered: string; ids: number[] }>;
}

/** Model configs of the real models the fixtures come from (only what the tokenizer needs matters). */
const MODEL_CONFIGS: Record<string, { config: Record<string, unknown>; generation: Record<string, unknown> }> = {
  qwen3: {
    config: {
      architectures: ['Qwen3ForCausalLM'],
      hidden_size: 1024,
      head_dim: 128,
      num_attention_heads: 16,
      num_key_value_heads: 8,
      intermediate_size: 3072,
      num_hidden_layers: 28,
      vocab_size: 151936,
      bos_token_id: 151643,
      eos_token_id: 151645,
      tie_word_embeddings: true,
    },
    generation: { bos_token_id: 151643, eos_token_id: [151645, 151643] },
  },
  llama3_1: {
    config: {
      architectures: ['LlamaForCausalLM'],
      hidden_size: 2048,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      intermediate_size: 8192,
      num_hidden_layers: 16,
      vocab_size: 128256,
      bos_token_id: 128000,
      eos_token_id: [128001, 128008, 128009],
    },
    generation: { bos_token_id: 128000, eos_token_id: [128001, 128008, 128009] },
  },
};

const fixtureNames = fs
  .readdirSync(FIXTURES, { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(FIXTURES, e.name, 'reference.json')))
  .map((e) => e.name)
  .sort();

let root: string;
const loaded = new Map<string, { dir: string; config: ModelConfig; tokenizer: ModelTokenizer; reference: Reference }>();

/** A model folder holding the fixture's tokenizer files and a config.json of the real model. */
function unpackFixture(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  const src = path.join(FIXTURES, name);
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), zlib.gunzipSync(fs.readFileSync(path.join(src, 'tokenizer.json.gz'))));
  fs.copyFileSync(path.join(src, 'tokenizer_config.json'), path.join(dir, 'tokenizer_config.json'));
  const model = MODEL_CONFIGS[name];
  assert.ok(model, `no model config for fixture ${name}`);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(model.config));
  fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify(model.generation));
  return dir;
}

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-tokenizer-'));
  for (const name of fixtureNames) {
    const dir = unpackFixture(name);
    const config = readModelConfig(dir);
    const reference = JSON.parse(fs.readFileSync(path.join(FIXTURES, name, 'reference.json'), 'utf8')) as Reference;
    loaded.set(name, { dir, config, tokenizer: loadModelTokenizer(dir, config), reference });
  }
});
after(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function get(name: string) {
  const l = loaded.get(name);
  assert.ok(l, `fixture ${name} is loaded`);
  return l;
}

test('the real Qwen3 tokenizer fixture is present', () => {
  assert.ok(fixtureNames.includes('qwen3'), `fixtures found: ${fixtureNames.join(', ')}`);
});

test('real tokenizers: encodeRaw gives the reference (Rust tokenizers) ids for varied text', () => {
  for (const name of fixtureNames) {
    const { tokenizer, reference } = get(name);
    for (const t of reference.texts) assert.deepEqual(tokenizer.encodeRaw(t.text), t.ids, `${name}: ${JSON.stringify(t.text)}`);
  }
});

test('real tokenizers: decode matches the reference and round-trips text (unicode, digits, whitespace)', () => {
  for (const name of fixtureNames) {
    const { tokenizer, reference } = get(name);
    for (const t of reference.texts) {
      assert.equal(tokenizer.decode(t.ids), t.decoded, `${name}: ${JSON.stringify(t.text)}`);
      assert.equal(tokenizer.decode(tokenizer.encodeRaw(t.text)), t.text, `${name}: round trip of ${JSON.stringify(t.text)}`);
    }
  }
});

test('real tokenizers: the chat template renders and tokenizes like transformers (Jinja2 reference)', () => {
  for (const name of fixtureNames) {
    const { tokenizer, reference } = get(name);
    assert.equal(tokenizer.hasChatTemplate, true);
    for (const [key, chat] of Object.entries(reference.chats)) {
      assert.equal(tokenizer.renderChat(chat.messages), chat.rendered, `${name}/${key}: rendered text`);
      assert.deepEqual(tokenizer.encodeChat(chat.messages), chat.ids, `${name}/${key}: ids`);
    }
  }
});

test('Qwen3: known ids, special tokens and the system + user prompt text', () => {
  const { tokenizer } = get('qwen3');
  // Ids confirmed with the Rust tokenizers library (see fixtures README); Qwen adds no bos.
  assert.deepEqual(tokenizer.encodeRaw('Hello world!'), [9707, 1879, 0]);
  assert.equal(tokenizer.vocabSize, 151669);
  assert.deepEqual([...tokenizer.eosTokenIds].sort((a, b) => a - b), [151643, 151645]);
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a careful math tutor.' },
    { role: 'user', content: 'What is 6 times 7?' },
  ];
  assert.equal(
    tokenizer.renderChat(messages),
    '<|im_start|>system\nYou are a careful math tutor.<|im_end|>\n<|im_start|>user\nWhat is 6 times 7?<|im_end|>\n<|im_start|>assistant\n',
  );
  const ids = tokenizer.encodeChat(messages);
  assert.equal(ids[0], 151644, 'starts with <|im_start|>');
  assert.equal(ids.filter((id) => id === 151644).length, 3, 'three <|im_start|> special tokens, not split into text');
  assert.equal(tokenizer.decode(ids), 'system\nYou are a careful math tutor.\nuser\nWhat is 6 times 7?\nassistant\n');
});

test('decode ignores ids the tokenizer does not have (model vocab is larger) and handles empty input', () => {
  const { tokenizer, config } = get('qwen3');
  assert.ok(config.vocabSize > tokenizer.vocabSize);
  assert.equal(tokenizer.decode([]), '');
  assert.equal(tokenizer.decode([151700, 151935]), '');
  assert.equal(tokenizer.decode([9707, 151900, 1879]), 'Hello world');
});
