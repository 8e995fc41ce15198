/**
 * The headlines count the rows' own verdicts (issue 38), on constructed record sets run through
 * the tables: a row that says search is better is never counted for routes; a ceiling that rose
 * makes the training claim "no"; routes vs search is decided on the questions the deployment does
 * not realize; the claims that favour the paper (equivalent, non-inferior) are Holm-adjusted over
 * the rows like the claim against it; the equivalence sample size reaches its stated power.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { routesVsSearchTable, trainingTable, type RunForTables } from '../../../src/audit/results/tables';
import { routesHeadlines } from '../../../src/audit/report/tablesReport';
import { compareProbes } from '../../../src/audit/results/probeComparison';
import { pairedDecision, questionsToClear } from '../../../src/audit/stats/pairedDecision';
import { pairedScoreInterval } from '../../../src/audit/stats/pairedScoreInterval';
import { seededRandom } from '../../../src/audit/stats/prng';
import type { QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

/** `count` questions with these outcomes. */
interface Cell {
  count: number;
  realized: boolean;
  routes: boolean;
  search: boolean;
}

function probe(ok: boolean): QuestionRecord['probes'][string] {
  return { budget: 1, attempts: [{ ...deployed(ok) }], correct: [ok], cost: { generations: 1, tokens: 1, blockApplications: 1 } };
}

function records(cells: readonly Cell[]): QuestionRecord[] {
  const out: QuestionRecord[] = [];
  for (const c of cells) {
    for (let k = 0; k < c.count; k++) {
      const i = out.length;
      out.push(testRecord(`q${i}`, i + 1, { realized: deployed(c.realized), probes: { routes: probe(c.routes), search: probe(c.search) }, reachable: { routes: c.routes, search: c.search } }));
    }
  }
  return out;
}

const run = (name: string, cells: readonly Cell[]): RunForTables => ({ folder: `/runs/${name}`, model: name, dataset: 'arith.jsonl', seed: 1, records: records(cells), finished: true });
const cell = (count: number, realized: boolean, routes: boolean, search: boolean): Cell => ({ count, realized, routes, search });

test('a row whose verdict is "search better" is counted as search better, never as routes non-inferior', () => {
  // n = 1000, none realized: search alone reaches 33, routes alone 3: routes − search −3.0 pts [−4.3, −1.9], exact p 2e-7.
  const t = routesVsSearchTable([run('a', [cell(33, false, false, true), cell(3, false, true, false), cell(964, false, false, false)])]);
  const row = t.rows[0];
  assert.deepEqual([t.nonInferior, t.searchBetter, t.inconclusive, t.counted], [0, 1, 0, 1], 'the headline counts the row as search better');
  assert.equal(row.nonInferior.holds, 'no');
  assert.equal(row.decision.verdict, 'worse');
  assert.ok(row.difference.lo > -0.05, 'the lower bound alone is inside the margin');
  assert.equal(row.verdict, 'search better');
});

test('routes vs search is decided on the gain set: a 3 : 10 gain is not diluted into "equivalent" by 200 realized questions', () => {
  // n = 300; both probes reach the 200 realized questions; on the 100 others routes reach 3, search 10.
  const cells = [cell(200, true, true, true), cell(3, false, true, false), cell(10, false, false, true), cell(87, false, false, false)];
  const t = routesVsSearchTable([run('diluted', cells)]);
  const row = t.rows[0];
  assert.deepEqual([t.nonInferior, t.inconclusive], [0, 1], 'the headline does not count the diluted difference');
  assert.equal(row.decision.verdict, 'inconclusive');
  assert.equal(row.n, 300);
  assert.equal(row.allDecision.verdict, 'equivalent', 'over all 300 questions the interval is inside ±5 pts');
  assert.equal(row.gainSet.n, 100);
  assert.deepEqual([row.gainSet.routes.successes, row.gainSet.search.successes], [3, 10]);
  assert.ok(Math.abs(row.gainSet.difference.delta - -0.07) < 1e-12);
  assert.equal(row.decision.verdict, 'inconclusive', 'on the gain set: −7 pts, interval well past −5');
  assert.equal(row.nonInferior.holds, 'inconclusive');
  assert.equal(t.nonInferior, 0);
  // summary.json's comparison carries the same gain set beside the all-question figures.
  const c = compareProbes(records(cells), 'routes', 'search')!;
  assert.equal(c.decision?.verdict, 'equivalent');
  assert.deepEqual([c.gainSet?.n, c.gainSet?.onlyA, c.gainSet?.onlyB, c.gainSet?.decision.verdict], [100, 3, 10, 'inconclusive']);
});

