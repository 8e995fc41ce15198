import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { InputError } from '../../../src/common/errors';
import { loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { ChatMessage } from '../../../src/engine/types';
import { SMALL_SPECS, WrittenModel, writeRandomModel } from '../../support/modelFolder';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-tokfolder-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const USER: ChatMessage[] = [{ role: 'user', content: 'What is 6 times 7?' }];

function expectInputError(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

function load(folder = dir) {
  return loadModelTokenizer(folder, readModelConfig(folder));
}

function editJson(file: string, edit: (json: Record<string, unknown>) => Record<string, unknown>): void {
  const full = path.join(dir, file);
  fs.writeFileSync(full, JSON.stringify(edit(JSON.parse(fs.readFileSync(full, 'utf8')) as Record<string, unknown>)));
}

function llamaFolder(): WrittenModel {
  return writeRandomModel(dir, SMALL_SPECS.llama);
}

test('Llama-3 style: encodeRaw adds bos once; encodeChat has exactly one bos (template emits it, no double)', () => {
  const written = llamaFolder();
  const bos = written.specialIds['<|begin_of_text|>'];
  const tokenizer = load();
  const raw = tokenizer.encodeRaw('The answer is 42.');
  assert.equal(raw[0], bos);
  assert.equal(raw.filter((id) => id === bos).length, 1);
  const chat = tokenizer.encodeChat(USER);
  assert.equal(chat[0], bos);
  assert.equal(chat.filter((id) => id === bos).length, 1, 'no double bos');
  assert.equal(
    tokenizer.renderChat(USER),
    '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nWhat is 6 times 7?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
  );
  assert.equal(tokenizer.decode(raw), 'The answer is 42.');
  assert.ok(tokenizer.eosTokenIds.includes(written.specialIds['<|eot_id|>']));
  assert.ok(tokenizer.eosTokenIds.includes(written.specialIds['<|end_of_text|>']));
});

test('Qwen style (no bos): encodeRaw adds nothing; system + user renders with the generation prompt', () => {
  const written = writeRandomModel(dir, SMALL_SPECS.qwen3);
  const tokenizer = load();
  const raw = tokenizer.encodeRaw('Janet has 3 apples');
  assert.ok(!raw.some((id) => Object.values(written.specialIds).includes(id)));
  assert.equal(
    tokenizer.renderChat([{ role: 'system', content: 'Be brief.' }, ...USER]),
    '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is 6 times 7?<|im_end|>\n<|im_start|>assistant\n',
  );
  assert.equal(tokenizer.vocabSize, SMALL_SPECS.qwen3.vocabSize);
});

test('chat_template given as a list of named templates uses "default"', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({
    ...c,
    chat_template: [
      { name: 'tool_use', template: 'TOOLS {{ messages[0].content }}' },
      { name: 'default', template: "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}" },
    ],
  }));
  assert.equal(load().renderChat(USER), '[user] What is 6 times 7?\n[assistant]');
});

test('named templates without "default" are refused with their names', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: [{ name: 'tool_use', template: 'x' }, { name: 'rag', template: 'y' }] }));
  expectInputError(() => load(), /tokenizer_config\.json/, /"tool_use", "rag"/, /expected one named "default"/);
});

test('special tokens given as AddedToken-like objects are used as their content', () => {
  const written = llamaFolder();
  const added = (content: string) => ({ __type: 'AddedToken', content, lstrip: false, normalized: false, rstrip: false, single_word: false });
  editJson('tokenizer_config.json', (c) => ({ ...c, bos_token: added('<|begin_of_text|>'), eos_token: added('<|eot_id|>'), additional_special_tokens: [added('<|start_header_id|>')] }));
  const tokenizer = load();
  assert.ok(tokenizer.renderChat(USER).startsWith('<|begin_of_text|><|start_header_id|>user'));
  assert.ok(tokenizer.eosTokenIds.includes(written.specialIds['<|eot_id|>']));
  assert.equal(tokenizer.encodeChat(USER)[0], written.specialIds['<|begin_of_text|>']);
});

test('the template can come from chat_template.jinja beside tokenizer_config.json', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: undefined }));
  fs.writeFileSync(path.join(dir, 'chat_template.jinja'), '{{ bos_token }}Q: {{ messages[-1].content }}\nA:');
  assert.equal(load().renderChat(USER), '<|begin_of_text|>Q: What is 6 times 7?\nA:');
});

