/**
 * Every printed interval and test under a known truth (calibrationGroups.ts): a row outside its band
 * fails. Seeded, so a failure reproduces; docs/design/statistics.md "Calibration" has the table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALIBRATION_GROUPS } from './calibrationGroups';

for (const group of CALIBRATION_GROUPS) {
  test(`calibration: ${group.name}`, () => {
    const rows = group.rows();
    assert.ok(rows.length > 0);
    const outside = rows.filter((r) => !r.pass);
    assert.deepEqual(outside.map((r) => `${r.method} · ${r.truth} · n ${r.n}: ${(100 * r.measured).toFixed(1)}% (band ${r.band})`), []);
  });
}
