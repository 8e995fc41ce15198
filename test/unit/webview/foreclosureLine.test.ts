/**
 * The detail pane's foreclosure sentence: a decided window names its tokens, its width and the test
 * that decided each bound; an undecided one claims no window; no bracket says why.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { foreclosureLine } from '../../../webview/src/questions/foreclosureLine';
import type { ForeclosureResult } from '../../../src/contract';

const base: Omit<ForeclosureResult, 'outcome' | 'bracket' | 'window'> = {
  test: { samples: 48, threshold: 0.1, error: 0.05, look: 4 },
  prefixes: [
    { tokens: 3, samples: 8, successes: 6, decision: 'reaches' },
    { tokens: 19, samples: 36, successes: 0, decision: 'not' },
    { tokens: 11, samples: 12, successes: 5, decision: 'reaches' },
  ],
  cost: { generations: 56, tokens: 500, blockApplications: 4000 },
};

test('a decided window: its tokens, its width, what each bound means and the test', () => {
  const line = foreclosureLine({ ...base, outcome: 'window', bracket: { from: 3, to: 19 }, window: { from: 11, to: 15, chars: [30, 41] } });
  assert.equal(line, 'Foreclosure window: tokens 11 to 14 (4 tokens, outlined). Continuations from the first 11 tokens of the deployed output reach the answer at a rate above θ; from the first 15 tokens, below it (θ = 0.1, each wrong decision at most 5% likely, at most 48 continuations a prefix; 3 prefixes tested).');
  assert.match(foreclosureLine({ ...base, outcome: 'window', bracket: { from: 3, to: 19 }, window: { from: 11, to: 12, chars: [30, 33] } }), /^Foreclosure window: token 11 \(1 token, outlined\)/);
});

test('undecided and no bracket: no window is claimed', () => {
  assert.match(foreclosureLine({ ...base, outcome: 'undecided', bracket: { from: 3, to: 19 }, window: null }), /^Foreclosure window undecided: a bound of the depth bracket \(tokens 3 to 19\) could not be decided .*; no window is claimed\.$/);
  assert.match(foreclosureLine({ ...base, prefixes: [], outcome: 'no-bracket', bracket: null, window: null }), /left no bracket to narrow/);
});
