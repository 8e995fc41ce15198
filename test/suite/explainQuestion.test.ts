/**
 * Explain This Question inside a real VS Code: an audit of a few demo questions with the repair
 * scan, then the editor command on a failure-set question's line runs `reach-audit explain` for it
 * (mechanism.jsonl gains its account) and opens the panel at it with the "Why not realized"
 * section; on a realized question it explains nothing and says so.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { ExplainOutcome } from '../../src/extension/commands/explainQuestion';
import { pageProbesAvailable, panelClick, panelEval, screenshot } from './pageProbe';
import { EXTENSION_ID } from './suiteFixtures';

interface Line {
  id: string;
  line: number;
  realized: { correct: boolean };
  repair?: { inFailureSet: boolean };
}

suite('Explain This Question', function () {
  this.timeout(240_000);
  let api: ReachAuditApi;
  let runDir: string;
  let records: Line[];
  let data: string;
  let cacheDir: string;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the launcher opens a workspace folder');
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    const demo = path.join(extension.extensionPath, 'media', 'demo');
    data = path.join(demo, 'data', 'arith-test.jsonl');
    cacheDir = path.join(folder.uri.fsPath, 'explain-suite-cache');
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model: path.join(demo, 'base'), data, limit: 12, probes: ['sample:6'], repair: true, maxNewTokens: 48, threads: 1, cacheDir, name: 'suite-explain',
    });
    assert.equal(result.how, 'done', result.message);
    runDir = result.runDir!;
    records = fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
  });

  test('on a failure-set question: writes its account and opens it in the panel', async () => {
    const target = records.find((r) => r.repair?.inFailureSet);
    assert.ok(target, 'the demo audit has a failure-set question');
    const outcome = await vscode.commands.executeCommand<ExplainOutcome>('reachAudit.explainQuestion', { file: data, line: target.line, runDir, cacheDir });
    assert.equal(outcome.how, 'done', outcome.message);
    assert.equal(outcome.id, target.id);
    const lines = fs.readFileSync(path.join(runDir, 'mechanism.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; blocks?: unknown[] });
    assert.deepEqual(lines.map((l) => l.id), [target.id]);
    assert.equal(lines[0].blocks?.length, 8);
    assert.equal(api.panel.runFolder, runDir);
    if (!pageProbesAvailable) return;
    let title: string | null = null;
    const deadline = Date.now() + 20_000;
    while (!title && Date.now() < deadline) {
      title = await panelEval<string | null>(`() => { const s = document.querySelector('.detail .mechanism'); if (s) s.scrollIntoView(); return s?.querySelector('h3')?.textContent ?? null; }`);
      if (!title) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(title?.startsWith('Why not realized'), String(title));
    // The pictures of the closing note: the section, and the map in Charts.
    await screenshot('why-not-realized');
    await panelClick('Charts');
    await screenshot('mechanism-map');
    await panelClick('Questions');
  });

  test('on a realized question: nothing to explain, nothing written', async () => {
    const realized = records.find((r) => r.realized.correct);
    assert.ok(realized);
    const before = fs.readFileSync(path.join(runDir, 'mechanism.jsonl'), 'utf8');
    const outcome = await vscode.commands.executeCommand<ExplainOutcome>('reachAudit.explainQuestion', { file: data, line: realized.line, runDir, cacheDir });
    assert.equal(outcome.how, 'not-in-failure-set');
    assert.equal(fs.readFileSync(path.join(runDir, 'mechanism.jsonl'), 'utf8'), before);
  });
});
