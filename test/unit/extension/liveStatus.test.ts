/**
 * Walkthrough defect 1: the panel header froze at "Running · 0 / 300" (and at "77 / 300" after
 * Resume) while the table filled. Progress events and streamed records now move it on; it never
 * goes back, and a resumed run starts from the questions it kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { advancedStatus } from '../../../src/extension/panel/liveStatus';

test('a running status moves on with each finished question', () => {
  let status = { status: 'running' as const, done: 0, total: 300 };
  for (const done of [1, 2, 32, 72]) {
    const next = advancedStatus(status, done);
    assert.ok(next);
    status = next as typeof status;
  }
  assert.deepEqual(status, { status: 'running', done: 72, total: 300 });
});

test('a resumed run starts at its kept questions and counts on from there', () => {
  const resumed = { status: 'running' as const, done: 77, total: 300 };
  assert.deepEqual(advancedStatus(resumed, 78, 300), { status: 'running', done: 78, total: 300 });
  // A late progress event (fewer done than records already held) does not move it back.
  assert.equal(advancedStatus({ ...resumed, done: 80 }, 79, 300), undefined);
});

test('nothing to advance: no status, a finished or stopped run, the same count', () => {
  assert.equal(advancedStatus(undefined, 5), undefined);
  assert.equal(advancedStatus({ status: 'done', done: 8, total: 8 }, 9), undefined);
  assert.equal(advancedStatus({ status: 'cancelled', done: 3, total: 8 }, 4), undefined);
  assert.equal(advancedStatus({ status: 'running', done: 4, total: 8 }, 4, 8), undefined);
});

test('a total the engine corrects (a shorter file than planned) is taken; done never exceeds it', () => {
  assert.deepEqual(advancedStatus({ status: 'running', done: 3, total: 300 }, 4, 120), { status: 'running', done: 4, total: 120 });
  assert.deepEqual(advancedStatus({ status: 'running', done: 3, total: 3 }, 5), { status: 'running', done: 5, total: 5 });
});
