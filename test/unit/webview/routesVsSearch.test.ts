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
  assert.equal(tile.value, c.decision!.verdict);
  assert.match(tile.detail, /^margin ±5 pts/);
  if (c.decision!.verdict === 'inconclusive') assert.match(tile.detail, /≈ [\d,]+ questions to decide/);
  assert.match(tile.title ?? '', /exact McNemar p < 0\.05/);
  assert.ok(!view.notes.some((n) => /Saturated/.test(n)));
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
  const older = { ...c, decision: undefined, difference: { estimate: c.difference!.estimate, lo: c.difference!.lo, hi: c.difference!.hi } };
  const view = routesVsSearchView(older)!;
  assert.equal(view.tiles.find((t) => t.key === 'verdict'), undefined);
  assert.match(view.tiles.find((t) => t.key === 'difference')!.title ?? '', /bootstrap/);
});
