/**
 * The verdict statistics against independent implementations: Newcombe's paired score interval
 * against a published worked example and a brute-force re-derivation (Wilson bounds found by
 * bisection on the score equation, not the closed form) plus its exact coverage by enumerating the
 * multinomial; the four-way decisions on constructed discordance tables; Holm against the
 * textbook; chance saturation of choice-format rows.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { pairedScoreInterval } from '../../../src/audit/stats/pairedScoreInterval';
import { pairedDecision, questionsToClear } from '../../../src/audit/stats/pairedDecision';
import { holmAdjust } from '../../../src/audit/stats/holm';
import { mcnemarExact } from '../../../src/audit/stats';
import { routesVsSearchTable, trainingTable, type RunForTables } from '../../../src/audit/results/tables';
import { routesVsSearchView, trainingView } from '../../../src/audit/report/tablesReport';
import type { QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

const Z = 1.959963984540054;

/** Wilson bounds by bisection: the p with |k/n − p| = z·sqrt(p(1 − p)/n) on each side. */
function wilsonByBisection(k: number, n: number): { lo: number; hi: number } {
  const phat = k / n;
  // f ≤ 0 between the bounds (f(p̂) ≤ 0), f ≥ 0 outside them.
  const f = (p: number) => (phat - p) ** 2 - (Z * Z * p * (1 - p)) / n;
  const solve = (inside: number, outside: number) => {
    for (let i = 0; i < 200; i++) {
      const m = (inside + outside) / 2;
      if (f(m) <= 0) inside = m;
      else outside = m;
    }
    return (inside + outside) / 2;
  };
  return { lo: k === 0 ? 0 : solve(phat, 0), hi: k === n ? 1 : solve(phat, 1) };
}

/** Newcombe (1998) method 10 written out from the paper's definitions, with bisection Wilson bounds. */
function newcombeReference(e: number, f: number, g: number, h: number): { lo: number; hi: number } {
  const n = e + f + g + h;
  const p1 = (e + f) / n;
  const p2 = (e + g) / n;
  const w1 = wilsonByBisection(e + f, n);
  const w2 = wilsonByBisection(e + g, n);
  const A = (e + f) * (g + h) * (e + g) * (f + h);
  const B = e * h - f * g;
  const C = B > n / 2 ? B - n / 2 : B >= 0 ? 0 : B;
  const phi = A === 0 ? 0 : C / Math.sqrt(A);
  const d1 = p1 - w1.lo;
  const d2 = w2.hi - p2;
  const d3 = p2 - w2.lo;
  const d4 = w1.hi - p1;
  return {
    lo: Math.max(-1, p1 - p2 - Math.sqrt(Math.max(0, d1 * d1 - 2 * phi * d1 * d2 + d2 * d2))),
    hi: Math.min(1, p1 - p2 + Math.sqrt(Math.max(0, d3 * d3 - 2 * phi * d3 * d4 + d4 * d4))),
  };
}

const table = (both: number, onlyFirst: number, onlySecond: number, neither: number) => ({ both, onlyFirst, onlySecond, neither });

test('score interval: the published worked example (Fagerland, Lydersen & Laake 2017, complete response before/after consolidation)', () => {
  // 59 both, 6 before only, 16 after only, 80 neither: −0.0621 (95% CI −0.1186 to −0.0046).
  const ci = pairedScoreInterval(table(59, 6, 16, 80));
  assert.equal(ci.lo.toFixed(4), '-0.1186');
  assert.equal(ci.hi.toFixed(4), '-0.0046');
});

test('score interval: agrees with the brute-force re-derivation on 2,000 tables, edges included', () => {
  let seed = 12345;
  const next = (m: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % m;
  };
  const cases: [number, number, number, number][] = [[0, 0, 0, 1], [5, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 7], [10, 0, 0, 10], [0, 4, 4, 0], [146, 4, 0, 150]];
  for (let i = 0; i < 2000; i++) cases.push([next(60), next(15), next(15), next(60)]);
  for (const [e, f, g, h] of cases) {
    if (e + f + g + h === 0) continue;
    const ours = pairedScoreInterval(table(e, f, g, h));
    const ref = newcombeReference(e, f, g, h);
    assert.ok(Math.abs(ours.lo - ref.lo) < 1e-9 && Math.abs(ours.hi - ref.hi) < 1e-9, `(${e},${f},${g},${h}): [${ours.lo}, ${ours.hi}] vs [${ref.lo}, ${ref.hi}]`);
    assert.ok(ours.lo <= (f - g) / (e + f + g + h) + 1e-12 && (f - g) / (e + f + g + h) <= ours.hi + 1e-12, 'the estimate is inside');
  }
  assert.deepEqual(pairedScoreInterval(table(0, 0, 0, 0)), { lo: -1, hi: 1 }, 'no questions: nothing known');
});