test('equivalence and non-inferiority are Holm-adjusted over the rows, like the difference', () => {
  // n = 1000, 85 : 105: −2.0 pts [−4.71, +0.71], exact p 0.17; its TOST p is 0.015.
  const cells = [cell(85, false, true, false), cell(105, false, false, true), cell(810, false, false, false)];
  const alone = routesVsSearchTable([run('x', cells)]);
  const three = routesVsSearchTable([run('x', cells), run('y', cells), run('z', cells)]);
  assert.deepEqual([three.nonInferior, three.inconclusive], [0, 3], 'three such rows: none equivalent or non-inferior after Holm');
  assert.equal(alone.nonInferior, 1);
  assert.equal(alone.rows[0].verdict, 'equivalent', 'one row: the interval inside ±5 pts decides');
  for (const row of three.rows) {
    assert.ok(Math.abs(row.equivalenceHolmP - 3 * alone.rows[0].equivalenceHolmP) < 1e-9, 'Holm over three equal p-values triples each');
    assert.ok(row.nonInferiorHolmP > 0.025);
    assert.equal(row.decision.verdict, 'inconclusive');
    assert.equal(row.verdict, 'inconclusive');
    assert.equal(row.nonInferior.holds, 'inconclusive');
  }
  assert.deepEqual([three.nonInferior, three.inconclusive], [0, 3]);
});

/** A base → tuned comparison from per-question (base realized, base reached, tuned realized, tuned reached) cells. */
function checkpoints(cells: readonly { count: number; base: [boolean, boolean]; tuned: [boolean, boolean] }[]) {
  const base: Cell[] = cells.map((c) => cell(c.count, c.base[0], c.base[1], false));
  const tuned: Cell[] = cells.map((c) => cell(c.count, c.tuned[0], c.tuned[1], false));
  return { folder: '/c', dataset: 'arith.jsonl', base: run('base', base), tuned: run('tuned', tuned) };
}

test('training: a ceiling whose verdict is "better" makes "realized up while the ceiling does not rise" say no', () => {
  // n = 1000: realized +10 pts (100 : 0), the ceiling +3.5 pts (35 : 0; interval inside +5, exact p 6e-11).
  const c = checkpoints([
    { count: 100, base: [false, true], tuned: [true, true] },
    { count: 35, base: [false, false], tuned: [false, true] },
    { count: 465, base: [true, true], tuned: [true, true] },
    { count: 400, base: [false, false], tuned: [false, false] },
  ]);
  const t = trainingTable([c]);
  const row = t.rows[0];
  assert.equal(row.realized.decision?.verdict, 'better');
  assert.ok(row.ceiling.ci.hi < 0.05, 'the upper bound alone is below +5 pts');
  assert.equal(row.ceiling.decision?.verdict, 'better');
  assert.equal(row.claim.holds, 'no');
  assert.deepEqual([t.realizedUpCeilingFlat, t.notSo], [0, 1]);
});

test('training: "the ceiling does not rise" is Holm-adjusted over the rows', () => {
  // Realized +10 pts (100 : 0); the ceiling +2.4 pts (84 : 60 of 1000, exact p 0.055): upper bound +4.75, one-sided p of "< +5" 0.015.
  const cells = [
    { count: 100, base: [false, true], tuned: [true, true] },
    { count: 84, base: [false, false], tuned: [false, true] },
    { count: 60, base: [false, true], tuned: [false, false] },
    { count: 455, base: [true, true], tuned: [true, true] },
    { count: 301, base: [false, false], tuned: [false, false] },
  ] as { count: number; base: [boolean, boolean]; tuned: [boolean, boolean] }[];
  const one = trainingTable([checkpoints(cells)]);
  const three = trainingTable([checkpoints(cells), checkpoints(cells), checkpoints(cells)]);
  assert.deepEqual([three.realizedUpCeilingFlat, three.inconclusive], [0, 3], 'three such rows: the ceiling is not shown flat after Holm');
  assert.equal(one.rows[0].claim.holds, 'yes');
  assert.ok(one.rows[0].ceiling.ci.hi < 0.05 && one.rows[0].ceiling.notRisingHolmP < 0.025);
  for (const row of three.rows) {
    assert.ok(row.ceiling.notRisingHolmP > 0.025, `Holm p ${row.ceiling.notRisingHolmP}`);
    assert.equal(row.claim.holds, 'inconclusive');
  }
  assert.deepEqual([three.realizedUpCeilingFlat, three.inconclusive], [0, 3]);
});

