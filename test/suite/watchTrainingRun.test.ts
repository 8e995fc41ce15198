/**
 * Watch Training Run… in a real VS Code: the command watches an empty folder through the bundled
 * CLI; the demo's checkpoints are copied into it while it runs, one after the other, and each
 * appears on the Trajectory tab when its audit finishes (the second one while the watch is still
 * going), in step order; Cancel stops a watch cleanly (the CLI's Ctrl-C), with the finished
 * checkpoints kept.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { WatchArgs, WatchOutcome } from '../../src/extension/commands/watchTrainingRun';
import type { TrajectoryMessage } from '../../src/extension/tables/tablesData';
import { pageProbesAvailable, panelEval, screenshot } from './pageProbe';
import { freshSuiteFolder, activatedExtension } from './suiteFixtures';

const FRAME = '.rt-tables';

/** Page-side: the Trajectory tab's title and its checkpoints table's first column, once the title says `want`. */
const TRAJECTORY_ROWS = `(want) => {
  const title = document.querySelector('.tj-title')?.textContent ?? '';
  if (!title.includes(want)) return null;
  return { title, labels: Array.from(document.querySelectorAll('.rt-section[data-table="trajectory"] tbody tr')).map((tr) => tr.children[0]?.textContent ?? '') };
}`;

async function until<T>(what: string, check: () => T | undefined, ms = 180_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('Watch Training Run', function () {
  this.timeout(600_000);
  let api: ReachAuditApi;
  let root: string;
  let demo: string;
  let trajectoryFolder: string | undefined;

  /** What the Tables page was sent before this suite (other suites' watches): not this suite's trajectories. */
  let earlier = new Set<unknown>();
  const lastTrajectory = () => [...api.tables.sent].reverse().find((m): m is TrajectoryMessage => m.type === 'showTrajectory' && !earlier.has(m));
  const labels = (m: TrajectoryMessage | undefined) => m?.trajectory.points.map((p) => p.label) ?? [];

  suiteSetup(async () => {
    root = freshSuiteFolder('watch-suite');
    fs.mkdirSync(path.join(root, 'run'), { recursive: true });
    ({ api, demo } = await activatedExtension());
    earlier = new Set(api.tables.sent);
  });

  // The next suites start without this suite's pages, run folders and trajectory.
  suiteTeardown(async () => {
    api?.tables.close();
    if (trajectoryFolder) fs.rmSync(trajectoryFolder, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const args = (run: string, extra: Partial<WatchArgs>): WatchArgs => ({
    dir: run,
    data: path.join(demo, 'data', 'arith-test.jsonl'),
    options: { limit: 4, probes: ['sample:2', 'routes:2'], maxNewTokens: 32, batch: 4 },
    poll: 0.2,
    ...extra,
  });

  test('a checkpoint copied into the watched folder while it runs shows up on the Trajectory tab', async () => {
    const run = path.join(root, 'run');
    const watching = vscode.commands.executeCommand<WatchOutcome>('reachAudit.watchTrainingRun', args(run, { maxCheckpoints: 2 }));
    fs.cpSync(path.join(demo, 'base'), path.join(run, 'checkpoint-1000'), { recursive: true });
    const first = await until('the first checkpoint on the Trajectory tab', () => (labels(lastTrajectory()).length === 1 ? lastTrajectory() : undefined));
    assert.deepEqual(labels(first), ['checkpoint-1000']);
    await api.tables.whenReady();
    if (pageProbesAvailable) {
      const dom = await panelEval<{ title: string; labels: string[] }>(TRAJECTORY_ROWS, '1 checkpoint', 20_000, FRAME);
      assert.deepEqual(dom.labels, ['checkpoint-1000']);
      // The README's picture: the Trajectory tab, the watch's notification and status bar item while it waits for the next checkpoint.
      await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
      const shot = await screenshot('watch-dark', FRAME);
      for (const file of shot.files) assert.ok(fs.statSync(file).size > 10_000, `${file} looks empty`);
    }

    // The trainer writes an earlier-numbered checkpoint while the watch goes on: it comes first.
    fs.cpSync(path.join(demo, 'tuned'), path.join(run, 'checkpoint-200'), { recursive: true });
    const second = await until('the second checkpoint on the Trajectory tab', () => (labels(lastTrajectory()).length === 2 ? lastTrajectory() : undefined));
    assert.deepEqual(labels(second), ['checkpoint-200', 'checkpoint-1000']);
    assert.equal(second.trajectory.flows.length, 1);
    if (pageProbesAvailable) {
      const dom = await panelEval<{ title: string; labels: string[] }>(TRAJECTORY_ROWS, '2 checkpoints', 20_000, FRAME);
      assert.deepEqual(dom.labels, ['checkpoint-200', 'checkpoint-1000']);
    }

    const outcome = await watching;
    assert.equal(outcome.how, 'ended', outcome.message);
    assert.equal(outcome.status, 'waiting for checkpoints · 0 queued · 2 done');
    assert.ok(outcome.trajectory && fs.existsSync(outcome.trajectory), 'trajectory.json written under the workspace');
    trajectoryFolder = path.dirname(outcome.trajectory);
    assert.ok(outcome.trajectory.startsWith(path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.reach-audit', 'trajectories')), outcome.trajectory);
  });

  test('Cancel stops the watch cleanly: the checkpoints done are kept, and watching again resumes', async () => {
    const run = path.join(root, 'run');
    const before = lastTrajectory();
    // A third checkpoint; nothing after it: without Cancel this watch would run on.
    fs.cpSync(path.join(demo, 'round1'), path.join(run, 'checkpoint-1500'), { recursive: true });
    const watching = vscode.commands.executeCommand<WatchOutcome>('reachAudit.watchTrainingRun', args(run, {}));
    await until('the third checkpoint on the Trajectory tab', () => (labels(lastTrajectory()).length === 3 ? true : undefined));
    assert.notEqual(lastTrajectory(), before);
    assert.deepEqual(labels(lastTrajectory()), ['checkpoint-200', 'checkpoint-1000', 'checkpoint-1500']);
    api.watches.cancelAll();
    const outcome = await Promise.race([watching, new Promise<WatchOutcome>((r) => setTimeout(() => r({ how: 'failed', message: 'the watch did not stop within a minute of Cancel' }), 60_000))]);
    assert.equal(outcome.how, 'cancelled', outcome.message);
    assert.equal(outcome.status, 'waiting for checkpoints · 0 queued · 3 done');
  });
});
