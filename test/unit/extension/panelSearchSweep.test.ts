/**
 * The panel's routes-vs-search card shows the exploration sweep (--search-sweep): the extension
 * reads it from the run's records with the audit's own code (the numbers `reach-audit table`
 * prints), marking the search probe's own c from the manifest; a run without a sweep sends none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRunFolder } from '../../../src/extension/panel/runData';
import { searchSweepRows } from '../../../src/audit/results/searchSweepTable';
import type { QuestionRecord } from '../../../src/contract';

const DEMO_BASE = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'runs', '2026-12-01T09-30-00Z-demo-base');

test('a run folder whose records carry a sweep: the panel gets the table\'s numbers for it, the probe\'s own c marked', () => {
  assert.equal(loadRunFolder(DEMO_BASE).data.searchSweep, undefined, 'the demo run has no sweep');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ra-sweep-'));
  try {
    for (const f of ['manifest.json', 'records.jsonl']) fs.copyFileSync(path.join(DEMO_BASE, f), path.join(dir, f));
    const records = fs.readFileSync(path.join(dir, 'records.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as QuestionRecord);
    records.forEach((r, i) => {
      // The demo ran sample and routes: the search's attempts are the routes' here, enough to pair them.
      r.probes.search = r.probes.routes;
      r.reachable.search = r.reachable.routes;
      r.searchSweep = [0.2, 5.4].map((c, j) => ({ c, reached: (i + j) % 3 === 0, evaluated: 3, reused: 1, cost: { generations: 2, blockApplications: 16 } }));
    });
    fs.writeFileSync(path.join(dir, 'records.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const loaded = loadRunFolder(dir).data;
    const [row] = searchSweepRows([{ folder: dir, model: '', dataset: '', finished: true, records, searchC: loaded.manifest!.search!.c }]);
    const { folder: _f, model: _m, dataset: _d, finished: _x, searchReward: _r, searchLambda: _l, ...numbers } = row;
    assert.deepEqual(loaded.searchSweep, numbers);
    assert.deepEqual(loaded.searchSweep!.points.map((p) => [p.c, p.own]), [[0.2, false], [loaded.manifest!.search!.c, true], [5.4, false]].sort((a, b) => (a[0] as number) - (b[0] as number)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
