/** --preset deepseek-r1 as the options read it: the published decoding unless flags say otherwise, and a prompt of the user's own refused. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readDeployment } from '../../../src/service/auditInputs';
import { reproduceCommand } from '../../../src/service/reproduceCommand';
import type { RunManifest } from '../../../src/contract';

test('deepseek-r1: chat, the directive, temperature 0.6 and top-p 0.95; flags beside it win', () => {
  const d = readDeployment({ preset: 'deepseek-r1' });
  assert.deepEqual([d.prompt, d.preset, d.temperature, d.topP, d.system], ['chat', 'deepseek-r1', 0.6, 0.95, undefined]);
  assert.match(d.instruction ?? '', /^Please reason step by step, and put your final answer within \\boxed\{\}\.$/);
  const given = readDeployment({ preset: 'deepseek-r1', temperature: 0, topP: 0.9, chatTemplateKwargs: '{"enable_thinking": true}' });
  assert.deepEqual([given.temperature, given.topP, given.chatTemplateKwargs], [0, 0.9, { enable_thinking: true }]);
  // A run made with it is reproduced by the preset and its decoding.
  const fixture = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'runs', '2026-12-01T09-30-00Z-demo-base', 'manifest.json');
  const m = JSON.parse(fs.readFileSync(fixture, 'utf8')) as RunManifest;
  const command = reproduceCommand({ ...m, deployment: d }).command;
  assert.ok(command.includes('--preset deepseek-r1') && command.includes('--temperature 0.6') && command.includes('--top-p 0.95'), command);
});

test('deepseek-r1 refuses a system prompt, a raw prompt and examples; the few-shot presets refuse template switches', () => {
  assert.throws(() => readDeployment({ preset: 'deepseek-r1', system: 'Be brief.' }), /--preset deepseek-r1 is the model's chat template with the published directive and no system prompt; leave out --system/);
  assert.throws(() => readDeployment({ preset: 'deepseek-r1', prompt: 'raw' }), /leave out --prompt raw/);
  assert.throws(() => readDeployment({ preset: 'gsm8k-cot-8shot', chatTemplateKwargs: '{"enable_thinking": false}' }), /--preset gsm8k-cot-8shot sets the whole prompt .*leave out --chat-template-kwargs/);
  assert.throws(() => readDeployment({ prompt: 'raw', chatTemplateKwargs: '{"enable_thinking": false}' }), /--chat-template-kwargs sets chat-template variables: it is for --prompt chat/);
  assert.throws(() => readDeployment({ chatTemplateKwargs: '[1]' }), /--chat-template-kwargs \[1\]: expected a JSON object/);
  assert.throws(() => readDeployment({ chatTemplateKwargs: '{"messages": []}' }), /messages is the audit's own to set/);
});
