/**
 * An audit that survives a window reload (reachAudit.keepRunningOnReload): Run Audit starts the
 * bundled CLI as a process of its own writing the run folder, and the extension follows the folder.
 * A reload cannot happen inside one suite, so the test does what a reload does to the extension's
 * side and nothing to the process: the session stops following (its in-memory handle dropped, the
 * workspace state's note kept), then the activation's re-follow (followNoted, what activate runs
 * on the notes it finds) picks the run up again while its process runs, and the panel follows it
 * to its end in the same folder. Cancel on a followed run sends the process Ctrl-C.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { detachedRunState, processAlive, writerPid } from '../../src/extension/commands/detachedRun';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { EXTENSION_ID, until } from './suiteFixtures';

function recordIds(runDir: string): string[] {
  const file = path.join(runDir, 'records.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => String((JSON.parse(l) as { id: unknown }).id)) : [];
}

suite('An audit that keeps running through a window reload', function () {
  this.timeout(300_000);
  let api: ReachAuditApi;
  let root: string;
  let model: string;
  let data: string;
  const N = 60;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    root = path.join(folder.uri.fsPath, 'keep-running-suite');
    fs.rmSync(root, { recursive: true, force: true });
    model = path.join(root, 'model');
    writeRandomModel(model, SMALL_SPECS.llama);
    data = path.join(root, 'keep.jsonl');
    fs.writeFileSync(data, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `q${String(i).padStart(3, '0')}`, question: `What is ${i} + 3?`, answer: `#### ${i + 3}` })).join('\n') + '\n');
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const start = (name: string) => {
    let started: string | undefined;
    const firstRecord = new Promise<void>((resolve) => {
      const l = api.session.listen({ onStarted: (e) => (started = e.runDir), onRecord: () => { l.dispose(); resolve(); } });
    });
    const running = vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model, data, probes: ['sample:4', 'routes:4'], maxNewTokens: 8, batch: 1, threads: 1, cacheDir: path.join(root, 'cache'), name, keepRunning: true,
    });
    return { running, firstRecord: firstRecord.then(() => started) };
  };

  test('the run goes on in its own process when the window lets go of it, and the next activation follows it to its end in the same folder', async () => {
    const { running, firstRecord } = start('keep-me');
    const runDir = await firstRecord;
    assert.ok(runDir);
    const pid = writerPid(runDir);
    assert.ok(pid !== undefined && processAlive(pid), 'the run folder names its live writer');
    assert.notEqual(pid, process.pid, 'not the extension host');
    assert.notEqual(pid, api.session.enginePid, 'not the engine child that dies with the window');
    await until('the run noted as going', () => (api.interrupted.noted().includes(runDir) ? true : undefined), 10_000);
    assert.equal(api.panel.runFolder, runDir, 'the panel follows the run');

    // What a reload does to the extension's side: it stops following; the process and the note stay.
    api.session.leaveFollowed();
    const left = await running;
    assert.equal(left.how, 'dismissed', left.message);
    assert.equal(api.session.follows(runDir), false);
    assert.equal(detachedRunState(runDir), 'running', 'the process goes on without the window');
    assert.ok(api.interrupted.noted().includes(runDir), 'the note stays for the next activation');
    const keptAtLeave = recordIds(runDir).length;
    assert.ok(keptAtLeave < N, `the run was still going (${keptAtLeave} of ${N})`);

    // The next activation: the noted run whose process runs is followed again, not reported as stopped.
    let followedRecords = 0;
    const counting = api.session.listen({ onRecord: (_e, dir) => dir && path.resolve(dir) === path.resolve(runDir) && followedRecords++ });
    assert.equal(detachedRunState(runDir), 'running', 'still running when the next activation looks');
    const followed = api.followNoted();
    const [result, ...others] = await followed.finally(() => counting.dispose());
    assert.equal(others.length, 0);
    assert.ok(result, 'the running run was followed again');
    assert.equal(result.how, 'done', result.message);
    assert.equal(result.runDir, path.resolve(runDir), 'the same folder');
    const ids = recordIds(runDir);
    assert.equal(ids.length, N);
    assert.equal(new Set(ids).size, N, 'each question once');
    assert.ok(fs.existsSync(path.join(runDir, 'summary.json')));
    // The summary is written just before the process exits.
    await until('the process ended with its run', () => (processAlive(pid) ? undefined : true), 30_000);
    await until('struck off when it ended', () => (api.interrupted.noted().includes(runDir) ? undefined : true), 10_000);
    // The re-followed run's later records went to the listeners (the panel's, the marks', the Runs view's), and the panel shows its end.
    assert.ok(followedRecords > 0, `records written after the reload were passed on (${followedRecords}; ${keptAtLeave} were on disk when the window let go)`);
    assert.ok(followedRecords <= N - keptAtLeave, `none passed on twice (${followedRecords} after ${keptAtLeave})`);
    assert.equal(api.panel.runFolder, path.resolve(runDir), 'the panel shows the re-followed run');
    await api.panel.whenReady();
    const statuses = api.panel.sent.filter((m) => m.type === 'runStatus');
    assert.equal(statuses.at(-1)?.type === 'runStatus' ? statuses.at(-1)?.status : undefined, 'done', 'the panel says done');
  });

  test('Cancel on a run in its own process sends it Ctrl-C: it stops after its batch, keeps its finished questions, and Resume is offered', async () => {
    const { running, firstRecord } = start('cancel-me');
    const runDir = await firstRecord;
    assert.ok(runDir);
    const pid = writerPid(runDir);
    assert.ok(pid !== undefined);
    api.session.cancelAll();
    const stopped = await running;
    assert.equal(stopped.how, 'cancelled', stopped.message);
    const kept = recordIds(runDir);
    assert.ok(kept.length >= 1 && kept.length < N, `kept ${kept.length}`);
    assert.equal(new Set(kept).size, kept.length);
    assert.equal(processAlive(pid), false);
    assert.equal(detachedRunState(runDir), 'stopped');
    assert.deepEqual(api.panel.resumeOffer, { comparison: false }, 'the panel offers Resume');
  });
});
