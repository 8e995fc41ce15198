/**
 * The run's thinking markers are read from the first prompt the run will prefill: a first question
 * too long for the context is passed over from its length alone, never tokenized or decoded (a
 * 100 MB first question went past 3 GB here before the run skipped it); nor is it normalized for
 * a few-shot match when the deployment has no examples.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { thinkingOfRun } from '../../../src/audit/runner/runThinking';
import { matchesExample } from '../../../src/audit/probes/exemplarMatch';
import { parseDataset } from '../../../src/audit/dataset/dataset';
import type { ChatMessage, ModelContext, PromptSource } from '../../../src/engine/types';
import { FakeGenerator } from './fakeGenerator';
import { settingsFor } from './fixtures';

/** A template that leaves the thought open, a 400-position context, and a note of every prompt encoded. */
class OpenThoughtFake extends FakeGenerator {
  readonly context: ModelContext = { maxPositions: 400 };
  readonly encoded: number[] = [];
  override encodeChat(messages: readonly ChatMessage[]): number[] {
    const ids = this.encodeRaw(messages.map((m) => m.content).join('\n') + '<think>');
    this.encoded.push(ids.length);
    return ids;
  }
  tokensAtLeast(prompt: PromptSource): number {
    return 'chat' in prompt ? prompt.chat.reduce((n, m) => n + m.content.length, 0) : prompt.raw.length;
  }
}

test('a first question too long for the context is passed over without tokenizing; the next prompt says where thoughts start', () => {
  const lines = [
    { id: 'long', question: 'What is 1 plus 1? '.repeat(60_000), answer: '#### 2' },
    { id: 'short', question: 'What is 2 plus 2?', answer: '#### 4' },
  ];
  const ds = parseDataset('/v.jsonl', lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const model = new OpenThoughtFake(8, new Map());
  const thinking = thinkingOfRun(undefined, ['<think>', '</think>'], model, settingsFor().deployment, ds.questions);
  assert.deepEqual(thinking, { open: '<think>', close: '</think>', from: 'tokenizer', startsInThought: true });
  assert.ok(model.encoded.every((n) => n <= 400), `encoded prompts of ${model.encoded.join(', ')} tokens`);
});

test('no question fits: the markers are settled from an empty prompt', () => {
  const ds = parseDataset('/v.jsonl', JSON.stringify({ id: 'long', question: 'x '.repeat(10_000), answer: '#### 2' }) + '\n');
  const model = new OpenThoughtFake(8, new Map());
  assert.equal(thinkingOfRun(undefined, [], model, settingsFor().deployment, ds.questions), undefined);
  assert.deepEqual(model.encoded, []);
});

test('a question is not normalized to be matched against few-shot examples when there are none (a 100 MB question spent seconds and gigabytes on each check)', () => {
  const normalize = String.prototype.normalize;
  let normalized = 0;
  String.prototype.normalize = function (this: string, form?: string) {
    normalized += this.length;
    return normalize.call(this, form);
  };
  try {
    assert.equal(matchesExample('What is 1 plus 1? '.repeat(1000), []), false);
    assert.equal(normalized, 0);
    assert.equal(matchesExample('What is 1 plus 1?', ['what is 1 plus 1']), true);
    assert.ok(normalized > 0);
  } finally {
    String.prototype.normalize = normalize;
  }
});
