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

test('--foreclosure-window: with --depth-probe only, bounded like a probe budget, its test recorded with the defaults; its test flags alone refused', () => {
  assert.deepEqual(readPreSettings({ depthProbe: 4, foreclosureWindow: 48 }).foreclosureWindow, { samples: 48, threshold: 0.1, error: 0.05, look: 4 });
  assert.deepEqual(readPreSettings({ depthProbe: 4, foreclosureWindow: 32, foreclosureThreshold: 0.2, foreclosureError: 0.01 }).foreclosureWindow, { samples: 32, threshold: 0.2, error: 0.01, look: 4 });
  assert.equal(readPreSettings({ depthProbe: 4 }).foreclosureWindow, undefined);
  const refused: [AuditOptions, RegExp][] = [
    [{ foreclosureWindow: 8 }, /^--foreclosure-window 8 narrows the depth probe's bracket; add --depth-probe B/],
    [{ depthProbe: 4, foreclosureWindow: 20_000 }, /^--foreclosure-window 20000: a budget of [\d,]+ attempts a question is over the most allowed, 10,000/],
    [{ depthProbe: 4, foreclosureWindow: 8, foreclosureError: 0.3 }, /^--foreclosure-error 0.3: expected at most 0.25/],
    [{ depthProbe: 4, foreclosureThreshold: 0.2 }, /^--foreclosure-threshold sets the foreclosure window's test, which runs only with --foreclosure-window N/],
  ];
  for (const [options, message] of refused) {
    assert.throws(() => readPreSettings(options), (e: unknown) => e instanceof InputError && message.test(e.message));
  }
});
