/**
 * Settings written for people, in a real VS Code: the KV budget's setting is titled from a key that
 * reads "Max KV Cache Memory" (not "Kv Memory"), and an engine error about it names the setting,
 * not the command line's --kv-memory, with Open Settings.
 *
 * Its audit writes outside .reach-audit/runs, so the other files see the workspace's runs unchanged.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable } from './pageProbe';
import { clearNotifications, renderedNotification } from './notifications';
import { activatedExtension, freshSuiteFolderWithModel } from './suiteFixtures';

suite('Settings named in errors', function () {
  this.timeout(120_000);
  const config = () => vscode.workspace.getConfiguration('reachAudit');
  let root: string;
  let model: string;

  suiteSetup(async () => {
    ({ root, model } = freshSuiteFolderWithModel('setting-names-suite'));
    await activatedExtension();
  });

  suiteTeardown(async () => {
    await config().update('maxKVCacheMemory', undefined, vscode.ConfigurationTarget.Workspace);
  });

  test('a KV budget too small for one sequence: the error names reachAudit.maxKVCacheMemory and offers Open Settings', async () => {
    assert.equal(config().inspect('maxKVCacheMemory')?.defaultValue, '');
    await config().update('maxKVCacheMemory', '1K', vscode.ConfigurationTarget.Workspace);
    const data = path.join(root, 'two.jsonl');
    fs.writeFileSync(data, ['What is 1 + 1?', 'What is 2 + 2?'].map((q, i) => JSON.stringify({ id: `k${i}`, question: q, answer: `#### ${2 * (i + 1)}` })).join('\n') + '\n');
    await clearNotifications();
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model, data, probes: ['sample:2'], maxNewTokens: 4, threads: 1, cacheDir: path.join(root, 'cache'), out: path.join(root, 'runs', 'kv'),
    });
    assert.equal(result.how, 'failed', result.message);
    assert.match(result.message ?? '', /--kv-memory/, 'the engine speaks the command line\'s words');
    if (!pageProbesAvailable) return;
    const shown = await renderedNotification('reachAudit.maxKVCacheMemory');
    assert.ok(!shown.message.includes('--kv-memory'), shown.message);
    assert.deepEqual(shown.buttons, ['Open Settings', 'Show Log']);
  });
});
