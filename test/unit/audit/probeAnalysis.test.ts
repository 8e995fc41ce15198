import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Attempt, type QuestionRecord, rateOf } from '../../../src/contract';
import { compareProbes } from '../../../src/audit/results/probeComparison';
import { blindRetention } from '../../../src/audit/results/blindRetention';
import { summarize } from '../../../src/audit/results/summary';
import { mcnemarExact } from '../../../src/audit/stats';
import { pairedScoreInterval } from '../../../src/audit/stats/pairedScoreInterval';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { fakeFor, settingsFor, smallDataset } from './fixtures';

const attempt = (correct: boolean, tokens = 10): Attempt => ({ output: '', answer: correct ? '1' : '2', correct, truncated: false, rule: 'strict', logprob: -1, tokens, route: [0, 1] });
const cost = (g: number, t: number) => ({ generations: g, tokens: t, blockApplications: t * 7 });

/** A record with the given outcomes; `routes`/`search` are per-attempt correctness. */
function record(i: number, o: { realized: boolean; routes: boolean[]; search: boolean[]; routesBudget?: number; searchBudget?: number; blind?: boolean; options?: number }): QuestionRecord {
  const probe = (correct: boolean[], budget: number, tokens: number) => ({ budget, attempts: correct.map((c) => attempt(c, tokens)), correct, cost: cost(correct.length, correct.length * tokens) });
  return {
    id: `q${i}`,
    line: i + 1,
    gold: '1',
    question: `question ${i}`,
    ...(o.options ? { options: o.options } : {}),
    realized: { ...attempt(o.realized), cost: cost(1, 10) },
    probes: { routes: probe(o.routes, o.routesBudget ?? 4, 13), search: probe(o.search, o.searchBudget ?? 4, 10) },
    reachable: { routes: o.routes.some(Boolean), search: o.search.some(Boolean) },
    blind: o.blind === undefined ? {} : { routes: { majority: { answer: null, correct: o.blind, attempt: 0 } }, search: { majority: { answer: null, correct: true, attempt: 0 } } },
  };
}

/** 40 questions: 10 reached by both, 12 only by routes, 5 only by search, 13 by neither. */
function pairedRecords(): QuestionRecord[] {
  const out: QuestionRecord[] = [];
  const kinds: [boolean, boolean, number][] = [[true, true, 10], [true, false, 12], [false, true, 5], [false, false, 13]];
  for (const [r, s, count] of kinds) for (let j = 0; j < count; j++) out.push(record(out.length, { realized: false, routes: [false, r, false, false], search: [s, false, false, false] }));
  return out;
}

test('routes vs search: discordant counts, exact McNemar, paired score interval, decision, cost ratios', () => {
  const recs = pairedRecords();
  const c = compareProbes(recs, 'routes', 'search');
  assert.ok(c);
  assert.deepEqual([c.n, c.both, c.onlyA, c.onlyB, c.neither], [40, 10, 12, 5, 13]);
  assert.equal(c.match, 'matched');
  assert.equal(c.mcnemarP, mcnemarExact(12, 5));
  // Textbook: two-sided exact McNemar = 2 · P(Binomial(17, 1/2) ≤ 5).
  let tail = 0;
  let comb = 1;
  for (let i = 0; i <= 5; i++) {
    tail += comb / 2 ** 17;
    comb = (comb * (17 - i)) / (i + 1);
  }
  assert.ok(Math.abs(c.mcnemarP - 2 * tail) < 1e-12);
  assert.ok(Math.abs(c.difference!.estimate - (22 - 15) / 40) < 1e-12);
  const ref = pairedScoreInterval({ both: 10, onlyFirst: 12, onlySecond: 5, neither: 13 });
  assert.equal(c.difference!.lo, ref.lo);
  assert.equal(c.difference!.hi, ref.hi);
  assert.equal(c.difference!.method, 'newcombe-score');
  // +17.5 pts over 40 questions, exact p 0.14: neither a direction nor equivalence at ±5 pts.
  assert.equal(c.decision?.verdict, 'inconclusive');
  assert.equal(c.cost.ratio.generations, 1);
  assert.ok(Math.abs(c.cost.ratio.tokens! - 1.3) < 1e-12, 'routes used 30% more tokens at equal generations');
  assert.equal(c.exhausted.a.questions, 0);
});

