/**
 * Every printed interval and test under a known truth (calibrationGroups.ts): a row outside its band
 * fails. Seeded, so a failure reproduces; docs/design/statistics.md "Calibration" has the table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALIBRATION_GROUPS } from './calibrationGroups';
import { STATISTIC_METHODS } from '../../src/contract/statisticMethods';

for (const group of CALIBRATION_GROUPS) {
  test(`calibration: ${group.name}`, () => {
    const rows = group.rows();
    assert.ok(rows.length > 0);
    const outside = rows.filter((r) => !r.pass);
    assert.deepEqual(outside.map((r) => `${r.method} · ${r.truth} · n ${r.n}: ${(100 * r.measured).toFixed(1)}% (band ${r.band})`), []);
    // Each method the group declares (the name the surfaces print) has rows of its own.
    for (const key of group.methods) assert.ok(rows.some((r) => r.method.startsWith(STATISTIC_METHODS[key].calibration)), `${group.name}: no row for ${key} ("${STATISTIC_METHODS[key].calibration}…")`);
  });
}
