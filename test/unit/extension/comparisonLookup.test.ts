/** Which stored comparison a trained run is shown with when it is opened later. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { compareRuns } from '../../../src/audit/store/comparisonStore';
import { latestComparisonOf } from '../../../src/extension/panel/comparisonLookup';

// out/test/unit/extension → test/fixtures/runs (real audit output; README there).
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/runs');
const REAL = compareRuns(path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base'), path.join(FIXTURES, '2026-12-01T10-15-00Z-demo-tuned'), () => undefined);

function workspace(): { runs: string; comparisons: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ra-lookup-'));
  const runs = path.join(root, '.reach-audit', 'runs');
  const comparisons = path.join(root, '.reach-audit', 'comparisons');
  for (const run of ['base', 'tuned', 'other']) fs.mkdirSync(path.join(runs, run), { recursive: true });
  return { runs, comparisons };
}

/** A real comparison.json (the fixture runs compared), pointed at `base` and `tuned`; `createdAt` tells them apart. */
function writeComparison(comparisons: string, name: string, base: string, tuned: string, n: number): void {
  fs.mkdirSync(path.join(comparisons, name), { recursive: true });
  const stored = { ...REAL, createdAt: String(n), base: { ...REAL.base, folder: base }, tuned: { ...REAL.tuned, folder: tuned } };
  fs.writeFileSync(path.join(comparisons, name, 'comparison.json'), JSON.stringify(stored));
}

test('the newest comparison of the trained run whose base still exists', () => {
  const { runs, comparisons } = workspace();
  writeComparison(comparisons, '2026-12-01T10-00-00Z-a', path.join(runs, 'base'), path.join(runs, 'tuned'), 1);
  writeComparison(comparisons, '2026-12-01T11-00-00Z-b', path.join(runs, 'base'), path.join(runs, 'tuned'), 2);
  writeComparison(comparisons, '2026-12-01T12-00-00Z-c', path.join(runs, 'deleted-base'), path.join(runs, 'tuned'), 3);
  writeComparison(comparisons, '2026-12-01T13-00-00Z-d', path.join(runs, 'base'), path.join(runs, 'other'), 4);
  fs.mkdirSync(path.join(comparisons, '2026-12-01T14-00-00Z-broken'));
  fs.writeFileSync(path.join(comparisons, '2026-12-01T14-00-00Z-broken', 'comparison.json'), '{"kind": "reach-audit-comp');
  assert.equal(latestComparisonOf(path.join(runs, 'tuned'))?.createdAt, '2');
  assert.equal(latestComparisonOf(path.join(runs, 'tuned') + path.sep)?.createdAt, '2', 'a trailing separator is the same folder');
  assert.equal(latestComparisonOf(path.join(runs, 'other'))?.createdAt, '4');
  assert.equal(latestComparisonOf(path.join(runs, 'base')), undefined, 'a base run is shown on its own');
});

test('no comparisons folder: nothing', () => {
  const { runs } = workspace();
  assert.equal(latestComparisonOf(path.join(runs, 'tuned')), undefined);
});
