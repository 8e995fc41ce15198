/**
 * Show as Trajectory on runs selected in the Runs view: in training order by their model folders'
 * names, labelled by those names (run names where two runs audited folders of one name); fewer than
 * two runs is a problem that says what to select.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runsAsTrajectory } from '../../../src/extension/tables/runsAsTrajectory';

test('in training order by the model folder, labelled by it', () => {
  const plan = runsAsTrajectory([
    { folder: '/ws/.reach-audit/runs/t2', name: 'ck-1000-arith', model: '/m/checkpoint-1000' },
    { folder: '/ws/.reach-audit/runs/t1', name: 'ck-200-arith', model: '/m/checkpoint-200' },
    { folder: '/ws/.reach-audit/runs/t3', name: 'ck-50-arith', model: '/m/checkpoint-50' },
  ]);
  assert.deepEqual(plan, { runs: ['/ws/.reach-audit/runs/t3', '/ws/.reach-audit/runs/t1', '/ws/.reach-audit/runs/t2'], labels: ['checkpoint-50', 'checkpoint-200', 'checkpoint-1000'] });
});

test('two runs of folders of one name: their run names; of one model under one name: their folders', () => {
  assert.deepEqual(runsAsTrajectory([
    { folder: '/r/x2', name: 'run-b-step-2', model: '/b/final' },
    { folder: '/r/x1', name: 'run-a-step-1', model: '/a/final' },
  ]), { runs: ['/r/x1', '/r/x2'], labels: ['run-a-step-1', 'run-b-step-2'] });
  const same = runsAsTrajectory([{ folder: '/r/2026-a', name: 'demo', model: '/m/tuned' }, { folder: '/r/2026-b', name: 'demo', model: '/m/tuned' }]);
  assert.ok('labels' in same);
  assert.deepEqual(same.labels, ['2026-a', '2026-b']);
});

test('fewer than two runs (the same run twice is one): says what to select', () => {
  const one = runsAsTrajectory([{ folder: '/r/a', name: 'a' }, { folder: '/r/a', name: 'a' }]);
  assert.ok('problem' in one);
  assert.match(one.problem, /two or more runs/);
});
