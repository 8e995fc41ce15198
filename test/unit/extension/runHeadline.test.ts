import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatHeadlineLine, formatRateDetail, runHeadline } from '../../../src/extension/panel/runHeadline';
import { summarize } from '../../../src/audit/results/summary';
import { rateOf, type QuestionRecord, type RunSummary } from '../../../src/contract';
import { deployed, repairScan, testRecord } from '../../support/questionRecord';

// The shape src/audit/results/summary.ts writes: Rate = {n, successes, rate, ci: {lo, hi}}.
function summaryWith(over: Partial<RunSummary>): RunSummary {
  const none = { generations: 0, tokens: 0, blockApplications: 0 };
  return {
    n: 8,
    realized: rateOf(3, 8),
    reachable: { sample: rateOf(6, 8), routes: rateOf(7, 8) },
    reachableAny: rateOf(7, 8),
    reachableAnyBudget: { attempts: 0, byProbe: {} },
    reachableNotRealized: {},
    passAtK: {},
    passAtKCi: {},
    passAtKKind: {},
    blind: { routes: { majority: rateOf(4, 8), 'global-route': rateOf(1, 4) } },
    blindRetention: {},
    exhausted: {},
    budget: {},
    cost: { deployment: none, globalRoutes: none, repair: none },
    states: { realized: 3, reachableNotRealized: 4, unreached: 1 },
    truncated: { realized: 0, probes: {} },
    skipped: { n: 0, questions: [] },
    promptTruncated: 0,
    probes: ['sample', 'routes'],
    selectors: ['majority', 'global-route'],
    ...over,
  };
}

test('reads realized, reachable per probe, the ceiling, answer-blind rates and the repair headline', () => {
  const headline = runHeadline(
    summaryWith({
      repair: {
        failureSetSize: 4,
        failureSet: ['a', 'b', 'c', 'd'],
        identifiedBlock: 5,
        repairRate: 0.5,
        ci: rateOf(1, 2).ci,
        n: 2,
        repaired: 1,
        selectionSize: 2,
        damageRate: 0,
        damageCi: rateOf(0, 3).ci,
        damageN: 3,
        byBlock: [{ block: 5, repair: rateOf(2, 4), damage: rateOf(0, 3), selectionRepair: rateOf(1, 2) }],
        matrix: [],
      },
    }),
  );
  assert.equal(formatHeadlineLine(headline), 'realized 37.5% · reachable sample 75.0%, routes 87.5% · n=8');
  assert.equal(formatRateDetail(headline.realized), '37.5% (3/8, 95% CI 13.7–69.4%)');
  assert.deepEqual(headline.reachable.map((r) => r.probe), ['sample', 'routes']);
  assert.equal(formatRateDetail(headline.reachableAny), '87.5% (7/8, 95% CI 52.9–97.8%)');
  const globalRoute = headline.blind.find((b) => b.selector === 'global-route')!;
  assert.equal(globalRoute.n, 4, 'global-route keeps its own held-out n');
  assert.equal(formatRateDetail(headline.repair!.repairRate!), '50.0% (1/2, 95% CI 9.5–90.5%)');
  assert.equal(headline.repair!.identifiedBlock, 5);
  assert.equal(formatRateDetail(headline.repair!.damageRate!), '0.0% (0/3, 95% CI 0.0–56.1%)');
});

test('no identified block (the audit writes null) is not a repair rate', () => {
  const headline = runHeadline(
    summaryWith({
      repair: { failureSetSize: 0, failureSet: [], identifiedBlock: null, repairRate: null, ci: null, n: 0, repaired: 0, selectionSize: 0, damageRate: null, damageCi: null, damageN: 0, byBlock: [], matrix: [] },
    }),
  );
  assert.deepEqual(headline.repair, { failureSetSize: 0 });
});

test('a real summary: the repair rate is over the held-out half, not the failure set', () => {
  // Six failure-set questions and two realized ones, as the audit writes them; summarize() splits F in halves.
  const records: QuestionRecord[] = [];
  for (let i = 0; i < 6; i++) {
    records.push(testRecord(`f${i}`, i + 1, { reachable: { routes: true }, repair: { ...repairScan(true, false, { '0': false, '1': i % 2 === 0 }), splitKey: i / 6 } }));
  }
  for (let i = 0; i < 2; i++) records.push(testRecord(`r${i}`, 10 + i, { realized: deployed(true), reachable: { routes: true }, repair: repairScan(false, true, { '0': true, '1': true }) }));
  const summary = summarize(records);
  const headline = runHeadline(summary);
  assert.equal(summary.repair!.failureSetSize, 6);
  assert.equal(headline.repair!.identifiedBlock, summary.repair!.identifiedBlock);
  assert.equal(headline.repair!.repairRate!.n, summary.repair!.n);
  assert.notEqual(headline.repair!.repairRate!.n, 6, 'n is the held-out half');
});

test('n = 0 says so instead of a rate', () => {
  assert.equal(formatRateDetail(rateOf(0, 0)), '— (n=0)');
});
