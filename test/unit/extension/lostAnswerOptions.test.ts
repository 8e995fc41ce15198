/**
 * Issue 44: Find Where This Answer Is Lost runs the question's audit with the depth probe on, and
 * says why when the question has no depth results.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DEPTH_BUDGET, lostAnswerOptions, noDepthReason, type DepthOutcome } from '../../../src/extension/commands/lostAnswerOptions';
import { DEFAULT_PROBES } from '../../../src/service';

test('the depth probe is on, at the settings\' budget or 4; the chosen probes and every other option kept', () => {
  assert.deepEqual(lostAnswerOptions({ probes: ['sample:8', 'perturb:8'], model: 'm', data: 'd.jsonl', repair: true }), {
    probes: ['sample:8', 'perturb:8'], model: 'm', data: 'd.jsonl', repair: true, depthProbe: DEFAULT_DEPTH_BUDGET,
  });
  assert.equal(DEFAULT_DEPTH_BUDGET, 4);
  assert.equal(lostAnswerOptions({ probes: ['sample:8'], depthProbe: 2 }).depthProbe, 2);
});

test('without probes the defaults define the failure set (the depth probe needs one)', () => {
  assert.deepEqual(lostAnswerOptions({}).probes, [...DEFAULT_PROBES]);
  assert.deepEqual(lostAnswerOptions({ probes: [] }).probes, [...DEFAULT_PROBES]);
});

const record = (over: Partial<DepthOutcome>): DepthOutcome => ({
  id: 'q7',
  realized: { correct: false },
  reachable: { sample: true, routes: false },
  ...over,
});

test('a question without depth results says why: realized, not reached, skipped, or outside the failure set', () => {
  assert.match(noDepthReason(record({ realized: { correct: true } }))!, /answers question q7 correctly: no answer is lost/);
  assert.match(noDepthReason(record({ reachable: { sample: false } }))!, /No probe reached the answer to question q7/);
  assert.match(noDepthReason(record({ skipped: { reason: 'exemplar', message: 'it is one of the prompt\'s examples' } }))!, /not audited: it is one of the prompt's examples/);
  assert.match(noDepthReason(record({}))!, /reachable \(sample\) but has no depth results/);
  const depth = { budget: 1, outputTokens: 0, points: [], deepestReached: null, noReturn: null, lostIn: 'start' as const, cost: { generations: 0, tokens: 0, blockApplications: 0 } };
  assert.equal(noDepthReason(record({ depth })), undefined);
});
