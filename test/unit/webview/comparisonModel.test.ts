/**
 * The audit panel's comparison model (webview/src/comparisonModel.ts, DOM-free) on a comparison the
 * audit layer really computes: the transition table's counts and totals, the selections a click
 * applies and their chip words, the differences in reading order, the number formats, and the
 * defensive reading of a malformed comparison.json.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareRecords } from '../../../src/audit/results/compare';
import type { Comparison, QuestionRecord } from '../../../src/contract';
import {
  deltaClass,
  deltaRows,
  deltaText,
  newlySplit,
  pointsInterval,
  pValueClause,
  pValueText,
  resolveSelection,
  signedPoints,
  transitionGrid,
  transitionKey,
} from '../../../webview/src/comparison/comparisonModel';

function rec(id: string, realized: boolean, reachable: { routes: boolean; sample: boolean }): QuestionRecord {
  const cost = { generations: 0, tokens: 0, blockApplications: 0 };
  return {
    id,
    line: 1,
    gold: '1',
    question: id,
    realized: { output: '', answer: null, correct: realized, truncated: false, rule: 'none', logprob: null, tokens: 0, cost },
    probes: {},
    reachable,
    blind: {},
  };
}

type State = 'realized' | 'reachable' | 'unreached';
const reach = (s: State) => ({ routes: s !== 'unreached', sample: false });

/** Pairs of (base state, tuned state) with how many questions make each move. */
const MOVES: [State, State, number][] = [
  ['realized', 'realized', 5],
  ['realized', 'reachable', 2],
  ['realized', 'unreached', 1],
  ['reachable', 'realized', 4],
  ['reachable', 'reachable', 3],
  ['unreached', 'realized', 1],
  ['unreached', 'unreached', 6],
  // reachable → unreached and unreached → reachable stay empty: cells with no questions.
];

function comparison(): Comparison {
  const base: QuestionRecord[] = [];
  const tuned: QuestionRecord[] = [];
  let i = 0;
  for (const [from, to, k] of MOVES) {
    for (let j = 0; j < k; j++, i++) {
      // One id looks like HTML: it is data, carried as it is.
      const id = i === 3 ? '<img src=x onerror=alert(1)>' : `q${i}`;
      base.push(rec(id, from === 'realized', reach(from)));
      tuned.push(rec(id, to === 'realized', reach(to)));
    }
  }
  // Through JSON, as comparison.json and postMessage carry it.
  return JSON.parse(JSON.stringify(compareRecords(base, tuned))) as Comparison;
}