test('equivalence sample size: at the questions it asks for, two one-sided tests decide "equivalent" with 80% power (simulation)', () => {
  // True difference 0, 32% discordant (16% each way), margin 5 pts.
  // The sample size an inconclusive tie asks for (16 : 16 of 100, the README demo's routes vs search).
  const n = pairedDecision({ estimate: 0, lo: -0.11, hi: 0.11, p: 1, n: 100, discordant: 32 }).questionsNeeded!;
  const random = seededRandom('headline-verdicts', 'equivalence-power');
  const runs = 2000;
  let equivalent = 0;
  for (let s = 0; s < runs; s++) {
    let onlyFirst = 0;
    let onlySecond = 0;
    for (let i = 0; i < n; i++) {
      const u = random();
      if (u < 0.16) onlyFirst++;
      else if (u < 0.32) onlySecond++;
    }
    const rest = n - onlyFirst - onlySecond;
    const ci = pairedScoreInterval({ both: Math.floor(rest / 2), onlyFirst, onlySecond, neither: rest - Math.floor(rest / 2) });
    if (ci.lo > -0.05 && ci.hi < 0.05) equivalent++;
  }
  const power = equivalent / runs;
  assert.ok(power > 0.76 && power < 0.86, `P(equivalent) at n = ${n}: ${power}`);
  assert.equal(n, Math.ceil((1.959963984540054 + 1.2815515655446004) ** 2 * 0.32 / 0.0025), 'z(0.975) + z(0.9)');
  assert.equal(questionsToClear({ estimate: 0, lo: -0.11, hi: 0.11, p: 1, n: 100, discordant: 32 }, 0.05, 'equivalence'), n);
});

test('compute-matched view: at matched block applications a probe that spends twice as much per attempt keeps half its attempts', () => {
  // 100 questions, none realized, 4 attempts each; a route costs 2 block applications, a search step 1.
  // Routes hit on their 4th attempt on 30 questions; search never hits.
  const records = Array.from({ length: 100 }, (_, i) => {
    const routes = [false, false, false, i < 30];
    const search = [false, false, false, false];
    const probe = (correct: boolean[], perAttempt: number) => ({ budget: 4, attempts: correct.map((c) => ({ ...deployed(c) })), correct, cost: { generations: 4, tokens: 4, blockApplications: 4 * perAttempt } });
    return testRecord(`q${i}`, i + 1, { realized: deployed(false), probes: { routes: probe(routes, 2), search: probe(search, 1) }, reachable: { routes: i < 30, search: false } });
  });
  const c = compareProbes(records, 'routes', 'search')!;
  assert.equal(c.gainSet?.decision.verdict, 'better', 'at matched generations routes reach 30 more');
  const m = c.gainSetAtMatchedBlockApplications!;
  assert.deepEqual([m.onlyA, m.onlyB, m.spent.a, m.spent.b], [0, 0, 400, 400], 'at 4 block applications each, routes keep 2 attempts and miss');
  const t = routesVsSearchTable([{ folder: '/r', model: 'm', dataset: 'd', seed: 1, records, finished: true }]);
  assert.equal(t.rows[0].atMatchedBlockApplications.difference.delta, 0);
  assert.deepEqual(t.rows[0].atMatchedBlockApplications.spent, { routes: 400, search: 400 });
});

/** The training comparison of the veto example: realized +10 pts (50 : 10 of 400); the ceiling +2.0 pts (9 : 1 of 400, exact McNemar p 0.021). */
const risingCeiling = [
  { count: 50, base: [false, true], tuned: [true, true] },
  { count: 10, base: [true, true], tuned: [false, true] },
  { count: 9, base: [false, false], tuned: [false, true] },
  { count: 1, base: [false, true], tuned: [false, false] },
  { count: 150, base: [true, true], tuned: [true, true] },
  { count: 180, base: [false, false], tuned: [false, false] },
] as { count: number; base: [boolean, boolean]; tuned: [boolean, boolean] }[];
/** A comparison with a flat ceiling (exact p 1) whose realized rate rises +10 pts through questions already reachable: its claim holds. */
const flatComparison = [
  { count: 40, base: [false, true], tuned: [true, true] },
  { count: 160, base: [true, true], tuned: [true, true] },
  { count: 200, base: [false, false], tuned: [false, false] },
] as { count: number; base: [boolean, boolean]; tuned: [boolean, boolean] }[];

