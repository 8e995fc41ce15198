/**
 * One run in view everywhere: a run opened with Open Run Folder… is the one the panel, the Audit
 * view, the dataset's gutter marks, the hover and the cursor line's state all show, even where a
 * newer one-question run of the same dataset exists; Explain This Question on one of its lines
 * keeps the panel on it; a one-question run that comes in view takes every surface with it; and the
 * run folder deleted while in view leaves all of them at once (walkthrough 4, points 1, 8 and 10).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { ExplainOutcome } from '../../src/extension/commands/explainQuestion';
import { BASE_RUN, EXTENSION_ID, FIXTURE_RUNS, until } from './suiteFixtures';
import { reachAuditHover } from './questionHover';

const ONE_QUESTION_RUN = '2026-12-02T09-00-00Z-one-question';

/** The lines (1-based) the gutter marks in `file`, all states together. */
function markedLines(api: ReachAuditApi, file: string): number[] | undefined {
  const applied = api.gutter.applied.get(file);
  return applied && Object.values(applied).flat().map((l) => l + 1).sort((a, b) => a - b);
}

suite('One run in view everywhere', function () {
  this.timeout(120_000);
  let api: ReachAuditApi;
  let project: string;
  let baseRun: string;
  let oneRun: string;
  let data: string;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    // A project outside the workspace (its runs stay out of the other suites' Runs view): the
    // 8-question fixture run, and a newer one-question run of the same dataset.
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-in-view-'));
    const runs = path.join(project, '.reach-audit', 'runs');
    baseRun = path.join(runs, BASE_RUN);
    oneRun = path.join(runs, ONE_QUESTION_RUN);
    fs.cpSync(path.join(FIXTURE_RUNS, BASE_RUN), baseRun, { recursive: true });
    fs.mkdirSync(oneRun, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(baseRun, 'manifest.json'), 'utf8')) as { name: string; createdAt: string };
    fs.writeFileSync(path.join(oneRun, 'manifest.json'), JSON.stringify({ ...manifest, name: 'one-question', createdAt: '2026-12-02T09:00:00.000Z' }, null, 2));
    fs.writeFileSync(path.join(oneRun, 'records.jsonl'), `${fs.readFileSync(path.join(baseRun, 'records.jsonl'), 'utf8').split('\n')[0]}\n`);
    data = path.join(project, 'media', 'demo', 'data', 'arith-test.jsonl');
    fs.mkdirSync(path.dirname(data), { recursive: true });
    fs.copyFileSync(path.join(extension.extensionPath, 'media', 'demo', 'data', 'arith-test.jsonl'), data);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('reachAudit.forgetRunFolder', { runDir: project });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(project, { recursive: true, force: true });
  });

  test('Open Run Folder…: the panel, the Audit view, the gutter, the hover and the cursor line show the opened run', async () => {
    await vscode.commands.executeCommand('reachAudit.openRunFolder', project);
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: oneRun });
    // The project holds two runs of the dataset; Open Run Folder… on the older, larger one puts it in view.
    await vscode.commands.executeCommand('reachAudit.openRunFolder', baseRun);
    assert.equal(api.panel.runFolder, baseRun);
    await until('the Audit view on demo-base', () => (api.auditView.html.includes('<h2>demo-base</h2>') ? true : undefined), 10_000);
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(data), { viewColumn: vscode.ViewColumn.One, preserveFocus: false });
    const lines = await until('the gutter marks', () => {
      const marked = markedLines(api, data);
      return marked && marked.length > 1 ? marked : undefined;
    }, 10_000).catch(() => markedLines(api, data));
    assert.deepEqual(lines, [1, 2, 3, 4, 5, 6, 7, 8], 'the gutter marks the 8 questions of the run in view, not the one of the newer one-question run');
    const hover = await reachAuditHover(editor.document.uri, 4);
    assert.ok(hover?.includes(`run ${BASE_RUN}`), hover);
    editor.selection = new vscode.Selection(6, 0, 6, 0);
    const shown = await until('the cursor line state', () => (api.cursorLine.shown?.line === 6 ? api.cursorLine.shown : undefined), 10_000);
    assert.match(shown.text, /^Reach Audit: /);
  });

  test('Explain This Question on a line of the run in view keeps every surface on it', async () => {
    // Line 1 is in both runs (realized: nothing to explain, so no model loads); the newer
    // one-question run used to win and take the panel.
    const outcome = await vscode.commands.executeCommand<ExplainOutcome>('reachAudit.explainQuestion', { file: data, line: 1 });
    assert.equal(outcome.how, 'not-in-failure-set');
    assert.equal(outcome.runDir, baseRun);
    assert.equal(api.panel.runFolder, baseRun);
    assert.ok(api.auditView.html.includes('<h2>demo-base</h2>'));
    assert.equal(markedLines(api, data)?.length, 8);
  });

  test('a one-question run shown in the panel comes in view everywhere; the run before it comes back', async () => {
    await vscode.commands.executeCommand('reachAudit.showQuestion', { runDir: oneRun, id: 'arith-A00-0000' });
    assert.equal(api.panel.runFolder, oneRun);
    await until('the Audit view on one-question', () => (api.auditView.html.includes('<h2>one-question</h2>') ? true : undefined), 10_000);
    // The gutter marks a dataset in a visible editor: the panel may have taken the dataset's group
    // (under load the panel's reveal can come after the dataset's), so the dataset beside it again.
    const datasetBeside = async () => {
      if (!vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === data)) await vscode.window.showTextDocument(vscode.Uri.file(data), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
    };
    await datasetBeside();
    await until('the gutter on the one-question run', () => (markedLines(api, data)?.join(',') === '1' ? true : undefined), 10_000).catch((err: Error) => {
      throw new Error(`${err.message}: marks ${JSON.stringify(markedLines(api, data))}, panel ${api.panel.runFolder}, editors ${vscode.window.visibleTextEditors.map((e) => e.document.uri.fsPath).join(', ')}`);
    });
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: baseRun });
    await datasetBeside();
    await until('the gutter back on demo-base', () => (markedLines(api, data)?.length === 8 ? true : undefined), 10_000).catch((err: Error) => {
      throw new Error(`${err.message}: marks ${JSON.stringify(markedLines(api, data))}, panel ${api.panel.runFolder}, editors ${vscode.window.visibleTextEditors.map((e) => e.document.uri.fsPath).join(', ')}`);
    });
    await until('the Audit view back on demo-base', () => (api.auditView.html.includes('<h2>demo-base</h2>') ? true : undefined), 10_000);
  });

  test('the run folder deleted while in view leaves the panel, the Audit view and the marks at once', async () => {
    assert.equal(api.panel.runFolder, baseRun);
    fs.rmSync(baseRun, { recursive: true, force: true });
    await until('the panel closed', () => (!api.panel.open && api.panel.runFolder === undefined ? true : undefined), 10_000);
    await until('the Audit view saying so', () => (api.auditView.html.includes(`${BASE_RUN} was deleted.`) ? true : undefined), 10_000);
    // Not the other run of the dataset: no marks until a run comes in view again.
    await until('no marks', () => (markedLines(api, data)?.length === 0 ? true : undefined), 10_000);
    const refreshed = await vscode.commands.executeCommand<readonly { folder: string }[]>('reachAudit.refreshRuns');
    assert.ok(!refreshed.some((r) => r.folder === baseRun));
    assert.ok(api.auditView.html.includes(`${BASE_RUN} was deleted.`), 'Refresh does not jump the Audit view to another run');
  });
});
