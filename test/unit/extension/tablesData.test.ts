/**
 * What Build Tables and Show Training Trajectory send to the Tables page, on the fixture runs:
 * the tables and the trajectory agree with counts taken straight from records.jsonl, a selected
 * base and tuned run bring their stored comparison, a trajectory's runs find their trajectory.json,
 * and broken or mismatched inputs are refused with the file or folder named.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildTablesMessage, buildTrajectoryMessage, comparisonsOf, trajectoryFileOf, trajectoryFromFile } from '../../../src/extension/tables/tablesData';
import { TableSourceError } from '../../../src/audit/store/tableSources';
import { compareRuns, writeComparison } from '../../../src/audit/store/comparisonStore';
import { validateStoredTrajectory } from '../../../src/audit/store/runFileValidation';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/runs');
const BASE = '2026-12-01T09-30-00Z-demo-base';
const TUNED = '2026-12-01T10-15-00Z-demo-tuned';

interface Rec { id: string; realized: { correct: boolean }; reachable: Record<string, boolean> }
const records = (folder: string): Rec[] => fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Rec);
const state = (r: Rec) => (r.realized.correct ? 'realized' : Object.values(r.reachable).some(Boolean) ? 'reachable' : 'unreached');

function workspace(): { base: string; tuned: string; comparison: string; root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ra-tables-'));
  const runs = path.join(root, '.reach-audit', 'runs');
  fs.mkdirSync(runs, { recursive: true });
  for (const name of [BASE, TUNED]) fs.cpSync(path.join(FIXTURES, name), path.join(runs, name), { recursive: true });
  const base = path.join(runs, BASE);
  const tuned = path.join(runs, TUNED);
  const comparison = path.join(root, '.reach-audit', 'comparisons', '2026-12-01T12-00-00Z-demo');
  writeComparison(comparison, compareRuns(base, tuned, () => undefined));
  return { base, tuned, comparison, root };
}

test('Build Tables on two runs and their comparison: the three tables and Δpass@k along k, with counts as in the records', () => {
  const w = workspace();
  const m = buildTablesMessage([w.base, w.tuned, w.comparison]);
  assert.deepEqual(m.tables.map((t) => t.id), ['routes-vs-search', 'repair', 'training', 'pass-at-k-delta']);
  // Ceilings along k: a row per k, each with the paired n.
  assert.ok(m.tables[3].rows.length > 0 && m.tables[3].rows.every((r) => r[2] === String(records(w.base).length)), JSON.stringify(m.tables[3]));
  // No search probe in the fixtures: both runs are listed apart, none counted.
  const rvs = m.tables[0];
  assert.equal(rvs.rows.length, 0);
  assert.equal(rvs.apart.length, 2);
  assert.match(rvs.notes[0], /in 0 of 0 settings/);
  assert.match(rvs.notes[1], /^Margin: ±5 pts\. Rule: /);
  // Repair: the base run's failure set is every reachable-but-not-realized question.
  const failures = records(w.base).filter((r) => state(r) === 'reachable').length;
  const repairRow = m.tables[1].rows.find((r) => r[0] === 'base');
  assert.ok(repairRow, JSON.stringify(m.tables[1]));
  assert.equal(repairRow[2], String(failures));
  // Training: realized base → tuned as counted from the records.
  const pct = (rs: Rec[]) => `${((100 * rs.filter((r) => r.realized.correct).length) / rs.length).toFixed(1)}%`;
  const row = m.tables[2].rows[0];
  assert.equal(row[2], String(records(w.base).length));
  assert.equal(row[3], `${pct(records(w.base))} → ${pct(records(w.tuned))}`);
  assert.match(m.tables[2].notes[0], /in [01] of 1 comparisons/);
  assert.deepEqual(m.sources, [w.base, w.tuned, w.comparison]);
});

test('a selected base and tuned run bring their stored comparison; one of them alone does not', () => {
  const w = workspace();
  assert.deepEqual(comparisonsOf([w.base, w.tuned]), [w.comparison]);
  assert.deepEqual(comparisonsOf([w.tuned]), []);
  fs.mkdirSync(path.join(path.dirname(w.comparison), 'broken'));
  fs.writeFileSync(path.join(path.dirname(w.comparison), 'broken', 'comparison.json'), '{"kind": "reach-');
  assert.deepEqual(comparisonsOf([w.base, w.tuned]), [w.comparison], 'a broken comparison file is skipped');
});

test('trajectory: per-checkpoint rates and the questions that moved, from the records', () => {
  const w = workspace();
  const m = buildTrajectoryMessage([{ label: 'step-0', folder: w.base }, { label: 'step-1', folder: w.tuned }], 'test');
  const [a, b] = [records(w.base), records(w.tuned)];
  assert.deepEqual(m.trajectory.points.map((p) => p.realized.successes), [a, b].map((rs) => rs.filter((r) => r.realized.correct).length));
  assert.deepEqual(m.trajectory.points.map((p) => p.ceiling.successes), [a, b].map((rs) => rs.filter((r) => state(r) !== 'unreached').length));
  const before = new Map(a.map((r) => [r.id, state(r)]));
  const want: Record<string, string[]> = {};
  for (const r of b) (want[`${before.get(r.id)}->${state(r)}`] ??= []).push(r.id);
  const got = Object.fromEntries(Object.entries(m.trajectory.flows[0].ids).filter(([, ids]) => ids.length > 0));
  assert.deepEqual(got, want);
  assert.deepEqual(m.tables.map((t) => t.id), ['trajectory', 'trajectory-flows']);
  assert.equal(m.tables[0].rows.length, 2);
});

test('a trajectory.json is found from its runs and recomputed from their records; bad files are named', () => {
  const w = workspace();
  const t = path.join(w.root, '.reach-audit', 'trajectories', 'demo');
  fs.mkdirSync(t, { recursive: true });
  fs.cpSync(w.base, path.join(t, '0-base'), { recursive: true });
  fs.cpSync(w.tuned, path.join(t, '1-tuned'), { recursive: true });
  const file = path.join(t, 'trajectory.json');
  // Stale numbers in the file are not shown: only labels and folders are read.
  fs.writeFileSync(file, JSON.stringify({ kind: 'reach-audit-trajectory', points: [{ label: 'base', folder: '0-base', realized: { rate: 0.99 } }, { label: 'tuned', folder: path.join(t, '1-tuned') }] }));
  assert.equal(trajectoryFileOf([path.join(t, '0-base'), path.join(t, '1-tuned')]), file);
  assert.equal(trajectoryFileOf([path.join(t, '0-base')]), undefined);
  const m = trajectoryFromFile(file);
  assert.equal(m.trajectory.points[0].realized.successes, records(w.base).filter((r) => r.realized.correct).length);
  // A file written before pass@k carried its interval and n is read, and they come back recomputed.
  const older = { kind: 'reach-audit-trajectory', createdAt: '2026-12-01T12:00:00Z', ...m.trajectory, points: m.trajectory.points.map(({ passAt1Ci: _a, passAtKCi: _b, passAtKN: _n, ...p }) => p) };
  assert.throws(() => validateStoredTrajectory(older, 'older.json'), /older\.json: field points\[0\]\.passAt1Ci: missing/, 'not today\'s format');
  fs.writeFileSync(file, JSON.stringify(older));
  const reread = trajectoryFromFile(file).trajectory;
  assert.deepEqual(reread.points.map((p) => [p.passAt1Ci, p.passAtKCi, p.passAtKN]), m.trajectory.points.map((p) => [p.passAt1Ci, p.passAtKCi, p.passAtKN]));
  // Under 20 questions pass@1 has no bootstrap interval; pass@B (0/1 per question) its Wilson interval.
  assert.ok(reread.points.every((p) => p.passAt1Ci === null && p.passAtKCi !== null && p.passAtKN === records(p.folder).length));
  validateStoredTrajectory({ kind: 'reach-audit-trajectory', createdAt: '2026-12-01T12:00:00Z', ...reread }, 'new.json');

  fs.writeFileSync(file, '{"kind": "reach-audit-traj');
  assert.throws(() => trajectoryFromFile(file), (e: Error) => e instanceof TableSourceError && e.message.includes(file));
  fs.writeFileSync(file, JSON.stringify({ kind: 'something-else', points: [] }));
  assert.throws(() => trajectoryFromFile(file), /not a trajectory/);
  fs.writeFileSync(file, JSON.stringify({ kind: 'reach-audit-trajectory', points: [{ label: 1 }] }));
  assert.throws(() => trajectoryFromFile(file), /points\[0\]: expected a label and a folder/);
  // A watched training run's trajectory after its first checkpoint: one point, no step yet.
  fs.writeFileSync(file, JSON.stringify({ kind: 'reach-audit-trajectory', points: [{ label: 'checkpoint-100', folder: '0-base' }] }));
  const one = trajectoryFromFile(file).trajectory;
  assert.deepEqual([one.points.map((p) => p.label), one.flows], [['checkpoint-100'], []]);
  fs.writeFileSync(file, JSON.stringify({ kind: 'reach-audit-trajectory', points: [] }));
  assert.throws(() => trajectoryFromFile(file), /a trajectory needs at least one checkpoint/);
});

test('checkpoints with different settings, or a missing folder, are refused with the difference named', () => {
  const w = workspace();
  const manifest = JSON.parse(fs.readFileSync(path.join(w.tuned, 'manifest.json'), 'utf8'));
  manifest.seeds.run += 1;
  fs.writeFileSync(path.join(w.tuned, 'manifest.json'), JSON.stringify(manifest));
  assert.throws(() => buildTrajectoryMessage([{ label: 'a', folder: w.base }, { label: 'b', folder: w.tuned }], 'test'), (e: Error) => e instanceof TableSourceError && e.message.includes(w.tuned) && /seed/i.test(e.message));
  assert.throws(() => buildTablesMessage([path.join(w.root, 'nope')]), /nope: no such run or comparison folder/);
  assert.throws(() => buildTablesMessage([w.comparison]), /its runs do not match/);
});
