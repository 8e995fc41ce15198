/**
 * Thinking-aware grading (docs/design/grading.md, thinking): the answer is read after the last
 * closing marker, an unfinished thought is no answer, an answer inside a thought never counts, and
 * a marker mentioned inside the thought or in the answer loses no answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { grade } from '../../../src/audit/answers/grade';
import { splitThought } from '../../../src/audit/answers/thoughtSplit';
import { parseThinkingMarkers, runThinking, thinkingMarkersIn } from '../../../src/audit/answers/thinkingMarkers';
import { cleanPool, selectConfidence, selectMajority } from '../../../src/audit/probes/blindSelectors';
import { keptAddedTokens } from '../../../src/engine/text/keptAddedTokens';
import type { Attempt, GradingSettings } from '../../../src/contract';
import type { AnswerFormat, Question } from '../../../src/audit/question';

function question(format: AnswerFormat, gold: string): Question {
  return { id: 'q', line: 1, schema: 'generic', format, text: 'text', gold, raw: {} };
}
const gsm8k = question('gsm8k', '18');
const boxed = question('boxed', '18');

test('a thought that never closed is cut while thinking: no answer, not correct, in every reading', () => {
  const g = grade('<think>Let me see: 16 - 3 = 13, then 13 + 5 = 18', gsm8k);
  assert.deepEqual(
    { answer: g.answer, rule: g.rule, correct: g.correct, thought: g.thought, strict: g.strict, flexible: g.flexible },
    { answer: null, rule: 'none', correct: false, thought: 'unfinished', strict: { answer: null, correct: false }, flexible: { answer: null, correct: false } },
  );
  // The truncation rules do not bring it back: lenient grading of a cut output still reads no thought.
  assert.equal(grade('<think>so the answer is \\boxed{18}', boxed, { truncated: true, grading: { correctBy: 'stated', truncated: 'lenient' } }).correct, false);
});

test('an answer inside the thought never beats the final one', () => {
  // The issue's case: the 17 boxed inside the thought is not read ("Final: 18" is no boxed-format answer phrase).
  const issue = grade('<think>so \\boxed{17}? no</think> Final: 18', boxed);
  assert.deepEqual([issue.answer, issue.correct, issue.thought, issue.readFrom], [null, false, 'finished', '<think>so \\boxed{17}? no</think>'.length]);
  const g = grade('<think>so \\boxed{17}? no</think> Final: \\boxed{18}', boxed);
  assert.deepEqual([g.answer, g.correct, g.rule], ['18', true, 'boxed']);
  const phrase = grade('<think>so \\boxed{17}? no</think> The final answer is 18.', boxed);
  assert.deepEqual([phrase.answer, phrase.correct], ['18', true]);
  // And the other way round: the right number thought of, a wrong one answered.
  assert.equal(grade('<think>maybe 18</think>The answer is 17.', gsm8k).correct, false);
});

test('an answer only inside the thought is no answer', () => {
  for (const output of ['<think>The answer is 18.</think>', '<think>#### 18</think>\n', '<think>\\boxed{18}</think>  ']) {
    const g = grade(output, output.includes('boxed') ? boxed : gsm8k);
    assert.deepEqual([g.answer, g.correct, g.thought, g.strict.answer, g.flexible.answer], [null, false, 'finished', null, null], output);
  }
});

test('without any thinking marker an output is read whole, and its grade carries no thought', () => {
  for (const [output, q] of [
    ['She makes 9 * 2 = 18 dollars.\nThe answer is 18.', gsm8k],
    ['16 - 3 = 13, 13 + 5 = 18', gsm8k],
    ['so \\boxed{17}', boxed],
  ] as const) {
    const g = grade(output, q);
    assert.equal(g.thought, undefined, output);
    assert.equal(g.readFrom, 0);
    assert.equal('thought' in g, false, 'the key is absent, so records of models that do not think stay byte-identical');
  }
  assert.equal(grade('16 - 3 = 13, then 13 + 5 = 18', gsm8k).correct, true, 'the last number, as before');
});

test('repeated thoughts: the answer after the last closing marker', () => {
  const g = grade('<think>a: 3</think>first guess 17<think>check: 9 * 2</think>The answer is 18.', gsm8k);
  assert.deepEqual([g.answer, g.correct, g.thought], ['18', true, 'finished']);
});

test('an opening marker inside a thought opens no level: the thought ends at the last closing marker', () => {
  const closed = grade('<think>outer <think>inner 17</think> still 16</think> The answer is 18.', gsm8k);
  assert.deepEqual([closed.answer, closed.thought], ['18', 'finished']);
  const once = grade('<think>outer <think>inner</think> The answer is 18.', gsm8k);
  assert.deepEqual([once.answer, once.correct, once.thought], ['18', true, 'finished']);
});

test('a prompt that opened the thought: the output starts inside it (DeepSeek-R1 templates end in <think>)', () => {
  const grading: GradingSettings = { correctBy: 'stated', truncated: 'strict', thinking: { open: '<think>', close: '</think>', from: 'default', startsInThought: true } };
  assert.deepEqual([grade('16 - 3 = 13, then 13 + 5 = 18', gsm8k, { grading }).thought, grade('16 - 3 = 13, then 13 + 5 = 18', gsm8k, { grading }).correct], ['unfinished', false]);
  const after = grade('so 18?\n</think>\n\nThe answer is 18.', gsm8k, { grading });
  assert.deepEqual([after.answer, after.correct, after.thought], ['18', true, 'finished']);
  // Without the setting a lone closing marker still ends a thought.
  assert.equal(grade('so 17?\n</think>\n\nThe answer is 18.', gsm8k).answer, '18');
});

test('other markers, as configured: the default ones are then plain text', () => {
  const grading: GradingSettings = { correctBy: 'stated', truncated: 'strict', thinking: { open: '<|begin_of_thought|>', close: '<|end_of_thought|>', from: 'flag', startsInThought: false } };
  assert.equal(grade('<|begin_of_thought|>17<|end_of_thought|>The answer is 18.', gsm8k, { grading }).answer, '18');
  assert.equal(grade('<|begin_of_thought|>the answer is 18', gsm8k, { grading }).thought, 'unfinished');
  assert.equal(grade('<think>x</think> 17', gsm8k, { grading }).thought, undefined);
});

test('the truncation rule applies to the part after the thought', () => {
  const cut = (output: string) => grade(output, gsm8k, { truncated: true });
  assert.equal(cut('<think>ok</think> 9 * 2 = 18').correct, false, 'cut after the thought, no marker: where it stopped');
  assert.equal(cut('<think>ok</think> #### 18\nQuestion:').correct, true, 'cut after its marker');
  assert.equal(cut('<think>#### 18</think> 9 * 2 = 18').correct, false, 'a marker inside the thought is not the answer\'s');
});

test('splitThought: positions and states', () => {
  const m = { open: '<think>', close: '</think>' };
  assert.deepEqual(splitThought('plain', m), { thought: null, answerFrom: 0 });
  assert.deepEqual(splitThought('<think>a</think>b', m), { thought: 'finished', answerFrom: 16 });
  assert.deepEqual(splitThought('<think>a', m), { thought: 'unfinished', answerFrom: 8 });
  assert.deepEqual(splitThought('a</think>b</think>c', m), { thought: 'finished', answerFrom: 18 });
  assert.deepEqual(splitThought('', { ...m, startsInThought: true }), { thought: 'unfinished', answerFrom: 0 });
});

test('blind selectors ignore unfinished thoughts, whatever an older grading left in the record', () => {
  const graded = (output: string, logprob: number): Attempt => ({ ...grade(output, gsm8k), output, logprob, tokens: 10 });
  const attempts = [graded('<think>the answer is 7', -0.01), graded('<think>hm</think>The answer is 18.', -0.5), graded('<think>…</think>The answer is 7.', -0.6)];
  assert.deepEqual(cleanPool(attempts), [1, 2]);
  const conf = selectConfidence(attempts);
  assert.deepEqual([conf.attempt, conf.answer, conf.dropped], [1, '18', 1]);
  // A record graded before thoughts were read apart may still hold an answer for an unfinished thought.
  const stale: Attempt = { ...attempts[0], answer: '7', thought: 'unfinished' };
  assert.deepEqual(cleanPool([stale, attempts[2]]), [1]);
  assert.equal(selectMajority([stale, stale, attempts[1]], (a) => a).answer, '18');
});

test('markers from the tokenizer: its thinking tokens and their closing partners', () => {
  assert.deepEqual(thinkingMarkersIn(['<|im_start|>', '<think>', '</think>']), { open: '<think>', close: '</think>' });
  assert.deepEqual(thinkingMarkersIn(['<|begin_of_thought|>', '<|end_of_thought|>']), { open: '<|begin_of_thought|>', close: '<|end_of_thought|>' });
  assert.deepEqual(thinkingMarkersIn(['◁think▷', '◁/think▷']), { open: '◁think▷', close: '◁/think▷' });
  assert.equal(thinkingMarkersIn(['<think>']), null, 'no closing partner');
  assert.equal(thinkingMarkersIn(['<|im_start|>', '<|im_end|>']), null);
});

test("Qwen3's real tokenizer names <think> and </think>, kept in decoded text", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qwen3-think-'));
  // The Qwen3 tokenizer.json (Apache-2.0; test/fixtures/tokenizers/README.md).
  const fixture = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'tokenizers', 'qwen3');
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), zlib.gunzipSync(fs.readFileSync(path.join(fixture, 'tokenizer.json.gz'))));
  try {
    const kept = keptAddedTokens(dir);
    assert.ok(!kept.includes('<|im_start|>'), 'special tokens, which decoding skips, are not candidates');
    assert.deepEqual(thinkingMarkersIn(kept), { open: '<think>', close: '</think>' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the run settles its markers: flag, else tokenizer, else default; and whether the prompt opened the thought', () => {
  assert.deepEqual(runThinking(undefined, [], '<|im_start|>assistant\n'), { open: '<think>', close: '</think>', from: 'default', startsInThought: false });
  assert.deepEqual(runThinking(undefined, ['<think>', '</think>'], '<｜Assistant｜><think>\n'), { open: '<think>', close: '</think>', from: 'tokenizer', startsInThought: true });
  assert.deepEqual(runThinking(undefined, ['<think>', '</think>'], 'assistant\n<think>\n\n</think>\n\n'), { open: '<think>', close: '</think>', from: 'tokenizer', startsInThought: false });
  assert.deepEqual(runThinking({ open: '[T]', close: '[/T]' }, ['<think>', '</think>'], 'x [T]'), { open: '[T]', close: '[/T]', from: 'flag', startsInThought: true });
  assert.deepEqual(parseThinkingMarkers(' <a> , </a> '), { open: '<a>', close: '</a>' });
  for (const bad of ['<think>', '<think>,', 'a,a', 'a,b,c']) assert.throws(() => parseThinkingMarkers(bad), /--thinking-markers .*: expected two different markers, OPEN,CLOSE/);
});

test('a marker written after the thought closed is answer text (a code fence in the answer)', () => {
  const output = '<think>they want the tag format</think>Wrap it like this:\n```\n<think>\n```\nThe answer is 18.';
  const g = grade(output, gsm8k);
  assert.deepEqual([g.answer, g.correct, g.thought, g.readFrom], ['18', true, 'finished', '<think>they want the tag format</think>'.length]);
  // A thought reopened after the answer and cut: the answer stands, read after the thought that closed.
  const reopened = grade('<think>a</think>The answer is 18.<think>wait, let me check', gsm8k);
  assert.deepEqual([reopened.answer, reopened.correct, reopened.thought], ['18', true, 'finished']);
});

test('a thought re-emitted under a template that opened one: the answer after its closing marker', () => {
  const grading: GradingSettings = { correctBy: 'stated', truncated: 'strict', thinking: { open: '<think>', close: '</think>', from: 'tokenizer', startsInThought: true } };
  const g = grade('<think>\n16 - 3 = 13, maybe 17\n</think>\n\nThe answer is 18.', gsm8k, { grading });
  assert.deepEqual([g.answer, g.correct, g.thought], ['18', true, 'finished']);
  // Re-emitted after the template's own thought closed, too.
  const twice = grade('hm 17\n</think>\n<think>check 16</think>\nThe answer is 18.', gsm8k, { grading });
  assert.deepEqual([twice.answer, twice.correct, twice.thought], ['18', true, 'finished']);
  // Still cut while thinking if the re-emitted thought never closed.
  assert.equal(grade('<think>\nThe answer is 18', gsm8k, { grading }).thought, 'unfinished');
});

test('a thought that mentions the opening marker still closes at its closing marker', () => {
  const g = grade('<think>I should not write <think> here; 17? no</think> The answer is 18.', gsm8k);
  assert.deepEqual([g.answer, g.correct, g.thought], ['18', true, 'finished']);
  const boxedAnswer = grade('<think>a <think> inside \\boxed{17}</think>\\boxed{18}', boxed);
  assert.deepEqual([boxedAnswer.answer, boxedAnswer.correct], ['18', true]);
  // The answer inside the thought still never counts.
  assert.deepEqual([grade('<think>x <think> The answer is 18.</think>', gsm8k).answer], [null]);
});

test('a prompt leaves a thought open when its last marker opens one', () => {
  const pair = { open: '<think>', close: '</think>' };
  assert.equal(runThinking(pair, [], 'Q: 1\n<think>a</think>A: 2\nQ: 3\n<think>\n').startsInThought, true, 'an earlier turn closed its thought');
  assert.equal(runThinking(pair, [], 'Q: what does <think> do?\n<think>\n\n</think>\n\n').startsInThought, false);
  assert.equal(runThinking(pair, [], 'Q: what does <think> do?\nA:').startsInThought, true, 'as before: a lone opener opens a thought');
});