test('score interval: exact coverage near 95% (enumerating every table of n = 40)', () => {
  const n = 40;
  const logFact = [0];
  for (let i = 1; i <= n; i++) logFact.push(logFact[i - 1] + Math.log(i));
  const tables: [number, number, number, number][] = [];
  for (let e = 0; e <= n; e++) for (let f = 0; e + f <= n; f++) for (let g = 0; e + f + g <= n; g++) tables.push([e, f, g, n - e - f - g]);
  const intervals = tables.map(([e, f, g, h]) => pairedScoreInterval(table(e, f, g, h)));
  for (const [pe, pf, pg] of [[0.4, 0.1, 0.1], [0.3, 0.15, 0.05], [0.5, 0.05, 0.05], [0.2, 0.2, 0.1]]) {
    const ph = 1 - pe - pf - pg;
    const theta = pf - pg;
    let coverage = 0;
    tables.forEach(([e, f, g, h], i) => {
      const ci = intervals[i];
      if (ci.lo <= theta && theta <= ci.hi) {
        coverage += Math.exp(logFact[n] - logFact[e] - logFact[f] - logFact[g] - logFact[h] + e * Math.log(pe) + f * Math.log(pf) + g * Math.log(pg) + h * Math.log(ph));
      }
    });
    assert.ok(coverage > 0.93 && coverage < 0.99, `coverage ${coverage.toFixed(4)} at (${pe}, ${pf}, ${pg}, ${ph.toFixed(2)})`);
  }
});

/** A decision for a difference with `onlyFirst : onlySecond` discordant questions among n. */
function decide(onlyFirst: number, onlySecond: number, n: number, margin = 0.05) {
  const both = Math.floor((n - onlyFirst - onlySecond) / 2);
  const ci = pairedScoreInterval(table(both, onlyFirst, onlySecond, n - both - onlyFirst - onlySecond));
  return pairedDecision({ estimate: (onlyFirst - onlySecond) / n, lo: ci.lo, hi: ci.hi, p: mcnemarExact(onlyFirst, onlySecond), n, discordant: onlyFirst + onlySecond }, margin);
}

test('decisions: few discordant questions at n = 300 are not "better", though the score interval alone would say so', () => {
  for (const [a, b, p] of [[4, 0, 0.125], [5, 0, 0.0625], [7, 1, 0.0703], [9, 2, 0.0654]] as const) {
    assert.equal(mcnemarExact(a, b).toFixed(4), p.toFixed(4));
    const d = decide(a, b, 300);
    assert.notEqual(d.verdict, 'better', `${a} : ${b}`);
    // Every one of these differences (≤ 2.3 pts) lies within ±5 pts: equivalence is what they show.
    assert.equal(d.verdict, 'equivalent', `${a} : ${b}`);
  }
  assert.equal(decide(12, 0, 300).verdict, 'better', '12 : 0 (exact p 0.0005) is');
  assert.equal(decide(0, 12, 300).verdict, 'worse');
});

test('decisions: an underpowered tie is inconclusive with a sample size, a powered one equivalent', () => {
  // The README's demo: 16 : 16 of 100, interval about ±11 points.
  const small = decide(16, 16, 100);
  assert.equal(small.verdict, 'inconclusive');
  assert.ok(small.questionsNeeded !== null && small.questionsNeeded > 100, `needs ${small.questionsNeeded}`);
  // The same discordance at that many questions decides.
  const big = decide(16 * Math.ceil(small.questionsNeeded! / 100), 16 * Math.ceil(small.questionsNeeded! / 100), 100 * Math.ceil(small.questionsNeeded! / 100));
  assert.equal(big.verdict, 'equivalent');
  assert.equal(decide(1, 1, 10).verdict, 'inconclusive', 'at n = 10 nothing is equivalent');
  assert.equal(decide(16, 16, 100, 0.2).verdict, 'equivalent', 'a 20-point margin is wide enough');
  assert.equal(decide(16, 16, 100).margin, 0.05);
  assert.equal(decide(30, 16, 100).questionsNeeded !== null, true);
});

test('questionsToClear: the normal-approximation sample size, from its definition', () => {
  // ψ = 0.32, δ = 0: n = (1.95996 + 0.84162)² · 0.32 / 0.05² = 1004.7 → 1005.
  const n = questionsToClear({ estimate: 0, lo: -0.11, hi: 0.11, p: 1, n: 100, discordant: 32 }, 0.05);
  assert.equal(n, Math.ceil((1.959963984540054 + 0.8416212335729143) ** 2 * 0.32 / 0.0025));
  assert.equal(n, 1005);
  assert.equal(questionsToClear({ estimate: 0, lo: -0.1, hi: 0.1, p: 1, n: 100, discordant: 0 }, 0.05), Math.ceil((Z + 0.8416212335729143) ** 2 * 0.01 / 0.0025), 'no discordance yet: one is assumed');
  assert.equal(questionsToClear({ estimate: 0, lo: 0, hi: 0, p: 1, n: 100, discordant: 3 }, 0), null);
});