test('training veto: a significantly rising ceiling says "no" alone and beside two flat comparisons (the veto is not Holm-adjusted)', () => {
  const alone = trainingTable([checkpoints(risingCeiling)]);
  const row = alone.rows[0];
  assert.ok(Math.abs(row.realized.delta - 0.1) < 1e-12 && Math.abs(row.ceiling.delta - 0.02) < 1e-12);
  assert.ok(row.ceiling.ci.lo > 0 && row.ceiling.ci.hi < 0.05, `ceiling ${row.ceiling.ci.lo} .. ${row.ceiling.ci.hi}: above 0, below +5`);
  assert.ok(row.ceiling.mcnemarP < 0.05 && row.ceiling.mcnemarP > 0.02, `exact p ${row.ceiling.mcnemarP}`);
  assert.equal(row.claim.holds, 'no');
  const three = trainingTable([checkpoints(risingCeiling), checkpoints(flatComparison), checkpoints(flatComparison)]);
  const first = three.rows[0];
  assert.ok(first.ceiling.holmP > 0.05, `Holm p ${first.ceiling.holmP}: the adjusted test alone would not call it a rise`);
  assert.equal(first.ceiling.decision?.verdict, 'better', 'the veto reads the unadjusted p');
  assert.equal(first.claim.holds, 'no');
  assert.deepEqual([three.realizedUpCeilingFlat, three.notSo], [2, 1], 'the flat rows count, the vetoed one does not: not "3 of 3"');
  assert.equal(three.rows[1].claim.holds, 'yes');
});

test('routes vs search veto: "search better" stays search better beside flat rows', () => {
  // Gain set of 1000: search alone 20, routes alone 7: −1.3 pts, exact p 0.019; its interval lies inside ±5.
  const worse = [cell(7, false, true, false), cell(20, false, false, true), cell(973, false, false, false)];
  const flat = [cell(500, false, true, true), cell(500, false, false, false)];
  const alone = routesVsSearchTable([run('w', worse)]);
  assert.equal(alone.rows[0].verdict, 'search better');
  const three = routesVsSearchTable([run('w', worse), run('f1', flat), run('f2', flat)]);
  assert.ok(three.rows[0].holmP > 0.05, `Holm p ${three.rows[0].holmP}`);
  assert.equal(three.rows[0].verdict, 'search better');
  assert.equal(three.rows[0].nonInferior.holds, 'no');
  assert.equal(three.searchBetter, 1);
});

test('property: adding flat rows never turns a "no" into a "yes" (constructed training and routes tables, seeded)', () => {
  const random = seededRandom('headline-verdicts', 'veto-monotone');
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  type Cells = { count: number; base: [boolean, boolean]; tuned: [boolean, boolean] }[];
  let vetoes = 0;
  for (let trial = 0; trial < 60; trial++) {
    const n = int(200, 600);
    const gained = int(20, 80);
    const lost = int(0, 15);
    const ceilingUp = int(0, 14);
    const ceilingDown = int(0, 4);
    const fixed: Cells = [
      { count: gained, base: [false, true], tuned: [true, true] },
      { count: lost, base: [true, true], tuned: [false, true] },
      { count: ceilingUp, base: [false, false], tuned: [false, true] },
      { count: ceilingDown, base: [false, true], tuned: [false, false] },
    ];
    const used = fixed.reduce((s, c) => s + c.count, 0);
    const cells: Cells = [...fixed, { count: Math.floor((n - used) / 2), base: [true, true], tuned: [true, true] }, { count: n - used - Math.floor((n - used) / 2), base: [false, false], tuned: [false, false] }];
    const before = trainingTable([checkpoints(cells)]).rows[0].claim.holds;
    const flats = int(1, 4);
    const after = trainingTable([checkpoints(cells), ...Array.from({ length: flats }, () => checkpoints(flatComparison))]).rows[0].claim.holds;
    if (before === 'no') {
      vetoes++;
      assert.equal(after, 'no', `trial ${trial}: ${JSON.stringify(fixed.map((c) => c.count))} of ${n}, beside ${flats} flat rows`);
    }
    if (before !== 'yes') assert.notEqual(after, 'yes', `trial ${trial}: adding rows made a claim`);
    // Routes vs search: a row that says "search better" alone says it in any table.
    const onlyRoutes = int(0, 15);
    const onlySearch = int(0, 30);
    const rs = [cell(onlyRoutes, false, true, false), cell(onlySearch, false, false, true), cell(n - onlyRoutes - onlySearch, false, false, false)];
    const one = routesVsSearchTable([run('x', rs)]).rows[0];
    const many = routesVsSearchTable([run('x', rs), ...Array.from({ length: flats }, (_, i) => run(`f${i}`, [cell(n, false, false, false)]))]).rows[0];
    if (one.nonInferior.holds === 'no') assert.equal(many.nonInferior.holds, 'no', `trial ${trial}: ${onlyRoutes} : ${onlySearch} of ${n}`);
    if (one.nonInferior.holds !== 'yes') assert.notEqual(many.nonInferior.holds, 'yes');
  }
  assert.ok(vetoes >= 5, `the draws include vetoed rows (${vetoes})`);
});