describe('comparison model', () => {
  const compare = comparison();

  test('the structural copy round-trips to the audit type', () => {
    assert.equal(compare.n, 22);
  });

  test('transition table: each cell counts its ids, rows base, columns tuned, with totals', () => {
    const grid = transitionGrid(compare)!;
    assert.deepEqual(grid.rows.map((r) => r.from), ['realized', 'reachable', 'unreached']);
    const counts = grid.rows.map((r) => r.cells.map((c) => c.ids.length));
    assert.deepEqual(counts, [
      [5, 2, 1],
      [4, 3, 0],
      [1, 0, 6],
    ]);
    for (const row of grid.rows) {
      for (const cell of row.cells) {
        assert.equal(cell.from, row.from);
        assert.deepEqual(cell.ids, compare.transitions[cell.from][cell.to]);
        assert.equal(cell.key, transitionKey(cell.from, cell.to));
      }
    }
    assert.deepEqual(grid.rows.map((r) => r.total), [8, 7, 7]);
    assert.deepEqual(grid.columnTotals, [10, 5, 7]);
    assert.equal(grid.total, compare.n);
    assert.ok(grid.rows[0].cells[0].ids.includes('<img src=x onerror=alert(1)>'));
  });

  test('a selection is a cell or a part of the newly realized split, with the chip words', () => {
    const cell = resolveSelection(compare, 'transition:reachable>realized')!;
    assert.equal(cell.label, 'base reachable → tuned realized (4)');
    assert.deepEqual(cell.ids, compare.transitions.reachable.realized);
    const already = resolveSelection(compare, 'newly:alreadyReachable')!;
    assert.equal(already.label, 'newly realized, already reachable by base (4)');
    assert.deepEqual(already.ids, compare.newlyRealized.alreadyReachable.ids);
    assert.equal(resolveSelection(compare, 'newly:newlyReachable')!.ids.length, 1);
    for (const key of [undefined, '', 'transition:realized>nowhere', 'transition:x', 'newly:other', 'filter:all']) {
      assert.equal(resolveSelection(compare, key), undefined, `${String(key)} names nothing`);
    }
    assert.equal(resolveSelection(undefined, 'transition:reachable>realized'), undefined, 'no comparison, no selection');
  });

  test('newly realized split: counts, Wilson rates and n from the comparison', () => {
    const split = newlySplit(compare)!;
    assert.equal(split.n, 5);
    assert.deepEqual(split.parts.map((p) => [p.part, p.rate.successes, p.rate.n, p.rate.ids.length]), [
      ['alreadyReachable', 4, 5, 4],
      ['newlyReachable', 1, 5, 1],
    ]);
    assert.equal(split.parts[0].rate.rate, 0.8);
    assert.ok(split.parts[0].rate.ci.lo < 0.8 && split.parts[0].rate.ci.hi > 0.8);
  });

  test('differences in reading order: realized, the ceiling, then each probe', () => {
    const rows = deltaRows(compare);
    assert.deepEqual(rows.map((r) => r.key), ['realized', 'ceiling', 'probe:routes', 'probe:sample']);
    assert.equal(rows[0].delta.gained, 5);
    assert.equal(rows[0].delta.lost, 3);
    assert.equal(rows[0].delta.n, 22);
  });

  test('a malformed comparison leaves out the broken part rather than showing it wrong', () => {
    const broken = JSON.parse(JSON.stringify(compare)) as Record<string, unknown> & Comparison;
    (broken.transitions.reachable as Record<string, unknown>).realized = 'q1';
    assert.equal(transitionGrid(broken), undefined);
    (broken.realized as unknown as Record<string, unknown>).ci = [0, 1];
    assert.deepEqual(deltaRows(broken).map((r) => r.key), ['ceiling', 'probe:routes', 'probe:sample']);
    delete (broken as Record<string, unknown>).newlyRealized;
    assert.equal(newlySplit(broken), undefined);
    assert.deepEqual(deltaRows(undefined), []);
    assert.equal(transitionGrid({} as Comparison), undefined);
    // Numeric ids (a dataset without ids) become the table's string ids.
    const numeric = JSON.parse(JSON.stringify(compare)) as Comparison;
    (numeric.transitions.unreached as Record<string, unknown>).unreached = [1, 2];
    assert.deepEqual(transitionGrid(numeric)!.rows[2].cells[2].ids, ['1', '2']);
  });

  test('number formats: signed points, paired intervals, p-values', () => {
    assert.equal(signedPoints(0.147), '+14.7 pts');
    assert.equal(signedPoints(-0.133), '−13.3 pts');
    assert.equal(signedPoints(-0.0004), '+0.0 pts', 'no negative zero');
    assert.equal(pointsInterval({ lo: -0.07, hi: 0.0233 }), '[−7.0, +2.3] pts');
    assert.equal(pValueText(0.014866), '0.015');
    assert.equal(pValueText(0.401), '0.40');
    assert.equal(pValueText(0.00004), '< 0.001');
    assert.equal(pValueText(1), '1');
    assert.equal(pValueText(Number.NaN), '–');
    assert.equal(pValueClause(0.2), 'p = 0.20');
    assert.equal(pValueClause(0), 'p < 0.001');
  });
});

describe('a paired difference under 20 questions is counted (walkthrough defect 5)', () => {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const d = { base: 0.5, tuned: 0.375, delta: -0.125, ci: { lo: -0.375, hi: 0 }, ciMethod: 'newcombe-score' as const, mcnemarP: 1, lost: 1, gained: 0, n: 8 };
  test('8 questions: counts and questions gained − lost, no points, no interval, no verdict', () => {
    assert.deepEqual(deltaText(d, pct), { counted: true, base: '4 of 8', tuned: '3 of 8', delta: '−1 question', interval: '—', verdict: 'counted (under 20)' });
    assert.equal(deltaText({ ...d, gained: 3, lost: 1 }, pct).delta, '+2 questions');
    assert.equal(deltaText({ ...d, gained: 1, lost: 1 }, pct).delta, '±0 questions');
  });
  test('from 20 questions: points with the interval', () => {
    const text = deltaText({ ...d, n: 20 }, pct);
    assert.equal(text.counted, false);
    assert.equal(text.delta, '−12.5 pts');
    assert.equal(text.interval, pointsInterval(d.ci));
  });
});

describe('only a decided difference is coloured (issue 40 point 10: bold red/green on inconclusive rows)', () => {
  const d = { base: 0.5, tuned: 0.4, delta: -0.1, ci: { lo: -0.3, hi: 0.1 }, ciMethod: 'newcombe-score' as const, mcnemarP: 0.4, lost: 4, gained: 2, n: 30 };
  test('inconclusive, equivalent, no decision or under 20 questions: plain', () => {
    assert.equal(deltaClass({ ...d, decision: { verdict: 'inconclusive', margin: 0.05, questionsNeeded: 400 } }), '');
    assert.equal(deltaClass({ ...d, decision: { verdict: 'equivalent', margin: 0.05, questionsNeeded: null } }), '');
    assert.equal(deltaClass(d), '');
    assert.equal(deltaClass({ ...d, n: 8, decision: { verdict: 'worse', margin: 0.05, questionsNeeded: null } }), '');
  });
  test('better green, worse red', () => {
    assert.equal(deltaClass({ ...d, decision: { verdict: 'worse', margin: 0.05, questionsNeeded: null } }), 'delta-down');
    assert.equal(deltaClass({ ...d, delta: 0.2, decision: { verdict: 'better', margin: 0.05, questionsNeeded: null } }), 'delta-up');
  });
});
