/**
 * A parquet benchmark inside a real VS Code: Run Reachability Audit on a .parquet file audits it
 * (each record keeps its file and row), and opening a question in its dataset shows that row,
 * read-only, as JSON beside the panel (a parquet file is not text). The explorer's context menu
 * offers the command on a .parquet file, and the command given the file's Uri (as the explorer
 * passes it) audits that file after the pickers, which the test answers by typing into them.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { QuestionRecord } from '../../src/contract';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { FIXTURES, workspaceFolder, activatedExtension } from './suiteFixtures';
import { commandThroughPickers, pageProbesAvailable } from './pageProbe';

interface MenuEntry {
  command: string;
  when?: string;
}

suite('Parquet benchmarks', function () {
  this.timeout(240_000);
  let api: ReachAuditApi;
  let root: string;
  let data: string;
  let jsonl: string;
  let extension: vscode.Extension<ReachAuditApi>;

  suiteSetup(async () => {
    ({ api, extension } = await activatedExtension());
    data = path.join(FIXTURES, 'parquet', 'gsm8k-test.parquet');
    jsonl = path.join(FIXTURES, 'benchmarks', 'gsm8k-test-sample.jsonl');
    root = path.join(workspaceFolder(), 'parquet-suite');
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

  test("the explorer's Run Reachability Audit on This File, given a .parquet file's Uri, audits its rows after the pickers", async function () {
    const menu = (extension.packageJSON as { contributes: { menus: Record<string, MenuEntry[]> } }).contributes.menus['explorer/context'];
    const entry = menu.find((m) => m.command === 'reachAudit.runAuditOnFile');
    assert.ok(entry, 'the explorer context menu has the command');
    assert.match(entry.when ?? '', /resourceExtname == \.parquet\b/, 'offered on a .parquet file');
    if (!pageProbesAvailable) this.skip(); // the answers are typed into VS Code's pickers

    // A parquet file in the workspace, where the explorer shows it.
    const file = path.join(root, 'explorer', 'gsm8k-test.parquet');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(data, file);
    const config = vscode.workspace.getConfiguration('reachAudit');
    const settings: Record<string, unknown> = { modelPath: path.join(root, 'model'), defaultProbes: ['sample:2'], selectors: ['majority'], maxNewTokens: 4, threads: 1, cacheFolder: path.join(root, 'cache') };
    for (const [key, value] of Object.entries(settings)) await config.update(key, value, vscode.ConfigurationTarget.Workspace);
    try {
      // No dataset picker: the file is the dataset; the model comes from the setting.
      const result = await commandThroughPickers(() => vscode.commands.executeCommand<CommandResult>('reachAudit.runAuditOnFile', vscode.Uri.file(file)), [
        ['Reach Audit: probes', ''], // the probes offered (sample, from the setting)
        ['budget per probe', '2'],
        ['answer-blind selection', ''], // the selectors offered
        ['questions of gsm8k-test.parquet', 'First N'],
        ['first N questions', '2'],
        ['options of this run', ''], // Enter starts
      ]);
      assert.equal(result.how, 'done', result.message);
      const records = fs.readFileSync(path.join(result.runDir!, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as QuestionRecord);
      assert.deepEqual(records.map((r) => r.place), [{ file: 'gsm8k-test.parquet', row: 0 }, { file: 'gsm8k-test.parquet', row: 1 }]);
      // The rows' questions, as the JSONL sample they were written from has them.
      const rows = fs.readFileSync(jsonl, 'utf8').split('\n').slice(0, 2).map((l) => JSON.parse(l) as { question: string });
      assert.deepEqual(records.map((r) => r.question), rows.map((r) => r.question));
      const budgets = records.flatMap((r) => Object.values(r.probes).map((p) => p?.budget));
      assert.ok(budgets.length > 0 && budgets.every((b) => b === 2), `every probe at the budget typed: ${budgets.join(', ')}`);
    } finally {
      for (const key of Object.keys(settings)) await config.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