test('routes vs search: unequal budgets are labelled unmatched; a probe that ran out of routes says how many it evaluated', () => {
  const recs = [
    record(0, { realized: false, routes: [true, false], routesBudget: 4, search: [false, false, false, false, false, false], searchBudget: 6 }),
    record(1, { realized: true, routes: [false, false, false, false], routesBudget: 4, search: [true, false, false, false, false, false], searchBudget: 6 }),
  ];
  const c = compareProbes(recs, 'routes', 'search')!;
  assert.equal(c.match, 'unmatched');
  assert.deepEqual(c.budget, { a: 4, b: 6 });
  assert.equal(c.exhausted.a.questions, 1);
  assert.deepEqual(c.exhausted.a.examples, [{ id: 'q0', evaluated: 2, budget: 4 }]);
  const s = summarize(recs);
  assert.equal(s.routesVsSearch?.match, 'unmatched');
  assert.equal(s.exhausted.routes.questions, 1);
});

test('blind retention = (blind − realized) / (reachable − realized), on rates', () => {
  // 20 questions: 4 realized (and reachable, blind right), 10 reachable-not-realized of which blind keeps 3, 6 unreached.
  const outcomes = [
    ...Array.from({ length: 4 }, () => ({ blind: true, realized: true, reachable: true })),
    ...Array.from({ length: 10 }, (_, i) => ({ blind: i < 3, realized: false, reachable: true })),
    ...Array.from({ length: 6 }, () => ({ blind: false, realized: false, reachable: false })),
  ];
  const r = blindRetention(outcomes, ['t']);
  const want = (7 / 20 - 4 / 20) / (14 / 20 - 4 / 20);
  assert.ok(Math.abs(r.retained! - want) < 1e-12);
  assert.ok(Math.abs(r.retained! - 0.3) < 1e-12);
  assert.ok(r.ci && r.ci.lo <= 0.3 && 0.3 <= r.ci.hi && r.ci.lo >= 0 && r.ci.hi <= 1);
  assert.deepEqual(r.blind, rateOf(7, 20));
  // No gain: undefined, never a division by zero.
  const none = blindRetention([{ blind: true, realized: true, reachable: true }], ['t']);
  assert.equal(none.retained, null);
  assert.equal(none.ci, null);
});

test('summary: blind selectors only over answer-independent probes; per-probe reachable-not-realized; ceiling budget', () => {
  const recs = pairedRecords().map((r, i) => ({ ...r, blind: { routes: { majority: { answer: null, correct: r.reachable.routes && i % 2 === 0, attempt: 0 } }, search: { majority: { answer: null, correct: true, attempt: 0 } } } }));
  const s = summarize(recs);
  assert.deepEqual(Object.keys(s.blind), ['routes'], 'the search is not answer-blind');
  assert.equal(s.blindRetention.search, undefined);
  assert.ok(s.blindRetention.routes.majority);
  assert.deepEqual(s.reachableNotRealized.routes, rateOf(22, 40));
  assert.deepEqual(s.reachableNotRealized.search, rateOf(15, 40));
  assert.deepEqual(s.reachableAnyBudget, { attempts: 8, byProbe: { routes: 4, search: 4 } });
  for (const [p, curve] of Object.entries(s.passAtK)) {
    for (const [k, v] of Object.entries(curve)) {
      const ci = s.passAtKCi[p][k];
      assert.ok(ci.lo <= v + 1e-12 && v <= ci.hi + 1e-12, `${p} pass@${k} ${v} in [${ci.lo}, ${ci.hi}]`);
    }
  }
  assert.equal(s.chance, undefined, 'not a choice format');
});

test('summary: choice records get chance levels per probe', () => {
  const recs = pairedRecords().map((r) => ({ ...r, options: 4 }));
  const s = summarize(recs);
  assert.ok(s.chance);
  assert.equal(s.chance.realized.level, 0.25);
  assert.ok(Math.abs(s.chance.probes.routes.level - (1 - 0.75 ** 4)) < 1e-15);
  assert.equal(s.chance.probes.routes.observed.successes, 22);
});

test('pipeline: no blind choice is recorded for the search probe', async () => {
  const dataset = smallDataset(6);
  const out: QuestionRecord[] = [];
  await auditQuestions(fakeFor(dataset), dataset.questions, settingsFor(), { onRecord: (r) => out.push(r) }, { inFlight: 6 });
  for (const r of out) {
    assert.equal(r.blind.search, undefined);
    assert.ok(r.blind.sample && r.blind.routes);
  }
  const s = summarize(out);
  assert.ok(!('search' in s.blind));
  assert.ok(s.blind.routes['global-route']);
});
