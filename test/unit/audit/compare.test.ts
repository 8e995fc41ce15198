import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRecords } from '../../../src/audit/results/compare';
import type { QuestionRecord } from '../../../src/contract';

function rec(id: string, realized: boolean, reachable: boolean): QuestionRecord {
  const cost = { generations: 0, tokens: 0, blockApplications: 0 };
  return {
    id,
    line: Number(id.slice(1)),
    gold: '1',
    question: id,
    realized: { output: '', answer: null, correct: realized, truncated: false, rule: 'none', logprob: null, tokens: 0, cost },
    probes: {},
    reachable: { routes: reachable },
    blind: {},
  };
}

test('transitions, McNemar counts and the newly-realized decomposition', () => {
  // base → tuned states
  const pairs: [boolean, boolean, boolean, boolean][] = [
    // base realized, base reachable, tuned realized, tuned reachable
    [false, true, true, false], // reachable → realized (already reachable)
    [false, true, true, true], // reachable → realized (already reachable)
    [false, false, true, false], // unreached → realized (newly reachable)
    [true, false, false, true], // realized → reachable (lost)
    [false, true, false, false], // reachable → unreached
    [false, false, false, false], // unreached → unreached
    [true, true, true, true], // realized → realized
  ];
  const base = pairs.map(([r, a], i) => rec(`q${i}`, r, a));
  const tuned = pairs.map(([, , r, a], i) => rec(`q${i}`, r, a));
  tuned.push(rec('q99', true, true));
  const c = compareRecords(base, tuned);
  assert.equal(c.n, 7);
  assert.deepEqual(c.unmatched, { baseOnly: [], tunedOnly: ['q99'] });
  assert.equal(c.realized.gained, 3);
  assert.equal(c.realized.lost, 1);
  assert.ok(Math.abs(c.realized.delta - 2 / 7) < 1e-12);
  assert.ok(c.realized.ci.lo <= c.realized.delta && c.realized.delta <= c.realized.ci.hi);
  // McNemar exact two-sided, b=1 c=3: 2·P(X ≤ 1 | n=4) = 2·5/16.
  assert.ok(Math.abs(c.realized.mcnemarP - 0.625) < 1e-12);
  assert.deepEqual(c.transitions.reachable.realized, ['q0', 'q1']);
  assert.deepEqual(c.transitions.unreached.realized, ['q2']);
  assert.deepEqual(c.transitions.realized.reachable, ['q3']);
  assert.deepEqual(c.transitions.reachable.unreached, ['q4']);
  assert.deepEqual(c.newlyRealized.alreadyReachable.ids, ['q0', 'q1']);
  assert.deepEqual(c.newlyRealized.newlyReachable.ids, ['q2']);
  assert.equal(c.newlyRealized.n, 3);
  // Ceiling = realized or reachable by any probe: base q0,q1,q3,q4,q6; tuned q0,q1,q2,q3,q6.
  assert.equal(c.reachableCeiling.base, 5 / 7);
  assert.equal(c.reachableCeiling.tuned, 5 / 7);
  assert.equal(c.reachableCeiling.lost, 1);
  assert.equal(c.reachableCeiling.gained, 1);
  // Realized with no probe reaching it: base q3; tuned q0, q2.
  assert.deepEqual(c.realizedNotReached, { base: 1, tuned: 2 });
  assert.equal(c.realized.ciMethod, 'newcombe-score');
  assert.equal(c.realized.decision?.verdict, 'inconclusive', '3 : 1 discordant over 7 questions decides nothing');
  assert.equal(c.realized.decision?.margin, 0.05);
  assert.equal(compareRecords(base, tuned, { margin: 0.9 }).reachableCeiling.decision?.verdict, 'equivalent');
  // Reproducible.
  assert.deepEqual(compareRecords(base, tuned), c);
});
