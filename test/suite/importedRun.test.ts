/**
 * An lm-evaluation-harness log imported with the bundled CLI (`reach-audit import`) and opened the
 * way a user opens a run from elsewhere (Open Run Folder…): the panel's question table lists the
 * log's questions, and its "Interface failures" filter for the harness's strict-match reading shows
 * exactly the questions that reading scored differently from our grader (questions 2 and 5 of the
 * fixture, whose answers strict-match could not extract; test/fixtures/logs/lm-eval/README.md).
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { QuestionRecord } from '../../src/contract';
import { pageProbesAvailable, panelEval } from './pageProbe';
import { FIXTURES, activatedExtension } from './suiteFixtures';

const LOG = 'samples_gsm8k_2026-12-01T10-00-00.000000.jsonl';

suite('An imported harness log in the panel', function () {
  this.timeout(180_000);
  let api: ReachAuditApi;
  let cli: string;
  let log: string;
  let outside: string;

  // The built CLI under the extension host's own Node (Electron's binary needs ELECTRON_RUN_AS_NODE).
  const node = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [cli, ...args], { cwd: outside, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }, (err, stdout, stderr) => {
        if (err) reject(new Error(`reach-audit ${args.join(' ')}: ${err.message}\n${stderr}`));
        else resolve(stdout);
      });
    });

  suiteSetup(async () => {
    const activated = await activatedExtension();
    api = activated.api;
    cli = path.join(activated.extension.extensionPath, 'dist', 'cli.js');
    log = path.join(FIXTURES, 'logs', 'lm-eval', LOG);
    // Outside the workspace, so the other suite files see the workspace's runs unchanged.
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-imported-'));
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('reachAudit.forgetRunFolder', { runDir: path.join(outside, 'imported') });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(outside, { recursive: true, force: true });
  });

  test('Open Run Folder… on an import shows its questions; the strict-match interface-failure filter shows questions 2 and 5', async () => {
    const runDir = path.join(outside, 'imported');
    await node(['import', log, '--out', runDir]);
    const records = fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as QuestionRecord);
    assert.deepEqual(records.map((r) => r.id), ['1', '2', '3', '4', '5']);

    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const added = await vscode.commands.executeCommand<string | undefined>('reachAudit.openRunFolder', runDir);
    assert.equal(added, runDir);
    await api.panel.whenReady();
    const load = [...api.panel.sent].reverse().find((m) => m.type === 'loadRun');
    assert.ok(load && load.type === 'loadRun', 'the panel was sent a run');
    assert.deepEqual(load.run.records.map((r) => r.id), records.map((r) => r.id));
    if (!pageProbesAvailable) return; // the table itself is read in the page

    const table = await panelEval<{ ids: string[]; count: string; filters: { value: string; label: string }[] }>(`() => {
      const ids = Array.from(document.querySelectorAll('.qt-body-row:not([hidden]) .col-id')).map((e) => e.textContent);
      if (ids.length !== 5) return null;
      const filters = Array.from(document.querySelectorAll('vscode-dropdown.filter vscode-option')).map((o) => ({ value: o.getAttribute('value'), label: o.textContent }));
      return { ids, count: document.querySelector('.count')?.textContent ?? '', filters };
    }`);
    // The table's own order (its default sort) is not the file's: compare the sets.
    assert.deepEqual([...table.ids].sort(), ['1', '2', '3', '4', '5']);
    assert.equal(table.count, '5 questions');
    const failures = table.filters.filter((f) => f.value.startsWith('interface:')).sort((a, b) => a.value.localeCompare(b.value));
    assert.deepEqual(failures, [
      { value: 'interface:flexible-extract', label: 'Interface failures: harness flexible-extract and our grader disagree' },
      { value: 'interface:strict-match', label: 'Interface failures: harness strict-match and our grader disagree' },
    ]);

    // Picking a filter as the dropdown does: its value, then its change event.
    const pick = (value: string) => panelEval<{ ids: string[]; count: string }>(`(value) => {
      const box = document.querySelector('vscode-dropdown.filter');
      if (box.value !== value) { box.value = value; box.dispatchEvent(new Event('change')); }
      const count = document.querySelector('.count')?.textContent ?? '';
      if (!count.includes(' of ')) return null;
      return { ids: Array.from(document.querySelectorAll('.qt-body-row:not([hidden]) .col-id')).map((e) => e.textContent).sort(), count };
    }`, value);
    assert.deepEqual(await pick('interface:strict-match'), { ids: ['2', '5'], count: '2 of 5 questions' });
    // flexible-extract found every answer our grader found: nothing to show.
    assert.deepEqual(await pick('interface:flexible-extract'), { ids: [], count: '0 of 5 questions' });
  });
});
