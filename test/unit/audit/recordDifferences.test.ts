/**
 * `reach-audit verify`'s comparison: equal bytes are no difference; otherwise each changed field is
 * named by its path and kind (outputs, grades, token counts, log-probabilities), numbers with their
 * absolute difference, and the tally per kind gives the largest; the sample of questions is seeded.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeTally, fieldKind, recordDifference, sampleIds, tallyByKind } from '../../../src/audit/store/recordDifferences';
import { seededRandom } from '../../../src/audit/stats';

const record = {
  id: 'q1',
  line: 1,
  gold: '8',
  realized: { output: '5 + 3 = 8\n#### 8', answer: '8', correct: true, truncated: false, rule: 'gsm8k-strict', logprob: -0.0832, tokens: 12, cost: { generations: 1, tokens: 12, blockApplications: 200 } },
  probes: { sample: { budget: 2, attempts: [{ output: 'a', answer: null, correct: false, logprob: -1.5, tokens: 3, seed: 7 }, { output: 'b', answer: '8', correct: true, logprob: -0.25, tokens: 4, seed: 9 }], correct: [false, true] } },
  reachable: { sample: true },
};
const line = (r: unknown) => JSON.stringify(r);
const edited = (edit: (r: typeof record) => void) => {
  const copy = structuredClone(record);
  edit(copy);
  return line(copy);
};

test('equal bytes are no difference', () => {
  assert.equal(recordDifference('q1', line(record), line(record)), null);
});

test('the same values in other bytes are said as such, with no field named', () => {
  const { id, ...rest } = record;
  const d = recordDifference('q1', line(record), line({ ...rest, id }));
  assert.deepEqual(d, { id: 'q1', bytesOnly: true, fields: [] });
});

test('an output edited by hand is named by its path and kind, with both values', () => {
  const d = recordDifference('q1', line(record), edited((r) => (r.probes.sample.attempts[1].output = 'c')));
  assert.ok(d);
  assert.equal(d.bytesOnly, false);
  assert.deepEqual(d.fields, [{ path: 'probes.sample.attempts[1].output', kind: 'output', run: '"b"', again: '"c"' }]);
});

test('log-probabilities differ by a number: the largest absolute difference is kept per kind', () => {
  const a = recordDifference('q1', line(record), edited((r) => ((r.realized.logprob = -0.0833), (r.probes.sample.attempts[0].logprob = -1.4))));
  const b = recordDifference('q2', line(record), edited((r) => (r.probes.sample.attempts[1].logprob = -0.2501)));
  assert.ok(a && b);
  assert.ok(a.fields.every((f) => f.kind === 'logprob'));
  const tally = tallyByKind([a, b]);
  assert.deepEqual(Object.keys(tally), ['logprob']);
  assert.equal(tally.logprob?.fields, 3);
  assert.equal(tally.logprob?.records, 2);
  assert.ok(Math.abs((tally.logprob?.maxAbsDiff ?? 0) - 0.1) < 1e-12);
  assert.match(describeTally(tally)[0], /^log-probabilities: 3 fields in 2 records, largest difference 0\.100/);
});

test('grades, token counts and missing fields are told apart', () => {
  const d = recordDifference(
    'q1',
    line(record),
    edited((r) => {
      r.reachable.sample = false;
      r.realized.tokens = 13;
      r.realized.cost.blockApplications = 210;
      delete (r.realized as Partial<typeof r.realized>).rule;
    }),
  );
  assert.ok(d);
  const byPath = new Map(d.fields.map((f) => [f.path, f]));
  assert.equal(byPath.get('reachable.sample')?.kind, 'grade');
  assert.equal(byPath.get('realized.tokens')?.kind, 'tokens');
  assert.equal(byPath.get('realized.tokens')?.absDiff, 1);
  assert.equal(byPath.get('realized.cost.blockApplications')?.kind, 'tokens');
  assert.deepEqual(byPath.get('realized.rule'), { path: 'realized.rule', kind: 'grade', run: '"gsm8k-strict"' });
});

test('a missing attempt is one field; a route of another length is one field', () => {
  const fewer = recordDifference('q1', line(record), edited((r) => r.probes.sample.attempts.pop()));
  assert.ok(fewer);
  assert.ok(fewer.fields.some((f) => f.path === 'probes.sample.attempts[1]' && f.run !== undefined && f.again === undefined));
  const route = recordDifference('q1', line({ route: [0, 1, 2] }), line({ route: [0, 1, 2, 3] }));
  assert.deepEqual(route?.fields, [{ path: 'route', kind: 'tokens', run: '[0,1,2]', again: '[0,1,2,3]' }]);
});

test('a long value is cut for display', () => {
  const d = recordDifference('q1', line({ output: 'x'.repeat(500) }), line({ output: 'y'.repeat(500) }));
  assert.ok(d);
  assert.match(d.fields[0].run ?? '', /… \(502 characters\)$/);
});

test('fieldKind reads the innermost key that says what the field is', () => {
  assert.equal(fieldKind(['probes', 'search', 'attempts', 'goldLogprob']), 'logprob');
  assert.equal(fieldKind(['blind', 'sample', 'majority', 'attempt']), 'grade');
  assert.equal(fieldKind(['gold']), 'other');
});

test('the sample of questions is seeded, in the run order, and the whole run when asked for more', () => {
  const ids = Array.from({ length: 50 }, (_, i) => `q${i}`);
  const a = sampleIds(ids, 5, seededRandom(1, 'verify'));
  assert.deepEqual(sampleIds(ids, 5, seededRandom(1, 'verify')), a);
  assert.notDeepEqual(sampleIds(ids, 5, seededRandom(2, 'verify')), a);
  assert.equal(new Set(a).size, 5);
  assert.deepEqual(a, [...a].sort((x, y) => ids.indexOf(x) - ids.indexOf(y)));
  assert.deepEqual(sampleIds(ids.slice(0, 3), 5, seededRandom(1, 'verify')), ['q0', 'q1', 'q2']);
});

test('every question is equally likely to be drawn (seeded simulation)', () => {
  const ids = Array.from({ length: 10 }, (_, i) => `q${i}`);
  const counts = new Map<string, number>();
  const trials = 4000;
  for (let t = 0; t < trials; t++) for (const id of sampleIds(ids, 3, seededRandom(t, 'verify'))) counts.set(id, (counts.get(id) ?? 0) + 1);
  // Each id is drawn with p = 0.3: 1200 expected, sd ≈ 29; 5 sd either side.
  for (const id of ids) assert.ok(Math.abs((counts.get(id) ?? 0) - 1200) < 145, `${id}: ${counts.get(id)}`);
});
