/**
 * Walkthrough defect 8: two different runs both read "base / arith-test.jsonl" in Tables. Labels
 * grow until they differ: the datasets' distinguishing folders, then the run folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { distinctRunLabels } from '../../../src/audit/results/runLabels';

test('distinct runs keep their short labels', () => {
  assert.deepEqual(distinctRunLabels([
    { folder: '/w/.reach-audit/runs/a', modelPath: '/m/base', datasetPath: '/d/arith-test.jsonl' },
    { folder: '/w/.reach-audit/runs/b', modelPath: '/m/tuned', datasetPath: '/d/arith-test.jsonl' },
  ]), [{ model: 'base', dataset: 'arith-test.jsonl' }, { model: 'tuned', dataset: 'arith-test.jsonl' }]);
});

test('the same model on two copies of a file: the copies\' folders tell them apart', () => {
  const labels = distinctRunLabels([
    { folder: '/w/.reach-audit/runs/a', modelPath: '/ext/media/demo/base', datasetPath: '/ext/media/demo/data/arith-test.jsonl' },
    { folder: '/w/.reach-audit/runs/b', modelPath: '/ext/media/demo/base', datasetPath: '/w/my-data/arith-test.jsonl' },
  ]);
  assert.deepEqual(labels, [{ model: 'base', dataset: 'data/arith-test.jsonl' }, { model: 'base', dataset: 'my-data/arith-test.jsonl' }]);
});

test('the same model on the same file twice: the run folder names which', () => {
  const labels = distinctRunLabels([
    { folder: '/w/.reach-audit/runs/2026-12-05T10-00-00Z-demo-base', modelPath: '/m/base', datasetPath: '/d/arith-test.jsonl' },
    { folder: '/w/.reach-audit/runs/2026-12-05T11-00-00Z-base', modelPath: '/m/base', datasetPath: '/d/arith-test.jsonl' },
    { folder: '/w/.reach-audit/runs/c', modelPath: '/m/tuned', datasetPath: '/d/arith-test.jsonl' },
  ]);
  assert.deepEqual(labels.map((l) => l.model), ['base · 2026-12-05T10-00-00Z-demo-base', 'base · 2026-12-05T11-00-00Z-base', 'tuned']);
  assert.equal(new Set(labels.map((l) => `${l.model}/${l.dataset}`)).size, 3);
});
