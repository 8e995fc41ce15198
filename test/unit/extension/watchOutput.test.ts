import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWatchOutput } from '../../../src/extension/commands/watchOutput';

test('the watch\'s status, trajectory and start lines are read, and the audit\'s estimate and questions done; not its other lines', () => {
  assert.deepEqual(parseWatchOutput('reach-audit: watch: auditing checkpoint-200 · 1 queued · 2 done'), { kind: 'status', line: 'auditing checkpoint-200 · 1 queued · 2 done' });
  assert.deepEqual(parseWatchOutput('reach-audit: trajectory /w/.reach-audit/trajectories/run-arith/trajectory.json\r'), { kind: 'trajectory', file: '/w/.reach-audit/trajectories/run-arith/trajectory.json' });
  assert.deepEqual(parseWatchOutput('reach-audit: watching /data/run for checkpoints (every 10 s); trajectory in /w/.reach-audit/trajectories/run-arith'), { kind: 'watching', out: '/w/.reach-audit/trajectories/run-arith' });
  assert.deepEqual(parseWatchOutput('checkpoint-200: 3/8 questions (38%) · 120 tokens'), { kind: 'questions', checkpoint: 'checkpoint-200', done: 3, total: 8, line: '3/8 questions (38%) · 120 tokens' });
  assert.deepEqual(parseWatchOutput('checkpoint-200: estimate: about 480 tokens, about 1s at 1140.5 tokens/s (measured warm-up: 5 requests); Ctrl-C stops and keeps finished questions'), { kind: 'estimate', checkpoint: 'checkpoint-200', text: 'about 480 tokens, about 1s at 1140.5 tokens/s (measured warm-up: 5 requests)' });
  assert.equal(parseWatchOutput('checkpoint-200: plan: 6 questions × (deployment 1 + sample 4) = 30 generations'), undefined);
  assert.equal(parseWatchOutput('checkpoint-200: run folder /w/out/checkpoint-200'), undefined);
  assert.equal(parseWatchOutput('reach-audit: wrote /w/t.md'), undefined);
  assert.equal(parseWatchOutput('reach-audit: watch ended: nothing new for 0 s; waiting for checkpoints · 0 queued · 2 done'), undefined);
});
