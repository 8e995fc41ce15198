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

test('budgets whose attempts at --max-new-tokens would overflow the record line are refused, naming the flags, the estimate and the bound', () => {
  // 10,000 attempts a probe pass the per-probe cap; at 256 new tokens they fit a record line, at 4,096 two such probes and their pool do not.
  assert.equal(readPreSettings({ probes: ['sample:10000'], maxNewTokens: 256 }).probes[0].budget, 10_000);
  assert.throws(
    () => readPreSettings({ probes: ['sample:10000', 'routes:10000'], maxNewTokens: 4096 }),
    (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /^--probe sample:10000, --probe routes:10000, global-route pool 10000: 30,000 attempts a question of up to 4,096 new tokens \(--max-new-tokens\) make a record line of about 504 MB/);
      assert.match(e.message, /over the 256 MiB every command reads a record line with .* At --max-new-tokens 4,096 a question may take at most 15,993 attempts: lower the budgets or --max-new-tokens$/);
      return true;
    },
  );
  // The depth probe counts once a prefix.
  assert.throws(() => readPreSettings({ probes: ['sample:4'], depthProbe: 5_000, maxNewTokens: 4096 }), /--depth-probe 5000 \(× 5 prefixes\): 25,004 attempts/);
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
