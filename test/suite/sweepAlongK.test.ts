/**
 * Issue 38's views in the real VS Code: the panel opened on a checkpoint comparison whose runs
 * recorded the exploration sweep (--search-sweep) shows each checkpoint's sweep in the Comparison
 * section and the shown run's in the routes-vs-search card of the Charts tab, the Δpass@k block
 * along k, and summary.json's pass@k intervals; Show Training Trajectory on the same two runs shows
 * the second checkpoint's Δpass@k against the first. The runs are synthetic (400 questions, written
 * into the workspace outside .reach-audit/runs, so the other files see the workspace's runs unchanged).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { TablesResult } from '../../src/extension/tables/tablesCommands';
import type { RunData } from '../../src/contract';
import { searchSweepOf } from '../../src/audit/results/searchSweepTable';
import { makeSyntheticRun } from '../webview/syntheticRun';
import { makeSyntheticComparison } from '../webview/syntheticComparison';
import { pageProbesAvailable, panelClick, panelEval } from './pageProbe';
import { freshSuiteFolder, activatedExtension } from './suiteFixtures';

/** Writes a synthetic run as a run folder (manifest, records, summary), its records carrying a sweep at c = 0.2, 0.6, 5.4. */
function writeRun(folder: string, run: RunData, reach: (i: number) => boolean[]): void {
  run.records.forEach((r, i) => {
    r.searchSweep = [0.2, 0.6, 5.4].map((c, j) => ({ c, reached: reach(i)[j], evaluated: 4, reused: 1, cost: { generations: 3, blockApplications: 24 } }));
  });
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify(run.manifest, null, 2));
  fs.writeFileSync(path.join(folder, 'records.jsonl'), run.records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.writeFileSync(path.join(folder, 'summary.json'), JSON.stringify(run.summary, null, 2));
}

suite('Routes vs search over the sweep, and pass@k along k, in the panel and the Trajectory tab', function () {
  this.timeout(180_000);
  let api: ReachAuditApi;
  let baseFolder: string;
  let tunedFolder: string;
  let base: RunData;
  let tuned: RunData;

  suiteSetup(async () => {
    const root = freshSuiteFolder('sweep-suite', { create: false });
    ({ api } = await activatedExtension());
    base = makeSyntheticRun({ n: 400, budget: 4, seed: 5, runId: 'sweep-base', label: 'base' });
    tuned = makeSyntheticRun({ n: 400, budget: 4, seed: 5, runId: 'sweep-tuned', label: 'tuned', realizedBias: 0.15, reachBias: -0.13 });
    baseFolder = path.join(root, 'sweep-base');
    tunedFolder = path.join(root, 'sweep-tuned');
    writeRun(baseFolder, base, (i) => [i % 2 === 0, i % 3 === 0, i % 5 === 0]);
    writeRun(tunedFolder, tuned, (i) => [i % 3 === 0, i % 4 === 0, i % 6 === 0]);
  });

  // The trajectory's Tables tab left open would hide the panel from the next file's Try It.
  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('the comparison: each checkpoint\'s sweep, the Δpass@k block, and the Charts tab\'s sweep and pass@k intervals', async function () {
    api.panel.show(tunedFolder, { baseFolder, compare: makeSyntheticComparison(base, tuned) });
    await api.panel.whenReady();
    const load = [...api.panel.sent].reverse().find((m) => m.type === 'loadRun');
    assert.ok(load && load.type === 'loadRun');
    // The host sends each run's sweep as `reach-audit table` computes it, the probe's own c (1.8) marked.
    assert.deepEqual(load.run.searchSweep, searchSweepOf(tuned.records, 1.8));
    assert.deepEqual(load.baseRun?.searchSweep, searchSweepOf(base.records, 1.8));
    assert.deepEqual(load.run.searchSweep!.points.map((p) => [p.c, p.own]), [[0.2, false], [0.6, false], [1.8, true], [5.4, false]]);
    if (!pageProbesAvailable) return;

    const section = await panelEval<{ sweep: string[][]; alongK: number; crossings: number }>(`() => {
      const sweep = Array.from(document.querySelectorAll('.compare-sweep tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent));
      const alongK = document.querySelectorAll('.compare-pass-at-k-delta tbody tr').length;
      if (sweep.length === 0 || alongK === 0) return null;
      return { sweep, alongK, crossings: document.querySelectorAll('.compare-crossings li').length };
    }`);
    assert.equal(section.sweep.length, 8, 'four c per checkpoint');
    assert.deepEqual(section.sweep.map((r) => [r[0], r[1]]), ['base', 'tuned'].flatMap((c) => [[c, '0.2'], [c, '0.6'], [c, "1.8 (the probe's)"], [c, '5.4']]));
    for (const row of section.sweep) {
      assert.match(row[3], /^\[\d+\.\d–\d+\.\d\]$/, 'reach with its Wilson interval');
      assert.match(row[5], /^\[[−+]\d+\.\d, [−+]\d+\.\d\] pts$/, 'routes − search with its interval');
      assert.equal(row[8], '400');
    }
    assert.equal(section.alongK, 4, 'Δpass@k at k = 1..4');

    await panelClick('Charts');
    const charts = await panelEval<{ sweep: number; pass: string[][] }>(`() => {
      const sweep = document.querySelectorAll('.rvs-sweep tbody tr').length;
      const pass = Array.from(document.querySelectorAll('.card tr[data-k]')).map((r) => [r.dataset.probe, r.dataset.k, r.children[3].textContent, r.children[0].textContent]);
      return sweep > 0 && pass.length > 0 ? { sweep, pass } : null;
    }`);
    assert.equal(charts.sweep, 4);
    const runs: Record<string, RunData> = { tuned, base };
    for (const [probe, k, shown, label] of charts.pass) {
      const run = runs[/\(base\)$/.test(label) ? 'base' : 'tuned'];
      const ci = run.summary!.passAtKCi[probe][k];
      assert.equal(shown, `[${(100 * ci.lo).toFixed(1)}–${(100 * ci.hi).toFixed(1)}]`, `${label} pass@${k}: summary.json's interval`);
    }
    await panelClick('Questions');
  });

  test('Show Training Trajectory: the second checkpoint\'s Δpass@k against the first, drawn with its table', async function () {
    const result = await vscode.commands.executeCommand<TablesResult>('reachAudit.showTrajectory', { runs: [baseFolder, tunedFolder], labels: ['step-0', 'step-1'] });
    assert.equal(result.error, undefined);
    assert.ok(result.message?.type === 'showTrajectory');
    assert.deepEqual(result.message.trajectory.passAtKDeltas?.map((d) => [d.label, d.base, d.curves[0].n]), [['step-1', 'step-0', 400]]);
    await api.tables.whenReady();
    if (!pageProbesAvailable) return;
    const shown = await panelEval<{ title: string; rows: number; drawn: boolean }>(`() => {
      const s = document.querySelector('.tj-delta[data-checkpoint="step-1"]');
      const canvas = s && s.querySelector('canvas');
      if (!canvas || canvas.width === 0) return null;
      return { title: s.querySelector('h4').textContent, rows: s.querySelectorAll('tbody tr').length, drawn: canvas.width > 0 };
    }`, null, 30_000, '.rt-tables');
    assert.deepEqual(shown, { title: 'step-1 − step-0: pass@k along k', rows: 4, drawn: true });
  });
});
