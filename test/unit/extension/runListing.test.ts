import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { listRuns, RUNS_FOLDER, splitRunFolderName } from '../../../src/extension/sidebar/runListing';

// out/test/unit/extension → test/fixtures/runs
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/runs');
const temp = mkdtempSync(path.join(os.tmpdir(), 'reach-audit-runs-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function workspaceWith(...runs: string[]): string {
  const ws = mkdtempSync(path.join(temp, 'ws-'));
  for (const run of runs) cpSync(path.join(FIXTURES, run), path.join(ws, RUNS_FOLDER, run), { recursive: true });
  return ws;
}

test('run folder names split into time and name; other names stay whole', () => {
  assert.deepEqual(splitRunFolderName('2026-12-01T09-30-00Z-demo-base'), { startedAt: '2026-12-01T09-30-00Z', name: 'demo-base' });
  assert.deepEqual(splitRunFolderName('20261201-093000-gsm8k'), { startedAt: '20261201-093000', name: 'gsm8k' });
  assert.deepEqual(splitRunFolderName('my-run'), { name: 'my-run' });
});

test('a workspace without .reach-audit/runs has no runs', async () => {
  assert.deepEqual(await listRuns(mkdtempSync(path.join(temp, 'empty-'))), []);
});

test('fixture runs: newest first, manifest name and paths, headline from summary.json', async () => {
  const ws = workspaceWith('2026-12-01T09-30-00Z-demo-base', '2026-12-01T10-15-00Z-demo-tuned');
  const runs = await listRuns(ws);
  assert.deepEqual(runs.map((r) => r.name), ['demo-tuned', 'demo-base']);
  const base = runs[1];
  assert.deepEqual(base.problems, []);
  assert.equal(base.startedAt, '2026-12-01T09:30:00.000Z');
  assert.equal(base.model, 'media/demo/base');
  assert.equal(base.dataset, 'media/demo/data/arith-test.jsonl');
  assert.equal(base.recordedQuestions, 8);
  assert.equal(base.headline?.n, 8);
  assert.equal(base.headline?.realized.successes, 4);
});

test('an unfinished run counts complete records only (the torn last line is not a question)', async () => {
  const ws = workspaceWith('2026-12-01T11-00-00Z-demo-base-rerun');
  const [run] = await listRuns(ws);
  // No summary.json: the numbers are those of the finished records, as the panel computes them.
  assert.equal(run.finished, false);
  assert.equal(run.headline?.n, 3);
  assert.equal(run.headline?.realized.successes, 2);
  assert.equal(run.recordedQuestions, 3);
  assert.deepEqual(run.problems, []);
});

test('broken run files are reported by file name, and the other runs still list', async () => {
  const ws = workspaceWith('2026-12-01T09-30-00Z-demo-base');
  const broken = path.join(ws, RUNS_FOLDER, '2026-12-02T08-00-00Z-broken');
  mkdirSync(broken, { recursive: true });
  writeFileSync(path.join(broken, 'summary.json'), '{"n": 3,');
  const runs = await listRuns(ws);
  assert.deepEqual(runs.map((r) => r.name), ['broken', 'demo-base']);
  assert.equal(runs[0].problems.length, 2);
  assert.match(runs[0].problems[0], /manifest\.json is missing/);
  assert.match(runs[0].problems[1], /^summary\.json: not valid JSON/);
});
