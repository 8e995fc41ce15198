import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alreadyUnreached, noRepairReason, type RepairOutcome } from '../../../src/extension/commands/repairScanOutcome';

const probe = (budget: number): RepairOutcome['probes'][string] => ({ budget, attempts: [], correct: [], cost: { generations: budget, tokens: 0, blockApplications: 0 } });
const unreached: RepairOutcome = { id: 'q7', realized: { correct: false }, reachable: { sample: false, routes: false }, probes: { sample: probe(8), routes: probe(8) } };

test('unreached under every planned probe at its budget, same model: known without running them', () => {
  assert.equal(alreadyUnreached(unreached, '/m/tuned', '/m/tuned/', ['sample:8', 'routes:4']), true);
});

test('not known when a probe is missing or had less budget, the model differs, or a probe reached it', () => {
  assert.equal(alreadyUnreached(unreached, '/m/tuned', '/m/tuned', ['sample:8', 'search:8']), false, 'search never ran');
  assert.equal(alreadyUnreached(unreached, '/m/tuned', '/m/tuned', ['sample:16']), false, 'a larger budget may reach it');
  assert.equal(alreadyUnreached(unreached, '/m/base', '/m/tuned', ['sample:8']), false, 'another model');
  assert.equal(alreadyUnreached({ ...unreached, reachable: { sample: true, routes: false } }, '/m/tuned', '/m/tuned', ['sample:8']), false);
  assert.equal(alreadyUnreached({ ...unreached, realized: { correct: true } }, '/m/tuned', '/m/tuned', ['sample:8']), false, 'realized: the scan measures damage');
});

test('why a finished question was not scanned: unreached, reachable outside the failure set; nothing when scanned', () => {
  assert.match(noRepairReason(unreached) ?? '', /^Question q7 was not scanned: no probe \(sample:8, routes:8\) reached its answer/);
  assert.match(noRepairReason({ ...unreached, reachable: { sample: true }, repair: { inFailureSet: false, realized: false } as RepairOutcome['repair'] }) ?? '', /reachable \(sample\) but not by the reference probes/);
  assert.equal(noRepairReason({ ...unreached, reachable: { sample: true }, repair: { inFailureSet: true, realized: false } as RepairOutcome['repair'] }), undefined);
});