test('no chat template: hasChatTemplate false, encodeChat refuses with the file named, encodeRaw works', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: undefined }));
  const tokenizer = load();
  assert.equal(tokenizer.hasChatTemplate, false);
  expectInputError(() => tokenizer.encodeChat(USER), /tokenizer_config\.json: the model has no chat_template/, /--raw/);
  assert.ok(tokenizer.encodeRaw('hi').length > 0);
});

test('no tokenizer_config.json at all: the tokenizer still loads, without a template', () => {
  llamaFolder();
  fs.rmSync(path.join(dir, 'tokenizer_config.json'));
  const tokenizer = load();
  assert.equal(tokenizer.hasChatTemplate, false);
  assert.equal(tokenizer.decode(tokenizer.encodeRaw('The answer is 42.')), 'The answer is 42.');
});

test('a template that raises (e.g. a role it does not accept) gives an InputError naming tokenizer_config.json', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({
    ...c,
    chat_template: "{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{{ m.content }}{% endfor %}",
  }));
  const tokenizer = load();
  assert.equal(tokenizer.renderChat(USER), 'What is 6 times 7?');
  expectInputError(
    () => tokenizer.encodeChat([{ role: 'system', content: 'x' }, ...USER]),
    /tokenizer_config\.json: chat_template failed to render/,
    /System role not supported/,
  );
});

test('a template that loops without bound is stopped at once, naming the template (it used to hang)', () => {
  llamaFolder();
  for (const [n, label] of [['100000000', '100,000,000'], ['1000000', '1,000,000']]) {
    editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: `{% for i in range(${n}) %}x{% endfor %}{{ messages[0].content }}` }));
    const tokenizer = load();
    const t = Date.now();
    expectInputError(() => tokenizer.encodeChat(USER), new RegExp(`tokenizer_config\\.json: chat_template went past its limits \\(range\\(\\) would produce ${label} items; a rendering may use at most 100,000\\)`));
    assert.ok(Date.now() - t < 1000, `stopped in ${Date.now() - t} ms`);
  }
  // Nested loops count together: 400 + 400 × 400 items.
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: '{% for i in range(400) %}{% for j in range(400) %}{% endfor %}{% endfor %}ok' }));
  expectInputError(() => load().renderChat(USER), /went past its limits \(range\(\) would produce 400 items; a rendering may use at most 100,000\)/);
  // Ordinary uses of range still work.
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: '{% for i in range(messages|length) %}{{ i }}:{{ messages[i].content }}{% endfor %}{% for i in range(5, 0, -2) %}{{ i }}{% endfor %}' }));
  assert.equal(load().renderChat(USER), '0:What is 6 times 7?531');
});

test('loops without range() are bounded by evaluation steps, naming the template (a list built by concatenation, looped three deep, hung past 100 s)', () => {
  llamaFolder();
  const built = '{% set ns = namespace(xs=[]) %}{% for m in messages %}{% set ns.xs = ns.xs + [m.content] %}{% endfor %}' +
    '{% for a in ns.xs %}{% for b in ns.xs %}{% for c in ns.xs %}{% endfor %}{% endfor %}{% endfor %}{{ messages[0].content }}';
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: built }));
  const tokenizer = load();
  const long: ChatMessage[] = Array.from({ length: 4096 }, () => ({ role: 'user', content: 'x' }));
  let t = Date.now();
  expectInputError(() => tokenizer.renderChat(long), /tokenizer_config\.json: chat_template went past its limits \(it took more than 2,000,000 evaluation steps\); a chat template must render each prompt promptly/);
  assert.ok(Date.now() - t < 20_000, `stopped in ${Date.now() - t} ms`);
  // A --chat-template-kwargs list fed to such a loop.
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: '{% for a in items %}{% for b in items %}{% for c in items %}{% endfor %}{% endfor %}{% endfor %}{{ messages[0].content }}' }));
  const withItems = load();
  t = Date.now();
  expectInputError(() => withItems.renderChat(USER, { items: Array.from({ length: 1000 }, (_, i) => i) }), /went past its limits \(it took more than 2,000,000 evaluation steps\)/);
  assert.ok(Date.now() - t < 20_000, `stopped in ${Date.now() - t} ms`);
  assert.equal(withItems.renderChat(USER, { items: [1, 2, 3] }), 'What is 6 times 7?');
  // A string doubled a few dozen times is stopped by its size, long before memory runs out.
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: '{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}' }));
  expectInputError(() => load().renderChat(USER), /went past its limits \(it built a string of [\d,]+ characters; a rendering may produce at most 524,464\)/);
});

