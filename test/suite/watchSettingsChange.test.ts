/**
 * Watch Training Run again after a settings change (walkthrough 3, point 2): the CLI refuses to
 * resume the checkpoints it audited under other settings. VS Code shows the whole message (what
 * differs), with a button for each way forward: Watch into a New Folder starts the watch again into
 * a new folder with the new settings; Keep the Earlier Settings starts it again in the same folder
 * with the earlier checkpoints' settings. The watch does not just stop.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WatchArgs, WatchOutcome } from '../../src/extension/commands/watchTrainingRun';
import { pageProbesAvailable } from './pageProbe';
import { clearNotifications, clickNotificationButton, renderedNotification } from './notifications';
import { until, freshSuiteFolder, activatedExtension } from './suiteFixtures';

const WAYS = ['Watch into a New Folder', 'Keep the Earlier Settings', 'Show Log'];

suite('Watch Training Run again after a settings change', function () {
  this.timeout(300_000);
  let root: string;
  let demo: string;
  let out: string;

  suiteSetup(async () => {
    root = freshSuiteFolder('watch-again-suite');
    fs.mkdirSync(path.join(root, 'run'), { recursive: true });
    ({ demo } = await activatedExtension());
    fs.cpSync(path.join(demo, 'base'), path.join(root, 'run', 'checkpoint-100'), { recursive: true });
    out = path.join(root, 'trajectory');
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(root, { recursive: true, force: true });
  });

  const watch = (maxNewTokens: number, extra: Partial<WatchArgs> = {}) =>
    vscode.commands.executeCommand<WatchOutcome>('reachAudit.watchTrainingRun', {
      dir: path.join(root, 'run'),
      data: path.join(demo, 'data', 'arith-test.jsonl'),
      options: { limit: 3, probes: ['sample:2'], maxNewTokens, batch: 4 },
      poll: 0.2,
      untilIdle: 1,
      out,
      ...extra,
    } satisfies WatchArgs);

  const trajectoryTime = (folder: string) => {
    const file = path.join(folder, 'trajectory.json');
    return fs.existsSync(file) ? fs.statSync(file).mtimeMs : undefined;
  };

  test('the whole message, with a button for each way forward; each starts the watch again', async () => {
    const first = await watch(32);
    assert.equal(first.how, 'ended', first.message);
    const firstWritten = trajectoryTime(out);
    assert.ok(firstWritten, 'the first watch wrote its trajectory');

    await clearNotifications();
    const again = await watch(16);
    assert.equal(again.how, 'failed');
    assert.deepEqual(again.choices, WAYS);
    assert.match(again.message ?? '', /different settings —\n\s+deployment: the run has \{"maxNewTokens":32[^\n]*this command gives \{"maxNewTokens":16/);
    if (!pageProbesAvailable) return;
    const shown = await renderedNotification('made with other settings');
    assert.deepEqual(shown.buttons, WAYS);
    assert.match(shown.message, /^Reach Audit: the checkpoints already audited in .*trajectory were made with other settings than this watch's — deployment: the run has \{"maxNewTokens":32.*"maxNewTokens":16.*\}\. Watch into a new folder with the new settings, or keep the earlier settings for this watch\.$/);

    // A new folder: the watch starts again there, with the new settings, and ends on its own.
    await clickNotificationButton('made with other settings', 'Watch into a New Folder');
    await until('the watch into the new folder to write its trajectory', () => trajectoryTime(`${out}-2`), 120_000);
    const manifest = JSON.parse(fs.readFileSync(path.join(`${out}-2`, 'checkpoint-100', 'manifest.json'), 'utf8')) as { deployment: { maxNewTokens: number } };
    assert.equal(manifest.deployment.maxNewTokens, 16);

    // The earlier settings: the watch starts again in the same folder and resumes there.
    await clearNotifications();
    assert.equal((await watch(16)).how, 'failed');
    await clickNotificationButton('made with other settings', 'Keep the Earlier Settings');
    await until('the watch with the earlier settings to rewrite its trajectory', () => ((trajectoryTime(out) ?? 0) > firstWritten ? true : undefined), 120_000);
  });
});
