/**
 * Runs listed under the same name in the Runs view say what sets them apart (issue 40 point 10:
 * "tuned-arith-test" ×4 piled up alike): start time, and the model or question count where they differ.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runDistinctions, startedText } from '../../../src/extension/sidebar/runDistinctions';
import { ranText } from '../../../src/extension/sidebar/runListing';

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

test('one-question runs of one line: what ran sets them apart (probes, repair scan, depth probe)', () => {
  const at = (folder: string, time: string, ran: string) => ({ folder, name: 'checkpoint-100-arith-test-arith-A01-0001', startedAt: time, model: '/m/c100', recordedQuestions: 1, ran });
  const apart = runDistinctions([
    at('/r/a', '2026-12-06T13:41:00Z', 'sample:16, routes:16, search:16 · repair scan'),
    at('/r/b', '2026-12-06T13:42:00Z', 'routes:16, search:16'),
    at('/r/c', '2026-12-06T13:43:00Z', 'sample:16, routes:16, search:16 · repair scan · depth probe'),
  ]);
  assert.equal(apart.get('/r/b'), '2026-12-06 13:42:00 · routes:16, search:16');
  assert.equal(apart.get('/r/c'), '2026-12-06 13:43:00 · sample:16, routes:16, search:16 · repair scan · depth probe');
});

test('what ran, read from a manifest leniently', () => {
  assert.equal(ranText({ probes: [{ name: 'routes', budget: 16 }, { name: 'search', budget: 16 }], repair: { enabled: false, referenceProbes: [] } }), 'routes:16, search:16');
  assert.equal(ranText({ probes: [{ name: 'sample', budget: 8 }], repair: { enabled: true }, depthProbe: { budget: 4 } }), 'sample:8 · repair scan · depth probe');
  assert.equal(ranText({ probes: 'nonsense' }), 'no probe');
});
