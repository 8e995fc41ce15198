import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countedText, formatCountOrRate, formatHeadlineLine, formatRateDetail, isCountedRun, runHeadline } from '../../../src/extension/sidebar/runHeadline';
import { RATE_MIN_QUESTIONS } from '../../../src/contract/questionStory';
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
  // Eight questions: the run's row reads as counts (rates from RATE_MIN_QUESTIONS on).
  assert.equal(formatHeadlineLine(headline), 'realized 3 of 8 · reachable sample 6 of 8, routes 7 of 8');
  assert.equal(formatCountOrRate(headline.realized), '3 of 8');
  assert.equal(formatCountOrRate(headline.reachableAny), '7 of 8');
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

test('rates with their intervals from RATE_MIN_QUESTIONS questions on, counts below; each number by its own n', () => {
  assert.equal(RATE_MIN_QUESTIONS, 20);
  const at = (n: number) => runHeadline(summaryWith({ n, realized: rateOf(Math.floor(n / 2), n), reachable: { routes: rateOf(n - 1, n) }, reachableAny: rateOf(n - 1, n) }));
  const nineteen = at(19);
  assert.equal(isCountedRun(nineteen), true);
  assert.equal(formatHeadlineLine(nineteen), 'realized 9 of 19 · reachable routes 18 of 19');
  assert.equal(formatCountOrRate(nineteen.realized), '9 of 19');
  const twenty = at(20);
  assert.equal(isCountedRun(twenty), false);
  assert.equal(formatHeadlineLine(twenty), 'realized 50.0% · reachable routes 95.0% · n=20');
  assert.equal(formatCountOrRate(twenty.realized), formatRateDetail(twenty.realized));
  assert.match(formatCountOrRate(twenty.realized), /^50\.0% \(10\/20, 95% CI \d+\.\d–\d+\.\d%\)$/);
  // In a run of 20 or more, global-route's held-out split (here 4) is a count like any number under 20.
  const globalRoute = twenty.blind.find((b) => b.selector === 'global-route')!;
  assert.equal(globalRoute.n, 4);
  assert.equal(formatCountOrRate(globalRoute), '1 of 4');
  assert.equal(formatCountOrRate(rateOf(0, 0)), '— (n=0)');
  assert.equal(countedText(1), 'n = 1 question · counted, not rated (rates with 95% intervals from 20 questions on)');
  assert.equal(countedText(8), 'n = 8 questions · counted, not rated (rates with 95% intervals from 20 questions on)');
});
