import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PROBE_BUDGET, parseProbeSpec, parseProbeSpecs, parseSelectors } from '../../../src/audit/probes/probeSpec';
import { InputError } from '../../../src/common/errors';

test('probe specs parse NAME:B and reject bad budgets with a message naming the argument', () => {
  assert.deepEqual(parseProbeSpec('routes:16'), { name: 'routes', budget: 16 });
  for (const [bad, why] of [
    ['routes:0', /positive integer, got '0'/],
    ['routes:abc', /positive integer, got 'abc'/],
    ['routes:1.5', /positive integer/],
    ['routes:', /positive integer/],
    ['routes', /missing budget/],
    ['beam:4', /NAME one of sample, routes, search/],
  ] as const) {
    assert.throws(() => parseProbeSpec(bad), (e: unknown) => e instanceof InputError && why.test((e as Error).message) && (e as Error).message.includes(bad));
  }
  assert.throws(() => parseProbeSpecs(['sample:4', 'sample:8']), /given twice/);
});

test('selectors parse a comma list and reject unknown names', () => {
  assert.deepEqual(parseSelectors('majority, confidence'), ['majority', 'confidence']);
  assert.throws(() => parseSelectors('majority,oracle'), /unknown selector 'oracle'/);
});

test('a probe budget is bounded, with the flag, the bound and why in the message (perturb:1000000 climbed past 2.9 GB)', () => {
  assert.deepEqual(parseProbeSpec(`perturb:${MAX_PROBE_BUDGET}`), { name: 'perturb', budget: MAX_PROBE_BUDGET });
  assert.throws(
    () => parseProbeSpec('perturb:1000000'),
    (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(
        e.message,
        "--probe perturb:1000000: a budget of 1,000,000 attempts a question is over the most allowed, 10,000 (every attempt is kept in the question's record line, which may not pass 256 MB); give a budget up to that",
      );
      return true;
    },
  );
});