test('questions to decide count whole questions (the gain set scaled by its share) at the Holm family\'s level', () => {
  // 300 questions: 140 realized (both probes reach them); the gain set of 160: routes alone 3, search alone 10.
  // On the gain set: δ = −7/160, ψ = 13/160; the direction needs (z₀.₉₇₅ + z₀.₈)² (ψ − δ²) / δ² = 325.3 → 326 gain-set questions,
  // i.e. ⌈326 · 300 / 160⌉ = 612 questions (not 326). In a Holm family of 3 rows z₀.₉₇₅ becomes z(1 − 0.025/3) = 2.39398: 434 → ⌈434 · 300/160⌉ = 814.
  const cells = [cell(140, true, true, true), cell(3, false, true, false), cell(10, false, false, true), cell(147, false, false, false)];
  const psi = 13 / 160;
  const delta = 7 / 160;
  const gainCount = (z: number) => Math.ceil(((z + 0.8416212335729143) ** 2 * (psi - delta * delta)) / (delta * delta));
  assert.equal(gainCount(1.959963984540054), 326);
  const c = compareProbes(records(cells), 'routes', 'search')!;
  assert.equal(c.gainSet?.n, 160);
  assert.equal(c.gainSet?.decision.verdict, 'inconclusive');
  assert.equal(c.gainSet?.decision.questionsNeeded, Math.ceil((326 * 300) / 160));
  assert.equal(c.gainSet?.decision.questionsNeeded, 612);
  const alone = routesVsSearchTable([run('x', cells)]);
  assert.equal(alone.rows[0].decision.questionsNeeded, 612);
  const three = routesVsSearchTable([run('x', cells), run('y', cells), run('z', cells)]);
  assert.equal(gainCount(2.3939797998185104), 434);
  for (const row of three.rows) assert.equal(row.decision.questionsNeeded, Math.ceil((434 * 300) / 160));
  assert.equal(three.rows[0].decision.questionsNeeded, 814);
});

test('rows of different search rewards are separate families: adjusted apart, one headline each naming the reward and the compute per probe', () => {
  const cells = [cell(85, false, true, false), cell(105, false, false, true), cell(810, false, false, false)];
  const t = routesVsSearchTable([run('a', cells), { ...run('b', cells), searchReward: 'gold-logprob' }]);
  assert.deepEqual(t.byReward.map((f) => [f.reward, f.counted, f.nonInferior]), [['correct', 1, 1], ['gold-logprob', 1, 1]]);
  for (const row of t.rows) assert.ok(Math.abs(row.holmP - row.gainSet.mcnemarP) < 1e-12, 'a family of one row: Holm leaves its p alone');
  const lines = routesHeadlines(t);
  assert.equal(lines.length, 2, 'no pooled "X of 2"');
  assert.match(lines[0], /^Search at reward 0\/1 \(per question: generations 1 routes \/ 1 search, block applications 1 \/ 1\).* in 1 of 1 settings/);
  assert.match(lines[1], /^Search at reward gold-logprob .* in 1 of 1 settings/);
  assert.ok(!lines.some((l) => /of 2 settings/.test(l)));
});
