/**
 * A run that skipped its questions is not a result (walkthrough 3, point 1): the demo model's
 * context is 512 tokens and every 8-shot gsm8k prompt is about 1,546, so an audit with that preset
 * records every question as skipped. VS Code says how many were audited and why the others were
 * not, in a notification and in the panel's status line, instead of "Done · 3 questions".
 *
 * Its audit writes outside .reach-audit/runs, so the other files see the workspace's runs unchanged.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable, panelEval } from './pageProbe';
import { clearNotifications, renderedNotification } from './notifications';
import { freshSuiteFolder, activatedExtension } from './suiteFixtures';

const SKIPPED = /^0 of 3 questions audited — 3 skipped: prompt \+ max new tokens longer than the model's context \(the shortest: 1,545 \+ 64 > 512 tokens\)$/;

suite('A run that skipped every question', function () {
  this.timeout(120_000);
  let api: ReachAuditApi;
  let root: string;
  let demo: string;

  suiteSetup(async () => {
    root = freshSuiteFolder('skipped-suite');
    ({ api, demo } = await activatedExtension());
  });

  test('says how many were audited and why not the rest: in a notification and the panel, not "Done · 3 questions"', async () => {
    const data = path.join(root, 'arith-3.jsonl');
    const lines = fs.readFileSync(path.join(demo, 'data', 'arith-test.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
    fs.writeFileSync(data, lines.slice(0, 3).join('\n') + '\n');
    await clearNotifications();
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model: path.join(demo, 'base'), data, preset: 'gsm8k-cot-8shot', probes: ['sample:2'], maxNewTokens: 64, threads: 1,
      name: 'skipped-8shot', out: path.join(root, 'runs', 'skipped-8shot'),
    });
    assert.equal(result.how, 'done', result.message);
    assert.ok(result.skipped, 'a notification for the skipped questions');
    const said = result.skipped.replace(/^Reach Audit: /, '').replace(/\. The prompt alone.*$/, '');
    assert.match(said, SKIPPED);
    // The prompt alone overflows the context: no token budget helps, so none is offered.
    assert.match(result.skipped, /The prompt alone \(1,545 tokens\) is longer than the model's context \(512\), so fewer max new tokens cannot help: a shorter prompt \(fewer few-shot examples: another preset\), reachAudit\.truncatePrompt "left".*longer context/);
    assert.equal(api.panel.runFolder, result.runDir);
    if (!pageProbesAvailable) return;
    const shown = await renderedNotification('0 of 3 questions audited');
    assert.equal(shown.message, result.skipped);
    assert.deepEqual(shown.buttons, ['Open Settings', 'Show Log']);
    const status = await panelEval<string>(`() => { const t = document.querySelector('.run-status .status-text')?.textContent ?? ''; return t.startsWith('Running') || t === '' ? null : t; }`);
    assert.match(status.replace(/^Nothing audited · /, ''), SKIPPED, status);
    assert.ok(status.startsWith('Nothing audited · '), status);
  });
});
