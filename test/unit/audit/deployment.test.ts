import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatMessages, checkDeployment, DEFAULT_DEPLOYMENT, deploymentRequest, rawPromptText } from '../../../src/audit/probes/deployment';
import { parseDataset } from '../../../src/audit/dataset/dataset';

const [q] = parseDataset(
  '/v.jsonl',
  JSON.stringify({ id: 'c1', question: { stem: 'Which is largest?', choices: [{ label: 'A', text: '3' }, { label: 'B', text: '9' }] }, answerKey: 'B' }) + '\n',
).questions;

test('the default deployment is the chat template with one user message: the stem and one line per choice', () => {
  assert.deepEqual(chatMessages(DEFAULT_DEPLOYMENT, q), [{ role: 'user', content: 'Which is largest?\nA. 3\nB. 9' }]);
  const r = deploymentRequest(DEFAULT_DEPLOYMENT, [1, 2], { temperature: 0, topP: 1, seed: 3 });
  assert.deepEqual(r, { promptIds: [1, 2], maxNewTokens: 256, decoding: { temperature: 0, topP: 1, seed: 3 } });
});

test('few-shot examples come before the question, with a system message when set', () => {
  const d = { ...DEFAULT_DEPLOYMENT, system: 'Be brief.', fewShot: [{ user: 'Which is smallest?\nA. 1\nB. 2', assistant: 'Answer: A' }] };
  assert.deepEqual(chatMessages(d, q).map((m) => m.role), ['system', 'user', 'assistant', 'user']);
});

test('a raw template fills {question}, few-shot examples first', () => {
  const d = { ...DEFAULT_DEPLOYMENT, prompt: 'raw' as const, template: 'Q: {question}\nA:', fewShot: [{ user: 'x?', assistant: ' y' }] };
  assert.equal(rawPromptText(d, q), 'Q: x?\nA: y\n\nQ: Which is largest?\nA. 3\nB. 9\nA:');
  assert.throws(() => checkDeployment({ ...d, template: 'no slot' }), /must contain \{question\}/);
  assert.throws(() => checkDeployment({ ...DEFAULT_DEPLOYMENT, maxNewTokens: 0 }), /--max-new-tokens/);
});
