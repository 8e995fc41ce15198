import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckpointQueue, watchStatusLine } from '../../../src/service/checkpointQueue';
import type { Readiness } from '../../../src/service/checkpointReadiness';

const READY: Readiness = { state: 'ready' };
const WRITING: Readiness = { state: 'writing', why: 'files still changing' };
const seen = (entries: Record<string, Readiness>) => new Map(Object.entries(entries));

test('ready checkpoints are handed out in step order, whatever order they appeared in', () => {
  const q = new CheckpointQueue();
  q.observe(seen({ 'checkpoint-1000': READY, 'checkpoint-300': WRITING }));
  q.observe(seen({ 'checkpoint-1000': READY, 'checkpoint-300': READY, 'checkpoint-100': READY }));
  assert.equal(q.next(), 'checkpoint-100');
  assert.equal(watchStatusLine(q.status()), 'next checkpoint-100 · 3 queued · 0 done');
  q.start('checkpoint-100');
  assert.equal(q.next(), 'checkpoint-300');
  assert.deepEqual(q.status().queued, ['checkpoint-300', 'checkpoint-1000']);
  assert.equal(watchStatusLine(q.status()), 'auditing checkpoint-100 · 2 queued · 0 done');
  q.finish('checkpoint-100');
  q.start('checkpoint-300');
  q.finish('checkpoint-300');
  q.start('checkpoint-1000');
  q.finish('checkpoint-1000');
  assert.deepEqual(q.done(), ['checkpoint-100', 'checkpoint-300', 'checkpoint-1000']);
  assert.ok(q.idle());
});

test('a folder still being written is not queued until it is ready', () => {
  const q = new CheckpointQueue();
  q.observe(seen({ 'checkpoint-5': WRITING }));
  assert.equal(q.next(), undefined);
  assert.equal(q.idle(), false, 'a folder being written keeps the watch busy');
  assert.equal(watchStatusLine(q.status()), 'waiting for checkpoints · 0 queued · 1 being written (checkpoint-5: files still changing) · 0 done');
  q.observe(seen({ 'checkpoint-5': READY }));
  assert.equal(q.next(), 'checkpoint-5');
});

test('a checkpoint deleted before its audit (rotation) is skipped and named; an audited one stays done', () => {
  const q = new CheckpointQueue();
  q.observe(seen({ 'checkpoint-1': READY, 'checkpoint-2': READY, 'checkpoint-3': WRITING }));
  q.start('checkpoint-1');
  q.finish('checkpoint-1');
  // The trainer keeps the newest two: 1 and 2 go while 3 is written.
  q.observe(seen({ 'checkpoint-4': WRITING }));
  const s = q.status();
  assert.deepEqual(s.done, ['checkpoint-1'], 'its run folder is kept: still in the trajectory');
  assert.deepEqual(s.skipped, [
    { name: 'checkpoint-2', why: 'deleted before its audit' },
    { name: 'checkpoint-3', why: 'deleted before it was complete' },
  ]);
  assert.equal(q.next(), undefined);
  assert.match(watchStatusLine(s), /skipped checkpoint-2 \(deleted before its audit\), checkpoint-3 \(deleted before it was complete\)$/);
});

test('a checkpoint deleted during its audit is the audit\'s to report: skip names it; a stopped audit is queued again', () => {
  const q = new CheckpointQueue();
  q.observe(seen({ 'step-1': READY, 'step-2': READY }));
  q.start('step-1');
  q.observe(seen({ 'step-2': READY }));
  assert.equal(q.status().auditing, 'step-1', 'the poll does not take a checkpoint away from its audit');
  q.skip('step-1', 'deleted during its audit');
  q.start('step-2');
  q.requeue('step-2');
  assert.equal(q.next(), 'step-2');
  assert.deepEqual(q.status().skipped, [{ name: 'step-1', why: 'deleted during its audit' }]);
  assert.throws(() => q.finish('step-2'), /step-2 is queued, expected auditing/);
});

test('checkpoints done by an earlier watch are done from the start, and not queued again', () => {
  const q = new CheckpointQueue(['checkpoint-10']);
  q.observe(seen({ 'checkpoint-10': READY, 'checkpoint-20': READY }));
  assert.equal(q.next(), 'checkpoint-20');
  assert.deepEqual(q.done(), ['checkpoint-10']);
  assert.deepEqual(['checkpoint-10', 'checkpoint-20', 'checkpoint-30'].map((n) => q.settled(n)), [true, true, false], 'done and queued folders are not read again');
});

test('a folder that stops looking like a checkpoint while written is forgotten, not skipped', () => {
  const q = new CheckpointQueue();
  q.observe(seen({ logs: WRITING }));
  q.observe(seen({ logs: { state: 'not-a-checkpoint' } }));
  assert.deepEqual(q.status(), { auditing: undefined, queued: [], writing: [], done: [], skipped: [] });
});

test('3,000 folders being written make a status line that names five and counts the rest (issue 39, weak case)', () => {
  const q = new CheckpointQueue();
  q.observe(seen(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`checkpoint-${i}`, WRITING]))));
  const line = watchStatusLine(q.status());
  assert.ok(line.length < 400, `${line.length} characters`);
  assert.equal(line, 'waiting for checkpoints · 0 queued · 3000 being written (checkpoint-0, checkpoint-1, checkpoint-2, checkpoint-3, checkpoint-4 and 2995 more: files still changing) · 0 done');
});

test('folders being written for long, different reasons make a bounded line: each reason once, clipped (the file it names kept), three at most', () => {
  const q = new CheckpointQueue();
  const problem = (i: number) => ({ state: 'writing' as const, why: `model-0000${i % 4}-of-00004.safetensors: the header declares tensor ${'x'.repeat(300)} past the end of the file (${i} bytes read)` });
  q.observe(seen(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`checkpoint-${i}`, i < 20 ? WRITING : problem(i)]))));
  const line = watchStatusLine(q.status());
  // Three reasons at most, each its end (200 characters) and the file it names (80 at most).
  assert.ok(line.length < 900, `${line.length} characters: ${line}`);
  assert.equal((line.match(/files still changing/g) ?? []).length, 1, 'one reason, said once');
  assert.match(line, /^waiting for checkpoints · 0 queued · 40 being written \(checkpoint-0, checkpoint-1, checkpoint-2, checkpoint-3, checkpoint-4 and 15 more: files still changing; checkpoint-20: model-00000-of-00004\.safetensors: …x+ past the end of the file \(20 bytes read\); checkpoint-21: model-00001-of-00004\.safetensors: …x+ past the end of the file \(21 bytes read\); and 18 more for 18 other reasons\) · 0 done$/);
});

test('a reason naming files inside the checkpoint says their names, not their paths (the line names the folder)', () => {
  const q = new CheckpointQueue();
  q.observe(seen({ 'checkpoint-30': { state: 'writing', why: '/data/runs/llama/checkpoint-30/model.safetensors.index.json: names shard model-00001-of-00002.safetensors, but /data/runs/llama/checkpoint-30/model-00001-of-00002.safetensors does not exist' } }));
  assert.equal(watchStatusLine(q.status()), 'waiting for checkpoints · 0 queued · 1 being written (checkpoint-30: model.safetensors.index.json: names shard model-00001-of-00002.safetensors, but model-00001-of-00002.safetensors does not exist) · 0 done');
});
