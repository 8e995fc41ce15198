/**
 * Import Evaluation Log… from the editor (walkthrough 4, point 3): the explorer's command on an
 * lm-eval samples file writes the run into the workspace's runs and opens it in the panel; its
 * questions, which no probe ran on, read "not probed" in the Runs view (not "unreached"); and the
 * same log picked as a dataset for Run Audit says it is a harness log and offers the import
 * instead of walking the pickers to a schema error.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { ImportOutcome } from '../../src/extension/commands/importLog';
import { EXTENSION_ID, FIXTURES } from './suiteFixtures';
import { clearNotifications, renderedNotification } from './notifications';
import { pageProbesAvailable } from './pageProbe';

const LOG = path.join(FIXTURES, 'logs', 'lm-eval', 'samples_gsm8k_2026-12-01T10-00-00.000000.jsonl');

suite('Import Evaluation Log…', function () {
  this.timeout(120_000);
  let api: ReachAuditApi;
  let imported: string | undefined;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (imported) fs.rmSync(imported, { recursive: true, force: true });
    await vscode.commands.executeCommand('reachAudit.refreshRuns');
  });

  test('the explorer command on an lm-eval samples file makes the run and opens it; its questions read "not probed"', async () => {
    const outcome = await vscode.commands.executeCommand<ImportOutcome>('reachAudit.importLog', vscode.Uri.file(LOG));
    assert.equal(outcome.how, 'done', outcome.message);
    imported = outcome.runDir;
    assert.ok(imported && fs.existsSync(path.join(imported, 'manifest.json')));
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(workspace && imported.startsWith(path.join(workspace, '.reach-audit', 'runs')), imported);
    assert.equal(api.panel.runFolder, imported);
    const entry = (await api.runs.runs()).find((r) => r.folder === imported);
    assert.ok(entry, 'the Runs view lists the imported run');
    const children = await api.runs.getChildren({ kind: 'run', run: entry });
    const titles = children.filter((c) => c.kind === 'group').map((c) => (c.kind === 'group' ? c.title : ''));
    assert.ok(titles.includes('Questions · Not probed'), titles.join(' | '));
    assert.ok(!titles.includes('Questions · Unreached'), titles.join(' | '));
  });

  test('the log picked as a dataset for Run Audit says it is a harness log and offers the import', async () => {
    await clearNotifications();
    {
      const result = await Promise.race([
        vscode.commands.executeCommand<CommandResult>('reachAudit.runAuditOnFile', vscode.Uri.file(LOG)),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 8000)),
      ]);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.ok(result, 'Run Audit went on to its pickers instead of saying the file is a log');
      assert.equal(result.how, 'dismissed');
      assert.match(result.message ?? '', /harness log/);
      if (!pageProbesAvailable) return;
      const shown = await renderedNotification('is an lm-evaluation-harness samples log, not a dataset');
      assert.ok(shown.buttons.includes('Import Evaluation Log…'), JSON.stringify(shown));
    }
  });
});
