/**
 * Runs listed under the same name in the Runs view say what sets them apart (issue 40 point 10:
 * "tuned-arith-test" ×4 piled up alike): start time, and the model or question count where they differ.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runDistinctions, startedText } from '../../../src/extension/sidebar/runDistinctions';

const run = (folder: string, name: string, startedAt: string, model: string, recordedQuestions: number) => ({ folder, name, startedAt, model, recordedQuestions });

test('same name: the start time, then the model and count where they differ; a name of its own: nothing', () => {
  const apart = runDistinctions([
    run('/r/a', 'tuned-arith-test', '2026-12-06T13:41:05.120Z', '/m/tuned', 20),
    run('/r/b', 'tuned-arith-test', '2026-12-06T13:52:00.000Z', '/m/tuned', 20),
    run('/r/c', 'tuned-arith-test', '2026-12-06T14:02:00.000Z', '/m/base', 8),
    run('/r/d', 'demo-base', '2026-12-06T14:03:00.000Z', '/m/base', 8),
  ]);
  assert.equal(apart.get('/r/a'), '2026-12-06 13:41:05 · tuned · 20 questions');
  assert.equal(apart.get('/r/c'), '2026-12-06 14:02:00 · base · 8 questions');
  assert.equal(apart.has('/r/d'), false);
  assert.equal(new Set(['/r/a', '/r/b', '/r/c'].map((f) => apart.get(f))).size, 3);
  const sameModel = runDistinctions([run('/r/a', 'x', '2026-12-06T13:41:05Z', '/m/t', 5), run('/r/b', 'x', '2026-12-06T13:42:05Z', '/m/t', 5)]);
  assert.equal(sameModel.get('/r/a'), '2026-12-06 13:41:05');
});

test('start times from a manifest or a folder prefix read alike', () => {
  assert.equal(startedText('2026-12-01T09-30-00Z'), '2026-12-01 09:30:00');
  assert.equal(startedText('20261201-093000'), '2026-12-01 09:30:00');
  assert.equal(startedText('2026-12-01'), '2026-12-01');
  assert.equal(startedText(undefined), undefined);
});
