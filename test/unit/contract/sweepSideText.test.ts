/**
 * The sweep's sentence says which side of 0 routes − search lies on, at which c: the old one
 * ("keeps one side of 0 (or stays across it)") read the same whether routes won everywhere, the
 * search won everywhere or nothing was shown anywhere.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sweepSideText } from '../../../src/contract';

const at = (c: number, lo: number, hi: number) => ({ c, difference: { delta: (lo + hi) / 2, lo, hi } });

test('routes ahead at every c: says so, and that c does not close the gap', () => {
  assert.equal(
    sweepSideText([at(0.2, 0.05, 0.3), at(1.8, 0.01, 0.2)]),
    'Random routes reach more than the search at every c tried (c = 0.2, 1.8): each 95% interval of routes − search is above 0, so changing c does not close the gap.',
  );
});

test('the search ahead at every c', () => {
  assert.equal(
    sweepSideText([at(0.6, -0.4, -0.1), at(5.4, -0.3, -0.02)]),
    'The search reaches more than random routes at every c tried (c = 0.6, 5.4): each 95% interval of routes − search is below 0, so it beats random routes whatever c.',
  );
});

test('every interval across 0: no difference shown, and more questions would tell', () => {
  assert.equal(
    sweepSideText([at(0.2, -0.1, 0.1), at(1.8, -0.05, 0.2)]),
    'No difference is shown at any c tried (c = 0.2, 1.8): each 95% interval of routes − search spans 0, so these questions cannot tell the search from random routes; more questions would.',
  );
  assert.match(sweepSideText([at(1.8, -0.1, 0.1)]), /^No difference is shown at the one c tried \(c = 1\.8\)/);
});

test('the side depends on c: each c named with its side', () => {
  assert.equal(
    sweepSideText([at(0.2, -0.5, -0.2), at(0.6, -0.1, 0.1), at(1.8, -0.1, 0.1), at(5.4, 0.02, 0.2)]),
    'Which reaches more depends on c: random routes reach more at c = 5.4; the search reaches more at c = 0.2; no difference is shown at c = 0.6, 1.8 (95% intervals of routes − search against 0).',
  );
  assert.equal(sweepSideText([]), 'No setting of c was swept.');
});
