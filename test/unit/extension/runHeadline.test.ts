import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatHeadlineLine, formatRateDetail, readRunHeadline } from '../../../src/extension/panel/runHeadline';

// The shape src/audit/results/summary.ts writes: Rate = {n, successes, rate, ci: {lo, hi}}.
const rate = (successes: number, n: number, lo: number, hi: number) => ({ n, successes, rate: successes / n, ci: { lo, hi } });

test('reads realized, reachable per probe, the ceiling, answer-blind rates and the repair headline', () => {
  const headline = readRunHeadline({
    n: 8,
    realized: rate(3, 8, 0.136844, 0.694258),
    reachable: { sample: rate(6, 8, 0.409275, 0.928521), routes: rate(7, 8, 0.529112, 0.977583) },
    reachableAny: rate(7, 8, 0.529112, 0.977583),
    blind: { routes: { majority: rate(4, 8, 0.215212, 0.784788), 'global-route': rate(1, 4, 0.045587, 0.699358) } },
    repair: { failureSetSize: 4, identifiedBlock: 5, repairRate: 0.5, ci: { lo: 0.094531, hi: 0.905469 }, n: 2, repaired: 1, damageRate: 0 },
  });
  assert.equal(formatHeadlineLine(headline), 'realized 37.5% · reachable sample 75.0%, routes 87.5% · n=8');
  assert.equal(formatRateDetail(headline.realized!), '37.5% (3/8, 95% CI 13.7–69.4%)');
  assert.deepEqual(headline.reachable.map((r) => r.probe), ['sample', 'routes']);
  assert.equal(formatRateDetail(headline.reachableAny!), '87.5% (7/8, 95% CI 52.9–97.8%)');
  const globalRoute = headline.blind.find((b) => b.selector === 'global-route')!;
  assert.equal(globalRoute.n, 4, 'global-route keeps its own held-out n');
  assert.equal(formatRateDetail(headline.repair!.repairRate!), '50.0% (1/2, 95% CI 9.5–90.5%)');
  assert.equal(headline.repair!.identifiedBlock, 5);
});

test('an older or partial summary still shows what it has: [lo, hi] intervals, rates without counts', () => {
  const headline = readRunHeadline({ n: 40, realized: { rate: 0.425, ci: [0.284, 0.578] }, reachable: { routes: { rate: 0.7 } } });
  assert.equal(formatRateDetail(headline.realized!), '42.5% (95% CI 28.4–57.8%, n=40)');
  assert.equal(formatRateDetail(headline.reachable[0].rate), '70.0% (n=40)');
  assert.deepEqual(headline.blind, []);
  assert.equal(headline.repair, undefined);
});

test('a global-route rate without its own n gets no n (the run n would be wrong for a held-out split)', () => {
  const headline = readRunHeadline({ n: 40, blind: { routes: { 'global-route': { rate: 0.5 } } } });
  assert.equal(formatRateDetail(headline.blind[0]), '50.0%');
});

test('no identified block (empty failure set) is not a repair rate', () => {
  const headline = readRunHeadline({ n: 8, repair: { failureSetSize: 0, identifiedBlock: null, repairRate: null, ci: null, damageRate: 0 } });
  assert.deepEqual(headline.repair, { failureSetSize: 0, identifiedBlock: undefined, repairRate: undefined, damageRate: 0 });
});

test('malformed fields are dropped, not guessed', () => {
  const headline = readRunHeadline({ n: 5, realized: { rate: 'high' }, reachable: { sample: null, routes: { rate: Number.NaN } } });
  assert.equal(headline.realized, undefined);
  assert.deepEqual(headline.reachable, []);
  assert.equal(formatHeadlineLine(headline), 'n=5');
});

test('a file that is not a summary says which field is missing', () => {
  assert.throws(() => readRunHeadline([1, 2]), /expected a JSON object/);
  assert.throws(() => readRunHeadline({ realized: { rate: 0.5 } }), /field 'n'/);
});
