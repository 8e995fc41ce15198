/**
 * Budgets that become generations per question are bounded before a run starts, naming the flag:
 * --depth-probe 1000000 was accepted (and left out of the plan), as was --global-routes of any size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readPreSettings } from '../../../src/service/auditInputs';
import type { AuditOptions } from '../../../src/service/auditOptions';
import { InputError } from '../../../src/common/errors';

test('--depth-probe and --global-routes over the most allowed are refused, naming the flag and the bound', () => {
  assert.equal(readPreSettings({ depthProbe: 10_000 }).depthProbe, 10_000);
  const cases: [AuditOptions, string][] = [
    [{ depthProbe: 1_000_000 }, '--depth-probe 1000000'],
    [{ globalRoutes: 20_000, probes: ['routes:4'] }, '--global-routes 20000'],
  ];
  for (const [options, flag] of cases) {
    assert.throws(
      () => readPreSettings(options),
      (e: unknown) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, new RegExp(`^${flag}: a budget of [\\d,]+ attempts a question is over the most allowed, 10,000 .*give a budget up to that$`));
        return true;
      },
    );
  }
});
