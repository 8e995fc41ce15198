/**
 * A trajectory from separate checkpoint folders, without a terminal: Audit Checkpoint Folders… on
 * two checkpoint folders given out of order shows the training order it found (the last number in
 * each name) and, accepted, runs the bundled `reach-audit trajectory --model … --model …` in a child
 * process; Cancel keeps the finished checkpoint, and the same folders again reuse it, resume the
 * other and show the trajectory in training order. The Explorer's selection with a folder that is
 * no checkpoint is refused, naming it; two finished runs selected in the Runs view show as a
 * trajectory (Show as Trajectory), in training order.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CheckpointFoldersArgs, CheckpointFoldersOutcome } from '../../src/extension/commands/auditCheckpointFolders';
import type { TablesResult } from '../../src/extension/tables/tablesCommands';
import type { TrajectoryMessage } from '../../src/extension/tables/tablesData';
import { pageProbesAvailable, workbenchEval } from './pageProbe';
import { activatedExtension, freshSuiteFolder, until, workspaceFolder } from './suiteFixtures';

/** Page-side: the open quick input's text (its items and their descriptions) once it contains `arg`. */
const PICKER_TEXT = `(text) => { const w = document.querySelector('.quick-input-widget'); const t = w && w.offsetParent !== null ? w.textContent ?? '' : ''; return t.includes(text) ? t : null; }`;

