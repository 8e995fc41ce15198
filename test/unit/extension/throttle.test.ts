/**
 * Walkthrough defect 1: the Runs view and the Audit view said "0 recorded" all through a run. Their
 * refresh was a debounce, which never fires while records keep coming; a throttle fires during
 * the stream, once per wait, with the latest argument.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { throttle } from '../../../src/extension/sidebar/throttle';

test('a steady stream of calls still fires once per wait, with the latest argument', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const fired: number[] = [];
  const call = throttle(1000, (n: number) => fired.push(n));
  // A record every 300 ms for 3.3 s.
  for (let i = 1; i <= 11; i++) {
    call(i);
    t.mock.timers.tick(300);
  }
  assert.deepEqual(fired, [4, 8], `fired ${fired.join(', ')}`);
  t.mock.timers.tick(1000);
  assert.equal(fired.at(-1), 11, 'the last call is not lost');
});

test('cancel drops a pending call', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const fired: string[] = [];
  const call = throttle(500, (s: string) => fired.push(s));
  call('a');
  call.cancel();
  t.mock.timers.tick(1000);
  assert.deepEqual(fired, []);
  call('b');
  t.mock.timers.tick(500);
  assert.deepEqual(fired, ['b']);
});
