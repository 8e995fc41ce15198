import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditedCount, contextSkipHint, skippedText, type QuestionRecord } from '../../../src/contract';

const record = (id: string, skipped?: QuestionRecord['skipped']) => ({ id, ...(skipped ? { skipped } : {}) }) as unknown as QuestionRecord;
const context = (promptTokens: number) => ({ reason: 'context' as const, message: 'too long', promptTokens, maxNewTokens: 64, contextLimit: 512 });

test('every question skipped for the context: none audited, the shortest prompt named', () => {
  const c = auditedCount([record('a', context(1546)), record('b', context(1545)), record('c', context(1549))]);
  assert.deepEqual(c, { total: 3, audited: 0, context: { count: 3, promptTokens: 1545, maxNewTokens: 64, contextLimit: 512 }, exemplars: 0 });
  assert.equal(skippedText(c), "0 of 3 questions audited — 3 skipped: prompt + max new tokens longer than the model's context (the shortest: 1,545 + 64 > 512 tokens)");
});

test('some skipped, for both reasons; nothing skipped says nothing', () => {
  const c = auditedCount([record('a'), record('b', context(600)), record('c', { reason: 'exemplar', message: 'an example' }), record('d')]);
  assert.equal(skippedText(c), "2 of 4 questions audited — 2 skipped: 1 prompt + max new tokens longer than the model's context (600 + 64 > 512 tokens); one is the prompt's own few-shot example");
  assert.equal(skippedText(auditedCount([record('a')])), undefined);
});

test('the advice: fewer max new tokens only when the shortest prompt alone fits the context, with the budget that fits it', () => {
  const alone = (promptTokens: number) => contextSkipHint({ count: 6, promptTokens, maxNewTokens: 64, contextLimit: 512 });
  const over = alone(4677);
  assert.match(over, /^The prompt alone \(4,677 tokens\) is longer than the model's context \(512\), so fewer max new tokens cannot help/);
  assert.doesNotMatch(over, /Max new tokens of at most/);
  assert.match(alone(512), /prompt alone \(512 tokens\)/, 'a prompt filling the context leaves no token to generate');
  assert.match(alone(500), /^Max new tokens of at most 12 fits the shortest prompt; a shorter prompt/);
});