suite('Audit Checkpoint Folders', function () {
  this.timeout(600_000);
  let api: ReachAuditApi;
  let root: string;
  let demo: string;
  let early: string;
  let late: string;
  let out: string | undefined;
  let earlier = new Set<unknown>();
  const lastTrajectory = () => [...api.tables.sent].reverse().find((m): m is TrajectoryMessage => m.type === 'showTrajectory' && !earlier.has(m));
  const labels = (m: TrajectoryMessage | undefined) => m?.trajectory.points.map((p) => p.label) ?? [];

  suiteSetup(async () => {
    root = freshSuiteFolder('checkpoint-folders-suite');
    ({ api, demo } = await activatedExtension());
    early = path.join(root, 'run', 'checkpoint-200');
    late = path.join(root, 'run', 'checkpoint-1000');
    fs.cpSync(path.join(demo, 'base'), early, { recursive: true });
    fs.cpSync(path.join(demo, 'tuned'), late, { recursive: true });
    earlier = new Set(api.tables.sent);
  });

  suiteTeardown(async () => {
    api?.tables.close();
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    if (out) fs.rmSync(out, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const args = (extra: Partial<CheckpointFoldersArgs> = {}): CheckpointFoldersArgs => ({
    data: path.join(demo, 'data', 'arith-test.jsonl'),
    // Questions one at a time: the second checkpoint is still going when Cancel comes.
    options: { limit: 30, probes: ['sample:2', 'routes:2'], maxNewTokens: 32, batch: 1, threads: 1 },
    ...extra,
  });

  test('two folders out of order: the training order is shown and accepted; Cancel keeps the first checkpoint; again, it is reused and the trajectory shown', async () => {
    const start = () => vscode.commands.executeCommand<CheckpointFoldersOutcome>('reachAudit.auditCheckpointFolders', args({ folders: [late, early] }));
    let running: Thenable<CheckpointFoldersOutcome>;
    if (pageProbesAvailable) {
      // The order step says what it found (the last number in each name), and its first item accepts it.
      running = start();
      const text = await workbenchEval<string>(PICKER_TEXT, 'checkpoint-200 → checkpoint-1000', 60_000);
      assert.match(text, /Audit in this order/);
      assert.match(text, /Reverse the order/);
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    } else {
      running = vscode.commands.executeCommand<CheckpointFoldersOutcome>('reachAudit.auditCheckpointFolders', args({ folders: [early, late], ordered: true }));
    }
    // The second checkpoint under way (the first finished): Cancel, as the notification's button.
    await until('the second checkpoint under way', () => (api.checkpointFolders.reported.some((m) => /^checkpoint 2 of 2, checkpoint-1000: [1-9]\d*\/30 questions/.test(m)) ? true : undefined), 300_000);
    // The first checkpoint's point is on the Trajectory tab while the second is audited.
    assert.deepEqual(labels(api.tables.shownTrajectory), ['checkpoint-200']);
    api.checkpointFolders.cancelAll();
    const stopped = await running;
    assert.equal(stopped.how, 'cancelled', stopped.message);
    assert.deepEqual(stopped.folders, [early, late], 'audited in training order');
    out = stopped.out;
    assert.ok(out && out.startsWith(path.join(workspaceFolder(), '.reach-audit', 'trajectories')), out);
    const firstRun = path.join(out, '0-checkpoint-200');
    const secondRun = path.join(out, '1-checkpoint-1000');
    assert.ok(fs.existsSync(path.join(firstRun, 'summary.json')), 'the finished checkpoint is kept');
    assert.ok(!fs.existsSync(path.join(secondRun, 'summary.json')), 'the second was stopped before its end');
    const firstRecords = fs.readFileSync(path.join(firstRun, 'records.jsonl'));

    // Again (what the notice's Resume runs): the first checkpoint reused as it is, the second resumed.
    const again = await vscode.commands.executeCommand<CheckpointFoldersOutcome>('reachAudit.auditCheckpointFolders', args({ folders: [early, late], ordered: true }));
    assert.equal(again.how, 'ended', again.message);
    assert.equal(again.out, out, 'the same folders and dataset: the same trajectory folder');
    assert.deepEqual(fs.readFileSync(path.join(firstRun, 'records.jsonl')), firstRecords, 'the finished checkpoint is not audited again');
    assert.ok(fs.existsSync(path.join(secondRun, 'summary.json')));
    assert.equal(fs.readFileSync(path.join(secondRun, 'records.jsonl'), 'utf8').trim().split('\n').length, 30, 'each question of the resumed checkpoint once');
    assert.ok(again.trajectory && fs.existsSync(again.trajectory));
    const shown = await until('the trajectory on the Trajectory tab', () => (labels(lastTrajectory()).length === 2 ? lastTrajectory() : undefined));
    assert.deepEqual(labels(shown), ['checkpoint-200', 'checkpoint-1000']);
  });

  test('the same folders with other options: refused before any audit, naming the difference, with a new folder offered', async () => {
    assert.ok(out);
    const options = { limit: 30, probes: ['sample:2', 'routes:2'], maxNewTokens: 16, batch: 1, threads: 1 };
    const outcome = await vscode.commands.executeCommand<CheckpointFoldersOutcome>('reachAudit.auditCheckpointFolders', args({ folders: [early, late], ordered: true, options }));
    assert.equal(outcome.how, 'failed');
    assert.match(outcome.message ?? '', /different settings/);
    assert.match(outcome.message ?? '', /max.?new.?tokens/i, 'the difference is named');
    assert.deepEqual(outcome.choices, ['Audit into a New Folder', 'Show Log']);
  });

  test('the Explorer selection with a folder that is no checkpoint: refused, naming it', async () => {
    const notes = path.join(root, 'notes');
    fs.mkdirSync(notes, { recursive: true });
    const outcome = await vscode.commands.executeCommand<CheckpointFoldersOutcome>('reachAudit.auditCheckpointFolders', vscode.Uri.file(early), [vscode.Uri.file(early), vscode.Uri.file(notes)]);
    assert.equal(outcome.how, 'failed');
    assert.match(outcome.message ?? '', /^notes is not a checkpoint folder \(no config\.json\)/);
  });

  test('Show as Trajectory on two runs selected in the Runs view: in training order', async () => {
    assert.ok(out);
    const node = (folder: string) => ({ kind: 'run', run: { folder } });
    await vscode.commands.executeCommand('reachAudit.refreshRuns');
    const late1 = path.join(out, '1-checkpoint-1000');
    const early0 = path.join(out, '0-checkpoint-200');
    const result = await vscode.commands.executeCommand<TablesResult>('reachAudit.showRunsAsTrajectory', node(late1), [node(late1), node(early0)]);
    assert.equal(result.error, undefined, result.error);
    const message = result.message as TrajectoryMessage;
    assert.deepEqual(labels(message), ['checkpoint-200', 'checkpoint-1000']);
    const one = await vscode.commands.executeCommand<TablesResult>('reachAudit.showRunsAsTrajectory', node(late1), [node(late1)]);
    assert.match(one.error ?? '', /two or more runs/);
  });
});
