import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  drawQuestionRoutes,
  identityRoute,
  isIdentity,
  isValidRoute,
  neighbourRoutes,
  parseRoute,
  routeKey,
  routeLengthBounds,
} from '../../../src/audit/probes/routes';
import { seededRandom } from '../../../src/audit/stats';

test('length bounds are [round(2L/3), round(5L/4)]', () => {
  assert.deepEqual(routeLengthBounds(8), { min: 5, max: 10 });
  assert.deepEqual(routeLengthBounds(24), { min: 16, max: 30 });
});

test('the design example and the identity are valid routes', () => {
  assert.ok(isValidRoute([0, 1, 2, 2, 3, 5, 6, 7], 8));
  assert.ok(isValidRoute(identityRoute(8), 8));
  // A span repeat of 2..4 runs the span again right after it.
  assert.ok(isValidRoute([0, 1, 2, 3, 2, 3, 4, 5, 6, 7], 8));
  assert.ok(isValidRoute([0, 1, 2, 3, 4, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 12));
  // A contiguous skip of 3 blocks is the one span edit.
  assert.ok(isValidRoute([0, 1, 5, 6, 7], 8));
});

test('routes outside the space are rejected with a reason', () => {
  assert.equal(typeof parseRoute([0, 1, 1, 1, 2, 3, 4, 5, 6, 7], 8), 'string'); // a block three times
  assert.match(parseRoute([0, 1, 2, 3, 4, 5, 6, 8], 8) as string, /not in 0..7/);
  assert.ok(isValidRoute([0, 3, 4, 5, 6, 7], 8)); // skip 1,2: one span skip of 2
  assert.match(parseRoute([0, 6, 7], 8) as string, /outside|contiguous/);
  assert.match(parseRoute([0, 3, 4, 7], 8) as string, /outside|more than one/);
  // Two contiguous skips of 2 (two span edits).
  assert.match(parseRoute([0, 3, 4, 7, 8, 9, 10, 11], 12) as string, /more than one contiguous/);
  // A span skip and a span repeat together.
  assert.match(parseRoute([0, 3, 4, 5, 4, 5, 6, 7, 8, 9, 10, 11], 12) as string, /more than one contiguous/);
  // Five blocks skipped in a row.
  assert.match(parseRoute([0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], 16) as string, /5 contiguous/);
  // A repeated span of 5.
  assert.match(parseRoute([0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], 16) as string, /span of 5/);
  // Too long: 11 > round(5·8/4) = 10.
  assert.match(parseRoute([0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7], 8) as string, /outside/);
  // Out of order (not a span repeat ending at the last block run).
  assert.equal(typeof parseRoute([0, 2, 1, 3, 4, 5, 6, 7], 8), 'string');
});

test('neighbours are valid, distinct, one edit away, and exclude the route itself', () => {
  const L = 8;
  for (const route of [identityRoute(L), [0, 1, 2, 2, 3, 5, 6, 7], [0, 1, 2, 3, 2, 3, 4, 5, 6, 7]]) {
    const n = neighbourRoutes(route, L);
    assert.ok(n.length > 0);
    const keys = new Set(n.map(routeKey));
    assert.equal(keys.size, n.length);
    assert.ok(!keys.has(routeKey(route)));
    for (const r of n) {
      assert.ok(isValidRoute(r, L), `invalid neighbour ${r}`);
      assert.ok(Math.abs(r.length - route.length) <= 4 && r.length !== route.length);
    }
  }
  // Identity of 8 blocks: 8 skips + 8 repeats + span skips (7+6+5) + span repeats (7+6+5) — those within length bounds.
  const n = neighbourRoutes(identityRoute(8), 8);
  // 8 single skips + 8 single repeats + span skips of 2 (7) and 3 (6) + span repeats of 2 (7);
  // a span skip of 4 leaves 4 < 5 blocks, a span repeat of 3 gives 11 > 10.
  assert.equal(n.length, 8 + 8 + 7 + 6 + 7);
});

test('random routes are valid, never the identity, never repeated, and keyed by (seed, question, probe, attempt)', () => {
  const L = 12;
  const draw = (qid: string, count: number) => drawQuestionRoutes(L, count, (a) => seededRandom(7, qid, 'routes', a), 4);
  const routes = draw('q1', 40);
  assert.equal(routes.length, 40);
  assert.equal(new Set(routes.map(routeKey)).size, 40);
  for (const r of routes) {
    assert.ok(isValidRoute(r, L));
    assert.ok(!isIdentity(r, L));
  }
  assert.deepEqual(draw('q1', 40), routes);
  assert.deepEqual(draw('q1', 10), routes.slice(0, 10), 'attempt a never depends on how many come after it');
  assert.notDeepEqual(draw('q2', 10), routes.slice(0, 10));
});

test('a tiny model runs out of routes instead of looping', () => {
  const routes = drawQuestionRoutes(2, 50, (a) => seededRandom(1, 'q', 'routes', a), 4);
  assert.ok(routes.length < 50);
  for (const r of routes) assert.ok(isValidRoute(r, 2));
});
