import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWatchOutput } from '../../../src/extension/commands/watchOutput';

test('the watch\'s status, trajectory and start lines are read; the audits\' own lines are not', () => {
  assert.deepEqual(parseWatchOutput('reach-audit: watch: auditing checkpoint-200 · 1 queued · 2 done'), { kind: 'status', line: 'auditing checkpoint-200 · 1 queued · 2 done' });
  assert.deepEqual(parseWatchOutput('reach-audit: trajectory /w/.reach-audit/trajectories/run-arith/trajectory.json\r'), { kind: 'trajectory', file: '/w/.reach-audit/trajectories/run-arith/trajectory.json' });
  assert.deepEqual(parseWatchOutput('reach-audit: watching /data/run for checkpoints (every 10 s); trajectory in /w/.reach-audit/trajectories/run-arith'), { kind: 'watching', out: '/w/.reach-audit/trajectories/run-arith' });
  assert.equal(parseWatchOutput('checkpoint-200: 3/8 questions (38%) · 120 tokens'), undefined);
  assert.equal(parseWatchOutput('reach-audit: wrote /w/t.md'), undefined);
  assert.equal(parseWatchOutput('reach-audit: watch ended: nothing new for 0 s; waiting for checkpoints · 0 queued · 2 done'), undefined);
});
