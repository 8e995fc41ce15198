/**
 * Splitting a long output into thought and answer reads it a bounded number of times: an output of
 * 300,000 opening markers, or 2 MB of a one-letter marker whose partner never comes, took minutes
 * when both markers were searched for again from every marker found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitThought } from '../../../src/audit/answers/thoughtSplit';
import { grade } from '../../../src/audit/answers/grade';
import type { Question } from '../../../src/audit/question';

const gsm8k: Question = { id: 'q', line: 1, schema: 'generic', format: 'gsm8k', text: 'text', gold: '18', raw: {} };

function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

test('300,000 opening markers split in well under a second per megabyte', () => {
  const output = '<think>'.repeat(300_000);
  const { value, ms } = timed(() => splitThought(output, { open: '<think>', close: '</think>' }));
  assert.deepEqual(value, { thought: 'unfinished', answerFrom: output.length });
  assert.ok(ms < 5_000, `took ${ms.toFixed(0)} ms`);
  const graded = timed(() => grade(output, gsm8k, { grading: { correctBy: 'stated', truncated: 'strict', thinking: { open: '<think>', close: '</think>', from: 'default', startsInThought: false } } }));
  assert.equal(graded.value.thought, 'unfinished');
  assert.ok(graded.ms < 5_000, `grading took ${graded.ms.toFixed(0)} ms`);
});

test('2 MB of a one-letter opening marker whose closing marker never comes', () => {
  const output = 'a'.repeat(2 << 20);
  const { value, ms } = timed(() => splitThought(output, { open: 'a', close: 'zzz' }));
  assert.deepEqual(value, { thought: 'unfinished', answerFrom: output.length });
  assert.ok(ms < 5_000, `took ${ms.toFixed(0)} ms`);
});

test('closing markers alternating with openers, and the other way round, stay linear; the thought ends at the last closing marker', () => {
  const closes = '</think>'.repeat(200_000) + ' 18';
  const a = timed(() => splitThought(closes, { open: '<think>', close: '</think>' }));
  assert.deepEqual(a.value, { thought: 'finished', answerFrom: closes.length - 3 });
  assert.ok(a.ms < 5_000, `took ${a.ms.toFixed(0)} ms`);
  // Markers that share a start: the longer one is meant where both match.
  assert.deepEqual(splitThought('<t>x<t/> 1', { open: '<t>', close: '<t/>' }), { thought: 'finished', answerFrom: 8 });
  assert.deepEqual(splitThought('<think><think>a</think>b</think> 18', { open: '<think>', close: '</think>' }), { thought: 'finished', answerFrom: 32 });
  assert.deepEqual(splitThought('<think><think>a</think>b', { open: '<think>', close: '</think>' }), { thought: 'finished', answerFrom: 23 });
  assert.deepEqual(splitThought('<think>a</think>b<think>', { open: '<think>', close: '</think>' }), { thought: 'finished', answerFrom: 16 });
});
