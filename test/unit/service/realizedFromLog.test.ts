/**
 * `--realized-from`: where a logged prompt first differs from the deployment's, and how the
 * manifest's realizedFrom is held to on resume (the log's bytes) and in a comparison (only whether
 * outputs were read, and from which harness: base and tuned each read their own log).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLoggedOutputLengths, firstDifference, type LoggedRealized } from '../../../src/service/realizedFromLog';
import { InputError } from '../../../src/common/errors';
import { parseDataset } from '../../../src/audit/dataset/dataset';
import { DEFAULT_DEPLOYMENT } from '../../../src/audit/probes';
import type { PromptSource } from '../../../src/engine/types';
import { FakeGenerator } from '../audit/fakeGenerator';
import { comparisonMismatches, manifestMismatches } from '../../../src/audit/store/manifest';
import type { RealizedFrom, RunManifest } from '../../../src/contract';
import { manifestFor, settingsFor } from '../audit/fixtures';

const manifestOf = (realizedFrom?: RealizedFrom): RunManifest => manifestFor(settingsFor(), realizedFrom ? { realizedFrom } : {});

test('firstDifference names the first differing character and shows a window of each text', () => {
  assert.equal(firstDifference('same', 'same'), null);
  assert.equal(firstDifference('Question: 2+2?\nAnswer:', 'Question: 2+2?\nA:'), 'at character 16, the log has "Question: 2+2?\\nAnswer:" where this audit has "Question: 2+2?\\nA:"');
  // A long prompt shows 20 characters before the difference and 40 after.
  const long = `${'x'.repeat(100)}Answer: ${'y'.repeat(100)}`;
  assert.equal(firstDifference(long, long.replace('Answer', 'Reply')), `at character 100, the log has "${'x'.repeat(20)}Answer: ${'y'.repeat(32)}" where this audit has "${'x'.repeat(20)}Reply: ${'y'.repeat(33)}"`);
  // One text a prefix of the other: the difference is where the shorter ends.
  assert.equal(firstDifference('abc', 'abcdef'), 'at character 3, the log has "abc" where this audit has "abcdef"');
});

test('resume holds to the log by its bytes; a comparison only to whether realized was read, and from which harness', () => {
  const log = (sha256: string, tool = 'lm-evaluation-harness'): RealizedFrom => ({ source: `/logs/${sha256}.jsonl`, sha256, tool });
  assert.deepEqual(manifestMismatches(manifestOf(log('a')), manifestOf({ ...log('a'), source: '/moved.jsonl' })), [], 'the same log moved still resumes');
  assert.match(manifestMismatches(manifestOf(log('a')), manifestOf(log('b'))).join('\n'), /realized outputs \(--realized-from\): the run has "lm-evaluation-harness log sha256 a", this command gives "lm-evaluation-harness log sha256 b"/);
  assert.match(manifestMismatches(manifestOf(log('a')), manifestOf()).join('\n'), /this command gives "generated"/);
  assert.deepEqual(comparisonMismatches(manifestOf(log('a')), manifestOf(log('b'))), [], "base and tuned each read their own log");
  assert.match(comparisonMismatches(manifestOf(log('a')), manifestOf()).join('\n'), /the base run has "read from a lm-evaluation-harness log", the tuned run has "generated"/);
  assert.match(comparisonMismatches(manifestOf(log('a')), manifestOf(log('b', 'inspect_ai'))).join('\n'), /read from a inspect_ai log/);
  assert.deepEqual(manifestMismatches(manifestOf(), manifestOf()), []);
});

/** Encodes one token a character and bounds a text's tokens from its length (four bytes a token at most); counts what it tokenizes. */
class CountingFake extends FakeGenerator {
  tokenized = 0;
  encodeText(text: string): number[] {
    this.tokenized += text.length;
    return this.encodeRaw(text);
  }
  tokensAtLeast(prompt: PromptSource): number {
    return Math.ceil(Buffer.byteLength('raw' in prompt ? prompt.raw : '', 'utf8') / 4);
  }
}

test('a logged output longer than --max-new-tokens allows is refused, naming the question; a 15 MB one without tokenizing it', () => {
  const questions = parseDataset('/q.jsonl', ['a', 'b', 'c'].map((id, i) => JSON.stringify({ id, question: `What is ${i} + 1?`, answer: `#### ${i + 1}` })).join('\n') + '\n').questions;
  const deployment = { ...DEFAULT_DEPLOYMENT, maxNewTokens: 16 };
  const realized = (outputs: string[]): LoggedRealized => ({
    setting: { source: '/logs/samples.jsonl', sha256: 'x', tool: 'lm-evaluation-harness' },
    byId: new Map(questions.map((q, i) => [q.id, { output: outputs[i], prompt: '' }])),
  });
  const model = new CountingFake(4, new Map());
  checkLoggedOutputLengths(realized(['The answer is 1.', 'x'.repeat(16), '']), deployment, questions, model);
  assert.throws(
    () => checkLoggedOutputLengths(realized(['ok', 'x'.repeat(17), 'y'.repeat(15_728_647)]), deployment, questions, model),
    (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(
        e.message,
        '--realized-from /logs/samples.jsonl: the logged output is longer than --max-new-tokens 16 lets the deployment write for 2 of 3 questions; first, question b (line 2): 17 tokens. ' +
          "An output the deployment could not produce is not its output: set --max-new-tokens to the harness's generation limit (lm-eval max_gen_toks, Inspect max_tokens), or leave out --realized-from",
      );
      return true;
    },
  );
  model.tokenized = 0;
  assert.throws(() => checkLoggedOutputLengths(realized(['ok', 'x', 'y'.repeat(15_728_647)]), deployment, questions, model), /first, question c \(line 3\): at least 3,932,162 tokens/);
  assert.ok(model.tokenized < 100, `tokenized ${model.tokenized} characters`);
});