test('Holm: R p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") and edge cases', () => {
  const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
  const expected = [0.03, 0.06, 0.06, 0.02];
  adjusted.forEach((p, i) => assert.ok(Math.abs(p - expected[i]) < 1e-12, `${i}: ${p}`));
  assert.deepEqual(holmAdjust([]), []);
  assert.deepEqual(holmAdjust([0.5]), [0.5]);
  assert.deepEqual(holmAdjust([0.6, 0.7]), [1, 1], 'capped at 1');
  assert.throws(() => holmAdjust([Number.NaN]), RangeError);
});

/** A choice-format run: every question has 4 options; routes/search each made `attempts` attempts. */
function choiceRun(name: string, reach: (i: number) => [boolean, boolean], attempts: number, n = 60, realized = (i: number) => i % 3 === 0): RunForTables {
  const records: QuestionRecord[] = Array.from({ length: n }, (_, i) => {
    const [r, s] = reach(i);
    const probe = (ok: boolean) => ({
      budget: attempts,
      attempts: Array.from({ length: attempts }, (_, k) => ({ ...deployed(ok && k === 0, ok && k === 0 ? '4' : '3') })),
      correct: Array.from({ length: attempts }, (_, k) => ok && k === 0),
      cost: { generations: attempts, tokens: attempts, blockApplications: attempts },
    });
    return testRecord(`q${i}`, i + 1, { options: 4, realized: deployed(realized(i)), probes: { routes: probe(r), search: probe(s) }, reachable: { routes: r, search: s } });
  });
  return { folder: `/runs/${name}`, model: name, dataset: 'arc.jsonl', seed: 1, records, finished: true };
}

test('chance: a 4-option setting with 16 attempts is saturated and not counted; with 1 attempt it counts', () => {
  const saturatedRun = choiceRun('b16', (i) => [i % 2 === 0, i % 2 === 0], 16);
  const countedRun = choiceRun('b1', (i) => [i % 4 !== 3, i % 4 !== 3], 1);
  const t = routesVsSearchTable([saturatedRun, countedRun]);
  assert.equal(t.rows.length, 2);
  const [sat, counted] = t.rows;
  assert.ok(sat.routes.chance && Math.abs(sat.routes.chance.level - (1 - 0.75 ** 16)) < 1e-12);
  assert.match(sat.saturated ?? '', /chance reach 99\.0%/);
  assert.equal(counted.saturated, null);
  assert.equal(counted.routes.chance?.level, 0.25);
  assert.equal(t.saturated, 1);
  assert.equal(t.counted, 1);
  const view = routesVsSearchView(t);
  assert.match(view.notes[0], /in \d+ of 1 settings; .*1 saturated by chance, not counted/);
  assert.match(view.rows[0][view.headers.indexOf('routes non-inferior')], /^saturated/);
  // Training: the ceiling with 33 guesses per question is saturated too.
  const tt = trainingTable([{ folder: '/c', dataset: 'arc.jsonl', base: saturatedRun, tuned: countedRun }]);
  assert.equal(tt.saturated, 1);
  assert.equal(tt.counted, 0);
  assert.match(trainingView(tt).notes[0], /in 0 of 0 comparisons.*1 saturated by chance/);
});

test('routes vs search: Holm over the rows decides the direction; a "worse" row counts as search better, whatever its lower bound', () => {
  // Three settings of 300, none realized (the gain set is every question): search ahead by 8 : 0 (exact p 0.0078; interval about [−4.6, −0.7] pts), by 5 : 1, and tied 20 : 20.
  const ahead = (k: number, j: number) => (i: number): [boolean, boolean] => (i < k ? [false, true] : i < k + j ? [true, false] : [i % 2 === 0, i % 2 === 0]);
  const runs = [choiceRun('a', ahead(8, 0), 1, 300, () => false), choiceRun('b', ahead(5, 1), 1, 300, () => false), choiceRun('c', ahead(20, 20), 1, 300, () => false)].map((r) => ({ ...r, records: r.records.map((q) => ({ ...q, options: undefined })) }));
  const t = routesVsSearchTable(runs);
  const holm = holmAdjust(t.rows.map((r) => r.gainSet.mcnemarP));
  t.rows.forEach((r, i) => assert.equal(r.holmP, holm[i]));
  assert.equal(t.rows[0].decision.verdict, 'worse', 'routes behind by 8 : 0 survives Holm');
  assert.ok(t.rows[0].gainSet.difference.lo > -0.05, 'its lower bound is inside the 5-point margin');
  assert.equal(t.rows[0].nonInferior.holds, 'no', 'yet a "worse" row is search better, not non-inferior');
  assert.equal(t.rows[2].decision.verdict, 'equivalent', '20 : 20 of 300: interval about ±4.2 pts, inside ±5 after Holm');
  assert.equal(t.rows[2].nonInferior.holds, 'yes');
  assert.equal(t.searchBetter, 1);
  const strict = routesVsSearchTable(runs, { margin: 0.01 });
  assert.equal(strict.rows[0].nonInferior.holds, 'no', 'at a 1-point margin the 8 : 0 setting shows search better');
  assert.equal(strict.searchBetter, 1);
  assert.equal(strict.rows[2].nonInferior.holds, 'inconclusive');
  assert.ok((strict.rows[2].nonInferior.questionsNeeded ?? 0) > 300);
});
