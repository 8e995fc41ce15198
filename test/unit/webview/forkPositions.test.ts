/**
 * Saves against position: a question counts once per quarter and arm however many of its forks
 * fall there, a fork both arms chose counts for both, the earliest saving fork lands in its
 * quarter, and under the rate threshold the view says counts only.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { forkPositions, forkPositionsText, quarterOf } from '../../../webview/src/charts/forkPositions';
import type { ForkArm, ForkResult, ForkTry, QuestionRecord } from '../../../src/contract';

const branch = (correct: boolean) => ({ correct, answer: correct ? '4' : null, truncated: false, continuation: '', tokens: 1 });
const fork = (position: number, arms: ForkArm[], saves: boolean): ForkTry => ({
  arms, position, entropy: 1, deployed: { token: 1, text: 'a', logprob: -0.1 }, alternative: { token: 2, text: 'b', logprob: -2 },
  greedy: branch(saves), sample: branch(false), saves,
});
function record(id: string, length: number, forks: ForkTry[]): QuestionRecord {
  const earliestIndex = forks.findIndex((f) => f.saves);
  const result: ForkResult = {
    budget: 8, positions: 2, alternatives: 1, eligible: length, forks, saved: earliestIndex >= 0,
    savedBy: { entropy: forks.some((f) => f.saves && f.arms.includes('entropy')), random: forks.some((f) => f.saves && f.arms.includes('random')) },
    earliest: earliestIndex >= 0 ? earliestIndex : null, cost: { generations: 8, tokens: 8, blockApplications: 8 },
  };
  const steps = Array.from({ length }, (_, i) => ({ token: i, text: 't', entropy: 0.5, top: [] as [number, number][] }));
  // A record reduced to the fields the view reads; the rest of a QuestionRecord plays no part here.
  return { id, fork: result, deployedTokens: { k: 4, steps } } as QuestionRecord;
}

test('quarters of an output: position 4p/length floored, clamped to the last quarter', () => {
  assert.deepEqual([0, 2, 3, 5, 7].map((p) => quarterOf(p, 8)), [0, 1, 1, 2, 3]);
  assert.equal(quarterOf(9, 8), 3);
  assert.equal(quarterOf(0, 0), 0);
});

test('a question counts once per quarter and arm; a shared position counts for both arms; the earliest saving fork in its quarter', () => {
  const records = [
    // Two entropy forks in the first quarter, one saving; a random fork in the last quarter.
    record('q1', 8, [fork(0, ['entropy'], false), fork(1, ['entropy'], true), fork(7, ['random'], false)]),
    // One position both arms chose, in the third quarter, saving.
    record('q2', 8, [fork(4, ['entropy', 'random'], true)]),
    // No record of its tokens: not placed.
    { id: 'q3', fork: record('x', 8, [fork(0, ['entropy'], true)]).fork } as QuestionRecord,
  ];
  const view = forkPositions(records)!;
  assert.equal(view.n, 2);
  assert.deepEqual(view.saves.entropy.map((r) => [r.successes, r.n]), [[1, 1], [0, 0], [1, 1], [0, 0]]);
  assert.deepEqual(view.saves.random.map((r) => [r.successes, r.n]), [[0, 0], [0, 0], [1, 1], [0, 1]]);
  assert.deepEqual(view.earliest, [1, 0, 1, 0]);
  assert.equal(view.rates, false);
  assert.match(forkPositionsText(view), /2 forked questions, under 20: counts only/);
  assert.match(forkPositionsText(view), /Random positions: first ¼: no fork; second ¼: no fork; third ¼ 1 of 1; last ¼ 0 of 1/);
});

test('no forked question: no view; from 20 questions on, shares with Wilson intervals', () => {
  assert.equal(forkPositions([]), undefined);
  const many = Array.from({ length: 20 }, (_, i) => record(`q${i}`, 4, [fork(0, ['entropy'], i % 2 === 0)]));
  const view = forkPositions(many)!;
  assert.equal(view.rates, true);
  const first = view.saves.entropy[0];
  assert.equal(first.n, 20);
  assert.equal(first.successes, 10);
  assert.ok(first.ci.lo < 0.5 && first.ci.hi > 0.5 && first.ci.lo > 0.25 && first.ci.hi < 0.75);
  assert.match(forkPositionsText(view), /first ¼ 50\.0% \[\d+\.\d%, \d+\.\d%\], 10 of 20/);
});
