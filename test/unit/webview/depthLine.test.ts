/**
 * The detail pane's depth sentence for an output too short to cut says so, rather than placing a
 * point of no return in a quarter of an output that has no quarters.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { depthLine } from '../../../webview/src/questions/depthLine';
import type { DepthResult } from '../../../src/contract';

const point = (reached: boolean) => ({ at: '0' as const, tokens: 0, chars: 0, correct: [reached], answers: [reached ? '4' : null], reached });
const cost = { generations: 1, tokens: 1, blockApplications: 1 };

test('a one-token output: too short to cut, reached or not from the empty prefix', () => {
  const reached: DepthResult = { budget: 1, outputTokens: 1, points: [point(true)], deepestReached: 0, noReturn: null, lostIn: 'too-short', cost };
  assert.equal(depthLine(reached), 'The deployed output is too short to cut (1 token, one distinct prefix): reached from the empty prefix, with no depth at which to lose it.');
  const missed: DepthResult = { ...reached, outputTokens: 0, points: [point(false)], deepestReached: null, noReturn: { point: 0, before: '', after: '' } };
  assert.equal(depthLine(missed), 'The deployed output is too short to cut (0 tokens, one distinct prefix): not reached even from the empty prefix, with no depth at which to lose it.');
});
