/**
 * The comparison has room (walkthrough 4, point 2): the panel on a 30-question checkpoint
 * comparison with the dataset beside it, at 1400 × 900 and at 1000 × 800. Measured in the rendered
 * page (boxes, not pictures): the comparison's paired differences, its transition table and its
 * "Ceilings along k" chart can each be seen whole, reached by one scroll at most (no scroll box
 * inside another); the question table and the detail pane keep a height a user reads in; the
 * headline is not cut.
 *
 * Its runs are synthetic and written outside .reach-audit/runs, so the other files see the
 * workspace's runs unchanged.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { RunData } from '../../src/contract';
import { makeSyntheticRun } from '../webview/syntheticRun';
import { makeSyntheticComparison } from '../webview/syntheticComparison';
import { MEASURE_ROOM, ROOM_PARTS, roomProblems, type Measured } from '../webview/roomMeasure';
import { pageProbesAvailable, panelEval, screenshot, setViewport } from './pageProbe';
import { activatedExtension, freshSuiteFolder } from './suiteFixtures';

/** Writes a synthetic run as a run folder (manifest, records, summary). */
function writeRun(folder: string, run: RunData): void {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify(run.manifest, null, 2));
  fs.writeFileSync(path.join(folder, 'records.jsonl'), run.records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  if (run.summary) fs.writeFileSync(path.join(folder, 'summary.json'), JSON.stringify(run.summary, null, 2));
}

suite('The comparison has room beside the dataset', function () {
  this.timeout(180_000);
  let api: ReachAuditApi;
  let baseFolder: string;
  let tunedFolder: string;
  let base: RunData;
  let tuned: RunData;
  let data: string;

  suiteSetup(async () => {
    const root = freshSuiteFolder('comparison-room-suite', { create: false });
    const activated = await activatedExtension();
    api = activated.api;
    data = path.join(activated.demo, 'data', 'arith-test.jsonl');
    // 30 paired questions, as the walkthrough compared: enough for rates, intervals and the chart along k.
    base = makeSyntheticRun({ n: 30, budget: 4, seed: 7, runId: 'room-base', label: 'base' });
    tuned = makeSyntheticRun({ n: 30, budget: 4, seed: 7, runId: 'room-tuned', label: 'tuned', realizedBias: 0.15, reachBias: -0.1 });
    baseFolder = path.join(root, 'room-base');
    tunedFolder = path.join(root, 'room-tuned');
    writeRun(baseFolder, base);
    writeRun(tunedFolder, tuned);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  suiteTeardown(async () => {
    if (pageProbesAvailable) await setViewport(1600, 1000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('at 1400 × 900 and 1000 × 800: the comparison, the table and the detail pane each whole, one scroll at most', async function () {
    if (!pageProbesAvailable) this.skip(); // measured in the rendered page
    await setViewport(1400, 900);
    // The Explorer beside, the chat's secondary side bar closed, the dataset beside the panel.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    api.panel.show(tunedFolder, { baseFolder, compare: makeSyntheticComparison(base, tuned) });
    await api.panel.whenReady();
    await vscode.window.showTextDocument(vscode.Uri.file(data), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
    api.panel.selectQuestion(tuned.records[0].id);
    const failures: string[] = [];
    for (const [width, height] of [[1400, 900], [1000, 800]]) {
      await setViewport(width, height);
      const size = `${width}×${height}`;
      const m = await panelEval<Measured>(MEASURE_ROOM, ROOM_PARTS, 30_000);
      console.log(`[comparison room] ${size}: ${JSON.stringify(m)}`);
      await screenshot(`comparison-room-${width}x${height}`);
      failures.push(...roomProblems(m, size));
    }
    assert.deepEqual(failures, []);
  });
});
