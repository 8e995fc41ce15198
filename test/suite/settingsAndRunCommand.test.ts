/**
 * Every audit option from VS Code, the command behind every run, runs from anywhere — in a real
 * VS Code: the generated settings are VS Code's (inspect knows them); an int8 audit and a preset
 * audit whose weights and preset come from settings record int8 weights and the preset in their manifests;
 * the panel shows the run's command line under its title and its Copy button puts it on the
 * clipboard, and that command run from a terminal writes the same records; Open Run Folder… lists a run from outside the workspace in the Runs view, and Copy
 * Command Line copies its command.
 *
 * Named to run after runsView.test.js (which checks activation and the workspace's run list), and
 * its audits write outside .reach-audit/runs, so the later files see the workspace's runs unchanged.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { reproduceCommand } from '../../src/service/reproduceCommand';
import { pageProbesAvailable, panelClick, panelEval, screenshot } from './pageProbe';
import { FIXTURE_RUNS, BASE_RUN, installedExtension, activatedExtension, manifestOf, freshSuiteFolderWithModel } from './suiteFixtures';

suite('Options as settings, the command behind a run, runs from anywhere', function () {
  this.timeout(180_000);
  let api: ReachAuditApi;
  let root: string;
  let model: string;
  let data: string;
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-outside-'));
  const config = () => vscode.workspace.getConfiguration('reachAudit');

  suiteSetup(async () => {
    ({ root, model } = freshSuiteFolderWithModel('options-suite'));
    data = path.join(root, 'gsm8k.jsonl');
    fs.writeFileSync(data, [0, 1, 2].map((i) => JSON.stringify({ id: `o${i}`, question: `What is ${i} + ${i}?`, answer: `#### ${2 * i}` })).join('\n') + '\n');
    ({ api } = await activatedExtension());
  });

  suiteTeardown(async () => {
    for (const key of ['weights', 'preset', 'maxNewTokens', 'threads', 'defaultProbes', 'repair']) await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(outside, { recursive: true, force: true });
  });

  test('the options table is VS Code\'s settings: inspect knows the generated ones with their defaults', () => {
    assert.equal(config().inspect('weights')?.defaultValue, '');
    assert.equal(config().inspect('searchC')?.defaultValue, null);
    assert.equal(config().inspect('correctBy')?.defaultValue, '');
    assert.deepEqual(config().inspect('defaultProbes')?.defaultValue, ['sample:16', 'routes:16', 'search:16']);
  });

  test('an int8 audit and a preset audit whose weights and preset come from the settings record int8 weights and the preset', async () => {
    const ws = vscode.ConfigurationTarget.Workspace;
    await config().update('repair', false, ws);
    await config().update('maxNewTokens', 4, ws);
    await config().update('threads', 1, ws);
    await config().update('weights', 'int8', ws);
    const int8 = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', { model, data, probes: ['sample:2', 'routes:2'], name: 'suite-int8', out: path.join(root, 'runs', 'int8'), cacheDir: path.join(root, 'cache') });
    assert.equal(int8.how, 'done', int8.message);
    assert.ok(int8.runDir);
    assert.equal(manifestOf(int8.runDir).engine.weights, 'int8');

    await config().update('weights', undefined, ws);
    await config().update('preset', 'gsm8k-cot-8shot', ws);
    const preset = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', { model, data, probes: ['sample:2', 'routes:2'], name: 'suite-preset', out: path.join(root, 'runs', 'preset'), cacheDir: path.join(root, 'cache') });
    assert.equal(preset.how, 'done', preset.message);
    assert.ok(preset.runDir);
    const m = manifestOf(preset.runDir);
    assert.equal(m.deployment.preset, 'gsm8k-cot-8shot');
    assert.equal(m.engine.weights ?? 'f32', 'f32');
    await config().update('preset', undefined, ws);

    // The panel: the command line under the title, and Copy puts it on the clipboard.
    const expected = reproduceCommand(manifestOf(int8.runDir)).command;
    assert.ok(expected.includes('--weights int8'));

    // That command, run from a terminal (the bundled CLI for `reach-audit`, as the extension's
    // terminals have it), gives the records the audit started in VS Code wrote, byte for byte.
    const { extension } = installedExtension();
    const again = path.join(root, 'runs', 'int8-from-terminal');
    const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(extension.extensionPath, 'dist', 'cli.js'))}`;
    const terminal = spawnSync('bash', ['-c', `${expected.replace(/^reach-audit /, `${cli} `)} --out ${JSON.stringify(again)}`], { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    assert.equal(terminal.status, 0, terminal.stderr);
    assert.equal(fs.readFileSync(path.join(again, 'records.jsonl'), 'utf8'), fs.readFileSync(path.join(int8.runDir, 'records.jsonl'), 'utf8'), 'the same records from the terminal');
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: int8.runDir });
    if (!pageProbesAvailable) return;
    const shown = await panelEval<{ text: string; visible: boolean; copy: boolean }>(
      `() => {
        const line = document.querySelector('.run-command-line');
        const box = document.querySelector('.run-command');
        if (!line || !box || line.textContent !== ${JSON.stringify(expected)}) return null;
        return { text: line.textContent, visible: box.getBoundingClientRect().height > 0 && !box.hidden, copy: !!box.querySelector('.run-command-copy') };
      }`,
    );
    assert.deepEqual(shown, { text: expected, visible: true, copy: true });
    await vscode.env.clipboard.writeText('');
    await panelClick('Copy');
    const deadline = Date.now() + 10_000;
    while ((await vscode.env.clipboard.readText()) !== expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await vscode.env.clipboard.readText(), expected);
    await screenshot('run-command');
  });

  test('Open Run Folder… lists a run from outside the workspace; Copy Command Line copies its command', async () => {
    const copy = path.join(outside, BASE_RUN);
    fs.cpSync(path.join(FIXTURE_RUNS, BASE_RUN), copy, { recursive: true });
    const added = await vscode.commands.executeCommand<string | undefined>('reachAudit.openRunFolder', outside);
    assert.equal(added, outside);
    const listed = (await api.runs.runs()).find((r) => r.folder === copy);
    assert.ok(listed, 'the outside run is in the Runs view');
    assert.equal(listed.outside, true);
    const item = api.runs.getTreeItem({ kind: 'run', run: listed });
    assert.match(String(item.description), new RegExp(outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(item.contextValue, 'reachAudit.run.outside');
    const command = await vscode.commands.executeCommand<string | undefined>('reachAudit.copyRunCommand', { runDir: copy });
    assert.equal(command, listed.command);
    assert.equal(await vscode.env.clipboard.readText(), command);
    assert.match(command ?? '', /^reach-audit audit --model media\/demo\/base /);

    await vscode.commands.executeCommand('reachAudit.forgetRunFolder', { runDir: copy });
    assert.equal((await api.runs.runs()).some((r) => r.folder === copy), false, 'Remove from Runs View takes it off');
  });
});
