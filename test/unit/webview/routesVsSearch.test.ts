/**
 * The Charts tab's routes-vs-search view: the four-way verdict tile with its margin, and a
 * choice-format run that chance saturates shown as such instead of as a verdict.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareProbes } from '../../../src/audit/results/probeComparison';
import { chanceSummary } from '../../../src/audit/results/chanceLevel';
import { routesVsSearchView } from '../../../webview/src/charts/routesVsSearch';
import type { QuestionRecord } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

function records(n: number, attempts: number, options?: number): QuestionRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const r = i % 3 !== 0;
    const s = i % 4 !== 0;
    const probe = (ok: boolean) => ({
      budget: attempts,
      attempts: Array.from({ length: attempts }, (_, k) => deployed(ok && k === 0)),
      correct: Array.from({ length: attempts }, (_, k) => ok && k === 0),
      cost: { generations: attempts, tokens: attempts, blockApplications: attempts },
    });
    return testRecord(`q${i}`, i + 1, { ...(options ? { options } : {}), probes: { routes: probe(r), search: probe(s) }, reachable: { routes: r, search: s } });
  });
}

test('the verdict tile: the decision and its margin, with the questions that would decide it', () => {
  const recs = records(40, 4);
  const c = compareProbes(recs, 'routes', 'search')!;
  const view = routesVsSearchView(JSON.parse(JSON.stringify(c)))!;
  const tile = view.tiles.find((t) => t.key === 'verdict')!;
  assert.equal(tile.value, c.gainSet!.decision.verdict, 'the gain set decides');
  assert.match(tile.detail, /^margin ±5 pts/);
  if (c.decision!.verdict === 'inconclusive') assert.match(tile.detail, /≈ [\d,]+ questions to decide/);
  assert.match(tile.title ?? '', /exact McNemar p < 0\.05/);
  assert.ok(!view.notes.some((n) => /Saturated/.test(n)));
});

test('the card shows the gain set\'s verdict, with the all-question difference and verdict beside it', () => {
  // 300 questions: both probes reach the 200 realized; on the 100 others routes reach 3, search 10.
  const probe = (ok: boolean) => ({ budget: 1, attempts: [deployed(ok)], correct: [ok], cost: { generations: 1, tokens: 1, blockApplications: 1 } });
  const recs = Array.from({ length: 300 }, (_, i) => {
    const [realized, r, s] = i < 200 ? [true, true, true] : i < 203 ? [false, true, false] : i < 213 ? [false, false, true] : [false, false, false];
    return testRecord(`q${i}`, i + 1, { realized: deployed(realized), probes: { routes: probe(r), search: probe(s) }, reachable: { routes: r, search: s } });
  });
  const view = routesVsSearchView(JSON.parse(JSON.stringify(compareProbes(recs, 'routes', 'search'))))!;
  const tile = (key: string) => view.tiles.find((t) => t.key === key)!;
  assert.equal(tile('gain').label, 'Δ reachable on the gain set (routes − search)');
  assert.equal(tile('gain').value, '−7.0 pts');
  assert.match(tile('gain').detail, /n=100$/);
  assert.equal(tile('verdict').label, 'Verdict on the gain set (routes vs search)');
  assert.equal(tile('verdict').value, 'inconclusive');
  assert.equal(tile('allVerdict').value, 'equivalent', 'over all 300 the diluted difference reads equivalent: shown beside, not deciding');
  assert.equal(tile('difference').label, 'Δ reachable, all questions (routes − search)');
  // Both probes spend one block application per attempt here: matched compute is matched generations.
  assert.equal(tile('matchedCompute').value, '−7.0 pts');
  assert.match(tile('matchedCompute').detail, /n=100 · inconclusive$/);
});

test('a 4-option run with 16 attempts per probe is saturated by chance: no verdict, a note saying why', () => {
  const recs = records(40, 16, 4);
  const c = compareProbes(recs, 'routes', 'search')!;
  const view = routesVsSearchView(c, chanceSummary(recs, ['routes', 'search']))!;
  const tile = view.tiles.find((t) => t.key === 'verdict')!;
  assert.equal(tile.value, 'saturated');
  assert.ok(view.notes.some((n) => /^Saturated by chance — routes: a uniform guesser reaches 99\.0%/.test(n)), view.notes.join('\n'));
});

test('an older summary without a decision shows no verdict tile rather than a made-up one', () => {
  const c = compareProbes(records(40, 4), 'routes', 'search')!;
  const older = { ...c, decision: undefined, gainSet: undefined, difference: { estimate: c.difference!.estimate, lo: c.difference!.lo, hi: c.difference!.hi } };
  const view = routesVsSearchView(older)!;
  assert.equal(view.tiles.find((t) => t.key === 'verdict'), undefined);
  assert.match(view.tiles.find((t) => t.key === 'difference')!.title ?? '', /bootstrap/);
});
