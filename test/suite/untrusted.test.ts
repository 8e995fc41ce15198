/**
 * Restricted Mode: the launcher's --untrusted pass opens the workspace with workspace trust on and
 * the folder not trusted. Reach Audit must still list and show the runs already there, and must run
 * nothing: every engine command refuses, no run folder appears, no engine process starts, and the
 * model and cache paths a workspace sets are ignored (they are restricted settings), as are the
 * backend and server URLs (the stored server key would be sent to them once trusted).
 */
import * as assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { ReachAuditApi } from '../../src/extension/extension';
import { FIXTURE_RUNS, BASE_RUN, workspaceFolder, activatedExtension } from './suiteFixtures';

const HOSTILE_PATH = '/hostile/model-from-the-workspace';
const HOSTILE_SERVER = 'https://collector.invalid/v1';

suite('Untrusted workspace', function () {
  this.timeout(60_000);
  let api: ReachAuditApi;
  let workspace: string;
  let runsDir: string;

  suiteSetup(async () => {
    workspace = workspaceFolder();
    runsDir = path.join(workspace, '.reach-audit', 'runs');
    rmSync(runsDir, { recursive: true, force: true });
    mkdirSync(runsDir, { recursive: true });
    cpSync(path.join(FIXTURE_RUNS, BASE_RUN), path.join(runsDir, BASE_RUN), { recursive: true });
    mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    writeFileSync(
      path.join(workspace, '.vscode', 'settings.json'),
      // maxNewTokens is not restricted: seeing it proves the file has been read.
      JSON.stringify({
        'reachAudit.modelPath': HOSTILE_PATH,
        'reachAudit.cacheFolder': HOSTILE_PATH,
        'reachAudit.backend': 'openai',
        'reachAudit.baseUrls': [HOSTILE_SERVER],
        'reachAudit.maxNewTokens': 77,
      }),
    );
    writeFileSync(path.join(workspace, 'questions.jsonl'), `${JSON.stringify({ id: 'q0', question: 'What is 1 + 1?', answer: '#### 2' })}\n`);
    ({ api } = await activatedExtension());
  });

  test('the window really is untrusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  test('existing runs are listed and shown', async () => {
    const runs = await api.runs.refresh();
    assert.deepEqual(runs.map((r) => path.basename(r.folder)), [BASE_RUN]);
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: path.join(runsDir, BASE_RUN) });
    assert.equal(api.panel.runFolder, path.join(runsDir, BASE_RUN));
  });

  test('model and cache paths, backend and server URLs set by the workspace are ignored', async () => {
    // The settings file was written after start-up: wait until the configuration service has read it.
    const deadline = Date.now() + 20_000;
    while (vscode.workspace.getConfiguration('reachAudit').get('maxNewTokens') !== 77) {
      assert.ok(Date.now() < deadline, 'the workspace settings file was never read');
      await new Promise((r) => setTimeout(r, 200));
    }
    const config = vscode.workspace.getConfiguration('reachAudit');
    assert.notEqual(config.get('modelPath'), HOSTILE_PATH);
    assert.notEqual(config.get('cacheFolder'), HOSTILE_PATH);
    assert.notEqual(config.get('backend'), 'openai');
    assert.deepEqual(config.get('baseUrls'), []);
  });

  test('every engine command refuses and runs nothing', async () => {
    const data = path.join(workspace, 'questions.jsonl');
    const model = path.join(workspace, 'model');
    const options = { model, data, probes: ['sample:2'], limit: 1 };
    const refusals: [string, unknown][] = [
      ['reachAudit.runAudit', options],
      ['reachAudit.runAuditOnFile', vscode.Uri.file(data)],
      ['reachAudit.compareCheckpoints', { ...options, baseModel: model, tunedModel: model }],
      ['reachAudit.auditQuestion', { file: data, line: 1, options }],
      ['reachAudit.probeRoutesForQuestion', { file: data, line: 1, options }],
      ['reachAudit.silenceBlocksForQuestion', { file: data, line: 1, options }],
      ['reachAudit.explainQuestion', { file: data, line: 1 }],
      ['reachAudit.verifyRun', { runDir: path.join(runsDir, BASE_RUN) }],
      ['reachAudit.findWhereAnswerIsLost', { file: data, line: 1, options }],
      ['reachAudit.findWhereAnswerForks', { file: data, line: 1, options }],
      ['reachAudit.watchTrainingRun', { dir: workspace, data, options, untilIdle: 0 }],
      ['reachAudit.addProbesToLog', { runDir: path.join(runsDir, BASE_RUN), model, data, probes: ['sample:2'] }],
      ['reachAudit.regradeRun', { runDir: path.join(runsDir, BASE_RUN), gradeTruncated: 'strict', correctBy: 'stated' }],
    ];
    for (const [command, arg] of refusals) {
      const result = await vscode.commands.executeCommand<CommandResult>(command, arg);
      assert.equal(result?.how, 'untrusted', `${command} ran in an untrusted workspace`);
    }
    assert.equal(await vscode.commands.executeCommand('reachAudit.selectModel'), undefined);
    assert.deepEqual(readdirSync(runsDir), [BASE_RUN], 'no run folder was created');
    assert.equal(api.session.enginePid, undefined, 'no engine process was started');
  });
});
