/**
 * Explain This Question inside a real VS Code: an audit of a few demo questions with the repair
 * scan, then the editor command on a failure-set question's line runs `reach-audit explain` for it
 * (mechanism.jsonl gains its account) and opens the panel at it with the "Why not realized"
 * section scrolled into view, its per-block table whole at 1400 × 900 (walkthrough 3, point 7); on a
 * realized question it explains nothing and says so.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { ExplainOutcome } from '../../src/extension/commands/explainQuestion';
import { pageProbesAvailable, panelClick, panelEval, screenshot, setViewport } from './pageProbe';
import { workspaceFolder, activatedExtension } from './suiteFixtures';

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
    const activated = await activatedExtension();
    api = activated.api;
    const demo = activated.demo;
    data = path.join(demo, 'data', 'arith-test.jsonl');
    cacheDir = path.join(workspaceFolder(), 'explain-suite-cache');
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model: path.join(demo, 'base'), data, limit: 12, probes: ['sample:6'], repair: true, maxNewTokens: 48, threads: 1, cacheDir, name: 'suite-explain',
    });
    assert.equal(result.how, 'done', result.message);
    runDir = result.runDir!;
    records = fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
  });

  teardown(async () => {
    if (pageProbesAvailable) await setViewport(1600, 1000);
  });

  test('on a failure-set question: writes its account and opens it in the panel', async () => {
    if (pageProbesAvailable) await setViewport(1400, 900);
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
    // Where the section is, as the command left it (nothing scrolled by the test): its title at the
    // top of the detail pane, and the per-block table as wide as its box (no block cut off).
    const seen = await panelEval<{ title: string; top: number; visible: number; strip: number; box: number; blocks: number }>(`() => {
      const pane = document.querySelector('.detail');
      const s = pane?.querySelector('.mechanism');
      const box = s?.querySelector('.mech-scroll');
      if (!pane || !s || !box || pane.scrollTop === 0) return null;
      const top = s.getBoundingClientRect().top - pane.getBoundingClientRect().top;
      return { title: s.querySelector('h3').textContent, top, visible: pane.clientHeight, strip: box.scrollWidth, box: box.clientWidth, blocks: s.querySelectorAll('.mech-strip thead th').length - 1 };
    }`);
    assert.ok(seen.title.startsWith('Why not realized'), seen.title);
    assert.ok(seen.top >= -1 && seen.top < seen.visible / 3, `the section's top is ${seen.top} px into a pane ${seen.visible} px tall`);
    assert.equal(seen.blocks, 8);
    assert.ok(seen.strip <= seen.box + 1, `the per-block table is ${seen.strip} px wide in a box of ${seen.box} px`);
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
