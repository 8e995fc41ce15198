/**
 * What the run's open questions have done, for the time left before questions finish
 * (generationTally.ts): generations to go per the plan, the cut share, the search's pace, the repair
 * scan's undecided share.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Generation } from '../../../src/engine';
import { GenerationTally } from '../../../src/audit/runner/generationTally';
import { settingsFor } from './fixtures';

const gen = (tokens: number, finishReason: Generation['finishReason']): Generation => ({ tokens: Array.from({ length: tokens }, () => 1), text: '', logprobs: [], finishReason, cost: { generatedTokens: tokens, blockApplications: 0 } });

test('generations to go: each open question\'s plan less what came back; the repair scan counted apart', () => {
  // 8 blocks; deployment + sample:4 + routes:4 + search:4 = 13 per question; repair: 8 per scanned question.
  const settings = settingsFor(8, { probes: [{ name: 'sample', budget: 4 }, { name: 'routes', budget: 4 }, { name: 'search', budget: 4 }], globalRoutes: { count: 0, routes: [] }, repair: { enabled: true, referenceProbes: ['sample', 'routes', 'search'] } });
  const tally = new GenerationTally(settings, 8);
  tally.returned('deployment', [gen(5, 'stop')], 'q1', 1000);
  tally.returned('sample', [gen(64, 'length'), gen(3, 'stop'), gen(64, 'length'), gen(7, 'stop')], 'q1', 2000);
  tally.returned('repair', [gen(64, 'length')], 'q1', 2500);
  const w = tally.work(3, 999);
  assert.deepEqual(w.left, { least: 3 * 13 - 5, most: 3 * 13 - 5 });
  assert.equal(w.returned, 6);
  assert.equal(w.cut, 3);
  assert.equal(w.cutTokens, 192);
  assert.equal(w.engineTokens, 999);
  assert.equal(w.repairUndecided, 3 * 8 - 1);
  assert.equal(w.chain, undefined, 'no search round timed yet');
  // A finished question leaves the tally; its generations no longer count against the open ones' plan.
  tally.finished('q1');
  assert.deepEqual(tally.work(2, undefined).left, { least: 26, most: 26 });
});

test('the search\'s chain counts once it is all that is left: the most rounds an open question has left, at its latest rounds\' pace', () => {
  // deployment + sample:2 + search:6 per question.
  const settings = settingsFor(8, { probes: [{ name: 'sample', budget: 2 }, { name: 'search', budget: 6 }], globalRoutes: { count: 0, routes: [] } });
  const tally = new GenerationTally(settings, 8);
  tally.returned('search', [gen(10, 'stop')], 'a', 10_000);
  tally.returned('search', [gen(10, 'stop')], 'a', 40_000);
  tally.returned('search', [gen(10, 'stop')], 'b', 20_000);
  tally.returned('search', [gen(10, 'stop')], 'b', 30_000);
  tally.returned('search', [gen(10, 'stop')], 'b', 50_000);
  // Their deployments and samples are not all back: the chain shares the batch and is not counted.
  tally.returned('deployment', [gen(5, 'stop')], 'a', 50_000);
  tally.returned('sample', [gen(5, 'stop'), gen(5, 'stop')], 'a', 50_000);
  assert.equal(tally.work(2, undefined).chain, undefined);
  tally.returned('deployment', [gen(5, 'stop')], 'b', 51_000);
  tally.returned('sample', [gen(5, 'stop'), gen(5, 'stop')], 'b', 51_000);
  // Now only the chains: 'a' has 4 of 6 rounds left, 'b' 3; latest rounds 30 s ('a') and 20 s ('b').
  assert.deepEqual(tally.work(2, undefined).chain, { roundsLeft: 4, roundSeconds: 25 });
  // A question not started yet: its independent attempts are still ahead.
  assert.equal(tally.work(3, undefined).chain, undefined);
});

test('--until-reached: a probe may stop at its first attempt, so the fewest generations to go count one per probe', () => {
  const settings = settingsFor(8, { probes: [{ name: 'sample', budget: 16 }, { name: 'routes', budget: 16 }], globalRoutes: { count: 0, routes: [] }, untilReached: true });
  const w = new GenerationTally(settings, 8).work(2, undefined);
  assert.deepEqual(w.left, { least: 2 * 3, most: 2 * 33 });
});
