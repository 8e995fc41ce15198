/**
 * Silence MLP Blocks for This Question on a question no probe reaches: the run says why nothing was
 * scanned in a notification (it used to end with "done" and only the detail pane's "Not scanned");
 * asked again while that run is in view, it says at once that the question is out of reach under
 * those probes, without running them again, and offers to run them anyway.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable } from './pageProbe';
import { clearNotifications, renderedNotification } from './notifications';
import { activatedExtension, freshSuiteFolderWithModel } from './suiteFixtures';

suite('Silence MLP Blocks on an unreached question', function () {
  this.timeout(180_000);
  let root: string;
  let model: string;
  let data: string;

  suiteSetup(async () => {
    ({ root, model } = freshSuiteFolderWithModel('silence-unreached-suite'));
    data = path.join(root, 'far.jsonl');
    // A random-weight model writes no 98765 in four tokens: unreached by every probe.
    fs.writeFileSync(data, JSON.stringify({ id: 'far', question: 'What is 98760 + 5?', answer: '#### 98765' }) + '\n');
    await activatedExtension();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('says why nothing was scanned; asked again, says so at once without running the probes', async () => {
    const options = { model, probes: ['sample:2', 'routes:2'], maxNewTokens: 4, batch: 2, threads: 1, cacheDir: path.join(root, 'cache') };
    await clearNotifications();
    const first = await vscode.commands.executeCommand<CommandResult>('reachAudit.silenceBlocksForQuestion', { file: data, line: 1, options });
    assert.equal(first.how, 'done', first.message);
    assert.ok(first.runDir);
    assert.match(first.message ?? '', /^Question far was not scanned: no probe \(sample:2, routes:2\) reached its answer/);
    if (pageProbesAvailable) {
      const shown = await renderedNotification('Question far was not scanned');
      assert.match(shown.message, /A larger budget may reach it\.$/);
    }

    const runsBefore = fs.readdirSync(path.dirname(first.runDir)).length;
    const again = await vscode.commands.executeCommand<CommandResult>('reachAudit.silenceBlocksForQuestion', { file: data, line: 1, options });
    assert.equal(again.how, 'dismissed', again.message);
    assert.equal(again.runDir, first.runDir);
    assert.match(again.message ?? '', new RegExp(`Question far is unreached in ${path.basename(first.runDir)}: no probe \\(sample:2, routes:2\\) found its answer`));
    assert.equal(fs.readdirSync(path.dirname(first.runDir)).length, runsBefore, 'no new run');
    if (pageProbesAvailable) {
      const shown = await renderedNotification('Question far is unreached in');
      assert.deepEqual(shown.buttons, ['Run the Probes Anyway']);
    }
  });
});
