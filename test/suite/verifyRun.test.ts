/**
 * Verify Run inside a real VS Code: a demo audit made through the extension is verified by the
 * command (the bundled `reach-audit verify` in a child process) and the notification says it
 * reproduced; a copy with a record edited by hand is said not to, naming the question and field,
 * with Show Details. The command is in the Runs view's context menu on a finished run.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { VerifyRunOutcome } from '../../src/extension/commands/verifyRun';
import { EXTENSION_ID } from './suiteFixtures';
import { pageProbesAvailable } from './pageProbe';
import { clearNotifications, renderedNotification } from './notifications';

suite('Verify Run', function () {
  this.timeout(240_000);
  let runDir: string;
  let cacheDir: string;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the launcher opens a workspace folder');
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    await extension.activate();
    const demo = path.join(extension.extensionPath, 'media', 'demo');
    cacheDir = path.join(folder.uri.fsPath, 'verify-suite-cache');
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model: path.join(demo, 'tuned'), data: path.join(demo, 'data', 'arith-test.jsonl'), limit: 4, probes: ['sample:2'], select: ['majority'], maxNewTokens: 24, threads: 1, cacheDir, name: 'suite-verify',
    });
    assert.equal(result.how, 'done', result.message);
    runDir = result.runDir!;
  });

  test('the Runs view offers it on a finished run', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(extensionRoot(), 'package.json'), 'utf8')) as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
    const item = manifest.contributes.menus['view/item/context'].find((m) => m.command === 'reachAudit.verifyRun');
    assert.ok(item?.when?.includes('view == reachAudit.runs'), 'Verify Run is in the Runs view context menu');
  });

  test('a run made in VS Code reproduces, and the notification says so', async () => {
    await clearNotifications();
    const outcome = await vscode.commands.executeCommand<VerifyRunOutcome>('reachAudit.verifyRun', { runDir, questions: 2, cacheDir });
    assert.equal(outcome.how, 'reproduced', outcome.message);
    assert.equal(outcome.outcome?.questions, 2);
    assert.match(outcome.message ?? '', /reproduced: 2 questions of 4 \(seed 1\) audited again give byte-identical records, on the same numerics platform/);
    if (pageProbesAvailable) assert.match((await renderedNotification('reproduced: 2 questions of 4')).message, /byte-identical records/);
  });

  test('a record edited by hand: the notification names the question and the field', async () => {
    const copy = `${runDir}-edited`;
    fs.cpSync(runDir, copy, { recursive: true });
    const file = path.join(copy, 'records.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const record = JSON.parse(lines[1]) as { id: string; realized: { output: string } };
    record.realized.output += ' (edited)';
    lines[1] = JSON.stringify(record);
    fs.writeFileSync(file, lines.join('\n'));
    await clearNotifications();
    const outcome = await vscode.commands.executeCommand<VerifyRunOutcome>('reachAudit.verifyRun', { runDir: copy, questions: 4, cacheDir });
    assert.equal(outcome.how, 'differs', outcome.message);
    assert.ok(outcome.message?.includes(`${record.id}: realized.output: the run has`), outcome.message);
    if (pageProbesAvailable) {
      const shown = await renderedNotification('not reproduced: 1 of the 4 questions');
      assert.ok(shown.message.includes(`${record.id}: realized.output`), shown.message);
      assert.deepEqual(shown.buttons, ['Show Details']);
    }
  });

  test('a folder that is not a run is refused with the CLI\'s message', async () => {
    const outcome = await vscode.commands.executeCommand<VerifyRunOutcome>('reachAudit.verifyRun', { runDir: path.join(runDir, 'no-such-run') });
    assert.equal(outcome.how, 'refused');
    assert.match(outcome.message ?? '', /no such run folder/);
  });
});

function extensionRoot(): string {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension);
  return extension.extensionPath;
}
