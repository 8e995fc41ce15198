/**
 * A parquet benchmark inside a real VS Code: Run Reachability Audit on a .parquet file audits it
 * (each record keeps its file and row), and opening a question in its dataset shows that row,
 * read-only, as JSON beside the panel (a parquet file is not text).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { QuestionRecord } from '../../src/contract';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { EXTENSION_ID } from './suiteFixtures';

suite('Parquet benchmarks', function () {
  this.timeout(240_000);
  let api: ReachAuditApi;
  let root: string;
  let data: string;
  let jsonl: string;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the launcher opens a workspace folder');
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    data = path.join(extension.extensionPath, 'test', 'fixtures', 'parquet', 'gsm8k-test.parquet');
    jsonl = path.join(extension.extensionPath, 'test', 'fixtures', 'benchmarks', 'gsm8k-test-sample.jsonl');
    root = path.join(folder.uri.fsPath, 'parquet-suite');
    writeRandomModel(path.join(root, 'model'), SMALL_SPECS.llama);
  });

  test("audits a .parquet file; a question's row opens read-only as JSON", async () => {
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model: path.join(root, 'model'), data, limit: 2, probes: ['sample:2'], maxNewTokens: 4, threads: 1, name: 'suite-parquet', out: path.join(root, 'runs', 'parquet'), cacheDir: path.join(root, 'cache'),
    });
    assert.equal(result.how, 'done', result.message);
    const records = fs.readFileSync(path.join(result.runDir!, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as QuestionRecord);
    assert.deepEqual(records.map((r) => r.place), [{ file: 'gsm8k-test.parquet', row: 0 }, { file: 'gsm8k-test.parquet', row: 1 }]);

    const editor = await api.panel.showRow(data, records[1].place!);
    assert.ok(editor, 'the row opened');
    assert.equal(editor.document.uri.scheme, 'reach-audit-row');
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString() ?? editor.document.uri.toString(), editor.document.uri.toString());
    const [header, ...json] = editor.document.getText().split('\n');
    assert.equal(header, '// gsm8k-test.parquet, row 1 (0-based), read-only: a parquet file is not text');
    // The same row as the JSONL sample it was written from (test/fixtures/parquet/README.md).
    const second = JSON.parse(fs.readFileSync(jsonl, 'utf8').split('\n')[1]) as Record<string, unknown>;
    assert.deepEqual(JSON.parse(json.join('\n')), second);
  });
});
