/**
 * The question table stays visible (walkthrough 3, point 3): after Try It on the Bundled Demo (a
 * comparison of 8 questions, told as stories above the table, with the dataset beside the panel) at
 * 1400 × 900, and at 1000 × 800, the table's viewport keeps a usable height (the story above it
 * and the comparison in its own tab), and no verdict of the comparison is cut at its edge.
 *
 * Its runs write outside .reach-audit/runs, so the other files see the workspace's runs unchanged.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable, panelEval, screenshot, setViewport } from './pageProbe';
import { freshSuiteFolder, activatedExtension } from './suiteFixtures';

/** The least height, in CSS px, of table a user can work in (about seven rows). */
const USABLE = 200;

interface Layout {
  table: number;
  window: { width: number; height: number };
  compareOpen: boolean;
  /** Verdict cells whose text runs past what the comparison shows (px beyond its right edge). */
  cutVerdicts: { text: string; beyond: number }[];
  panelWidth: number;
  verdicts: number;
}

/**
 * Page-side (the audit panel): where the verdicts end in the Comparison tab, then the table
 * viewport's height in the Questions tab (each clicked as a user does), once the comparison is drawn.
 */
const LAYOUT = `() => {
  const viewport = document.querySelector('.qt-viewport');
  const verdicts = Array.from(document.querySelectorAll('.compare-deltas td.verdict'));
  if (!viewport || verdicts.length === 0 || document.querySelectorAll('.qt-row').length === 0) return null;
  document.getElementById('tab-comparison').click();
  const body = document.querySelector('.compare-body').getBoundingClientRect();
  const right = Math.min(body.right, document.documentElement.clientWidth);
  const cutVerdicts = verdicts.map((v) => ({ text: v.textContent, beyond: Math.round(Math.max(v.getBoundingClientRect().right - right, body.left - v.getBoundingClientRect().left)) })).filter((v) => v.beyond > 1);
  const compareOpen = !document.querySelector('.compare').hidden && body.height > 0;
  document.getElementById('tab-questions').click();
  return {
    table: viewport.clientHeight,
    window: { width: window.innerWidth, height: window.innerHeight },
    panelWidth: document.documentElement.clientWidth,
    compareOpen,
    verdicts: verdicts.length,
    cutVerdicts,
  };
}`;

suite('The question table keeps a usable height', function () {
  this.timeout(240_000);
  let root: string;

  suiteSetup(async () => {
    root = freshSuiteFolder('table-height-suite', { create: false });
    // Try It reveals the data beside the panel only when the panel shows: start from no editors, whatever the file before left.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await activatedExtension();
  });

  suiteTeardown(async () => {
    if (pageProbesAvailable) await setViewport(1600, 1000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('after Try It on the Bundled Demo, at 1400 × 900 and 1000 × 800, with the dataset beside it and the comparison open', async function () {
    if (!pageProbesAvailable) this.skip(); // measured in the rendered page
    await setViewport(1400, 900);
    // The Explorer beside, the chat's secondary side bar closed (code-server opens it; desktop VS Code need not).
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.tryDemo', { out: path.join(root, 'demo') });
    assert.equal(result.how, 'done', result.message);
    // The dataset beside the panel, as Try It leaves it.
    assert.ok(vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath.endsWith('arith-test.jsonl')), 'the demo data is open beside the panel');
    for (const [width, height] of [[1400, 900], [1000, 800]]) {
      await setViewport(width, height);
      // A resize settles in a frame or two: ask until the page has the new size.
      const layout = await panelEval<Layout>(`() => { const l = (${LAYOUT})(); return l && Math.abs(l.window.height - window.innerHeight) < 1 ? l : null; }`);
      await screenshot(`table-height-${width}x${height}`);
      assert.ok(layout.compareOpen, 'the comparison shows in its tab');
      assert.ok(layout.table >= USABLE, `at ${width}×${height} (the panel ${layout.panelWidth} px wide) the table's viewport is ${layout.table} px tall`);
      assert.ok(layout.verdicts >= 4, `a verdict per compared rate: ${layout.verdicts}`);
      assert.deepEqual(layout.cutVerdicts, [], `at ${width}×${height} verdicts cut at the comparison's edge`);
    }
  });
});
