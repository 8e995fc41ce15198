/**
 * Runs written before the ceiling included realized questions are read with today's definition:
 * their summary.json's reachableAny (any probe only) is recomputed from their records.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readSummary, writeJson } from '../../../src/audit/store/runStore';
import { runRates } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

test('an older summary.json gets the ceiling realized ∪ reached, and the count of realized-only questions', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ra-old-ceiling-'));
  const records = [
    testRecord('a', 1, { realized: deployed(true), reachable: { sample: false } }), // realized, no probe: inside the ceiling now
    testRecord('b', 2, { realized: deployed(false), reachable: { sample: true } }),
    testRecord('c', 3, { realized: deployed(false), reachable: { sample: false } }),
  ];
  fs.writeFileSync(path.join(folder, 'records.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const rates = runRates(records);
  assert.equal(rates.reachableAny.successes, 2);
  assert.equal(rates.realizedNotReached, 1);
  // As an older audit wrote it: the ceiling over probes only, no realizedNotReached.
  const older = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../test/fixtures/runs/2026-12-01T09-30-00Z-demo-base/summary.json'), 'utf8'));
  delete older.realizedNotReached;
  older.reachableAny = { n: 3, successes: 1, rate: 1 / 3, ci: { lo: 0.06, hi: 0.79 } };
  writeJson(folder, 'summary.json', older);
  const read = readSummary(folder)!;
  assert.deepEqual(read.reachableAny, rates.reachableAny);
  assert.equal(read.realizedNotReached, 1);
  fs.rmSync(folder, { recursive: true, force: true });
});
