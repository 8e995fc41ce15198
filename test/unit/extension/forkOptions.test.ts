/**
 * Find Where the Answer Forks runs the question's audit with the fork probe on, and says why when
 * the question has no forks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FORK_BUDGET, forkOptions, noForkReason, type ForkOutcome } from '../../../src/extension/commands/forkOptions';
import { DEFAULT_PROBES } from '../../../src/service';
import type { ForkResult } from '../../../src/contract';

test('the fork probe is on, at the settings\' budget or 8; the chosen probes and every other option kept', () => {
  assert.deepEqual(forkOptions({ probes: ['sample:8'], model: 'm', data: 'd.jsonl', repair: true }), {
    probes: ['sample:8'], model: 'm', data: 'd.jsonl', repair: true, forkProbe: DEFAULT_FORK_BUDGET,
  });
  assert.equal(DEFAULT_FORK_BUDGET, 8);
  assert.equal(forkOptions({ forkProbe: 12 }).forkProbe, 12);
  assert.deepEqual(forkOptions({ probes: [] }).probes, [...DEFAULT_PROBES]);
});

const fork = (forks: number): ForkResult => ({
  budget: 8, positions: 2, alternatives: 2, eligible: 10,
  forks: Array.from({ length: forks }, () => ({
    arms: ['entropy' as const], position: 1, entropy: 1,
    deployed: { token: 1, text: 'a', logprob: -0.5 }, alternative: { token: 2, text: 'b', logprob: -1 },
    greedy: { correct: false, answer: null, truncated: false, continuation: '', tokens: 0 },
    sample: { correct: false, answer: null, truncated: false, continuation: '', tokens: 0 },
    saves: false,
  })),
  saved: false, savedBy: { entropy: false, random: false }, earliest: null,
  cost: { generations: 0, tokens: 0, blockApplications: 0 },
});

test('a question without forks says why: realized, skipped, nothing to fork at', () => {
  const record = (over: Partial<ForkOutcome>): ForkOutcome => ({ id: 'q7', realized: { correct: false }, ...over });
  assert.equal(noForkReason(record({ fork: fork(2) })), undefined);
  assert.match(noForkReason(record({ fork: fork(0) }))!, /question q7 has no position to fork at/);
  assert.match(noForkReason(record({ realized: { correct: true } }))!, /answers question q7 correctly: there is no lost answer/);
  assert.match(noForkReason(record({ skipped: { reason: 'exemplar', message: 'it is one of the prompt\'s examples' } }))!, /not audited: it is one of the prompt's examples/);
});
