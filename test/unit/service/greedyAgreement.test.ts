/**
 * Token agreement between a reference and a changed numeric's generations, against hand counts:
 * tokens before the first divergence, identical sequences, and the log-prob error measured only
 * over the agreeing prefix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greedyAgreement, greedyAgreementText } from '../../../src/service/greedyAgreement';

test('counts the agreeing prefix, identical sequences, and the log-prob error over the prefix only', () => {
  const ref = [
    { tokens: [1, 2, 3, 4], logprobs: [-0.1, -0.2, -0.3, -0.4] },
    { tokens: [5, 6, 7], logprobs: [-1, -1, -1] },
    { tokens: [8, 9], logprobs: [-0.5, -0.5] },
  ];
  const got = [
    { tokens: [1, 2, 3, 4], logprobs: [-0.1, -0.25, -0.3, -0.4] }, // identical tokens, one log-prob off by 0.05
    { tokens: [5, 9, 7], logprobs: [-1.01, -9, -1] }, // diverges at token 1: the -9 is not counted
    { tokens: [8, 9, 10], logprobs: [-0.5, -0.5, -2] }, // a longer output: not identical, both its tokens agree
  ];
  const a = greedyAgreement(ref, got);
  assert.equal(a.sequences, 3);
  assert.equal(a.identicalSequences, 1);
  assert.equal(a.referenceTokens, 9);
  assert.equal(a.agreeingTokens, 4 + 1 + 2);
  assert.deepEqual(a.firstDivergence, [null, 1, 2]);
  assert.ok(Math.abs(a.maxLogprobError - 0.05) < 1e-12);
  assert.ok(Math.abs(a.meanLogprobError - (0.05 + 0.01) / 7) < 1e-12);
  assert.match(greedyAgreementText(a), /^77\.8% of tokens \(7\/9\) before the first divergence, 1\/3 sequences identical/);
});

test('identical generations agree fully with zero error; nothing to compare reads as 100%', () => {
  const g = [{ tokens: [1, 2], logprobs: [-1, -2] }];
  const a = greedyAgreement(g, g);
  assert.equal(a.identicalSequences, 1);
  assert.equal(a.maxLogprobError, 0);
  assert.match(greedyAgreementText(greedyAgreement([], [])), /^100\.0% of tokens \(0\/0\)/);
});