test('a real template renders a conversation of a thousand messages within the step budget', () => {
  llamaFolder();
  const tokenizer = load();
  const many: ChatMessage[] = Array.from({ length: 1000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` }));
  assert.ok(tokenizer.renderChat(many).includes('message 999'));
});

test('--chat-template-kwargs: a key the template names only as an attribute, a loop variable or a macro parameter is refused; one it reads is used', () => {
  llamaFolder();
  const template =
    '{% macro say(text, mark="!") %}{{ text }}{{ mark }}{% endmacro %}' +
    '{% for message in messages %}{{ message.role }}: {{ say(message.content) }}{% if loop.last %}.{% endif %}{% endfor %}' +
    '{% if enable_thinking is defined and not enable_thinking %}/no_think{% endif %}{{ extra | default("") }}';
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: template }));
  const tokenizer = load();
  for (const key of ['content', 'role', 'loop', 'message', 'text', 'mark', 'default']) {
    expectInputError(() => tokenizer.renderChat(USER, { [key]: 'x' }), new RegExp(`tokenizer_config\\.json: chat_template\\) reads no variable "${key}", so it would change nothing`));
  }
  assert.equal(tokenizer.renderChat(USER, { enable_thinking: false }), 'user: What is 6 times 7?!./no_think');
  assert.equal(tokenizer.renderChat(USER, { extra: '+' }), 'user: What is 6 times 7?!.+');
});

test('a template whose output dwarfs its messages is refused with the sizes, naming chat_template.jinja', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: undefined }));
  const big = '{% for i in range(300) %}{% for m in messages %}' + 'y'.repeat(1000) + '{{ m.content }}{% endfor %}{% endfor %}';
  fs.writeFileSync(path.join(dir, 'chat_template.jinja'), big);
  expectInputError(() => load().encodeChat(USER), new RegExp(`${path.join(dir, 'chat_template.jinja').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the chat template rendered 305,400 characters from messages of 22; the limit is 262,232`));
});

// ---- Bad input

test('bad input: invalid Jinja in chat_template', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({ ...c, chat_template: '{% for m in messages %}{{ m.content }' }));
  expectInputError(() => load(), /tokenizer_config\.json: chat_template is not a valid Jinja template/);
});

test('bad input: missing tokenizer.json', () => {
  llamaFolder();
  fs.rmSync(path.join(dir, 'tokenizer.json'));
  expectInputError(() => load(), /tokenizer\.json: not found; expected a Hugging Face tokenizers tokenizer\.json/);
});

test('bad input: tokenizer.json is not JSON', () => {
  llamaFolder();
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), '{"model": {"type": "BPE", ');
  expectInputError(() => load(), /tokenizer\.json: not valid JSON/);
});

test('bad input: tokenizer.json without a model', () => {
  llamaFolder();
  editJson('tokenizer.json', (t) => ({ ...t, model: undefined }));
  expectInputError(() => load(), /tokenizer\.json: field model missing/);
});

test('bad input: tokenizer.json the library cannot build', () => {
  llamaFolder();
  editJson('tokenizer.json', (t) => ({ ...t, model: { type: 'NoSuchModel' } }));
  expectInputError(() => load(), /tokenizer\.json: cannot build the tokenizer/);
});

test('bad input: tokenizer larger than the model vocabulary', () => {
  llamaFolder();
  editJson('config.json', (c) => ({ ...c, vocab_size: 200, eos_token_id: 1, bos_token_id: 2 }));
  fs.rmSync(path.join(dir, 'generation_config.json'));
  // Counted before the tokenizer is built (vocabularyChecks.ts): 300 entries for 200 embedding rows.
  expectInputError(() => load(), /tokenizer\.json: field model\.vocab has more than 200 entries, more than the model's 200 embedding rows \(vocab_size in \S*\/config\.json\)/);
});

test('bad input: malformed special token in tokenizer_config.json', () => {
  llamaFolder();
  editJson('tokenizer_config.json', (c) => ({ ...c, eos_token: 42 }));
  expectInputError(() => load(), /tokenizer_config\.json: field eos_token is 42; expected a string or an object with "content"/);
});

test('bad input: tokenizer_config.json is not JSON', () => {
  llamaFolder();
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), 'chat_template: x');
  expectInputError(() => load(), /tokenizer_config\.json: not valid JSON/);
});
