/**
 * Resume without a terminal (walkthrough 4, point 4): a run going is noted in the workspace's state
 * (so a window reload that stops it is told at the next activation, with Resume) and struck off
 * when it ends; a cancelled run is continued in its own folder by Resume Run (the Runs view's
 * button on an unfinished run), ending with every question once and its summary.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { EXTENSION_ID, until } from './suiteFixtures';

function recordIds(runDir: string): string[] {
  const file = path.join(runDir, 'records.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => String((JSON.parse(l) as { id: unknown }).id)) : [];
}

suite('Resume a stopped run from VS Code', function () {
  this.timeout(240_000);
  let api: ReachAuditApi;
  let root: string;
  let model: string;
  let data: string;
  const N = 40;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    root = path.join(folder.uri.fsPath, 'resume-suite');
    fs.rmSync(root, { recursive: true, force: true });
    model = path.join(root, 'model');
    writeRandomModel(model, SMALL_SPECS.llama);
    data = path.join(root, 'resume.jsonl');
    fs.writeFileSync(data, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `q${String(i).padStart(3, '0')}`, question: `What is ${i} + 2?`, answer: `#### ${i + 2}` })).join('\n') + '\n');
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
  });

  // The next suite files start with the panel closed (userFlows reads the panel's first load of a new run).
  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a run going is noted for the next activation, and struck off when it stops; Resume Run finishes it in its folder', async () => {
    let started: string | undefined;
    const firstRecord = new Promise<void>((resolve) => {
      const l = api.session.listen({ onStarted: (e) => (started = e.runDir), onRecord: () => { l.dispose(); resolve(); } });
    });
    const running = vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model, data, probes: ['sample:4', 'routes:4'], maxNewTokens: 8, batch: 1, threads: 1, cacheDir: path.join(root, 'cache'), name: 'resume-me',
    });
    await firstRecord;
    assert.ok(started);
    const runDir = started;
    // While it goes, a reload would find it noted.
    await until('the run noted as going', () => (api.interrupted.noted().includes(runDir) ? true : undefined), 10_000);
    api.session.cancelAll();
    const stopped = await running;
    assert.equal(stopped.how, 'cancelled', stopped.message);
    const kept = recordIds(runDir);
    assert.ok(kept.length >= 1 && kept.length < N, `kept ${kept.length}`);
    await until('struck off when it stopped', () => (api.interrupted.noted().includes(runDir) ? undefined : true), 10_000);

    // What the next activation does with a run the window's end stopped: it is found, once. (After
    // the end's own writes have settled: the run's end strikes it off once per event that ends it.)
    await new Promise((r) => setTimeout(r, 500));
    await api.interrupted.started(runDir);
    assert.deepEqual(await api.interrupted.takeStopped(), [runDir]);
    assert.deepEqual(api.interrupted.noted(), []);

    const resumed = await vscode.commands.executeCommand<CommandResult>('reachAudit.resumeRun', { runDir });
    assert.equal(resumed.how, 'done', resumed.message);
    assert.equal(resumed.runDir, runDir, 'resumed in its own folder');
    const ids = recordIds(runDir);
    assert.equal(ids.length, N);
    assert.equal(new Set(ids).size, N, 'each question once');
    assert.ok(fs.existsSync(path.join(runDir, 'summary.json')));
    // A finished run has nothing to resume, and says so.
    const again = await vscode.commands.executeCommand<CommandResult>('reachAudit.resumeRun', { runDir });
    assert.equal(again.how, 'failed');
    assert.match(again.message ?? '', /is finished/);
  });
});
