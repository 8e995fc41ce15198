/**
 * Run Reachability Audit never ends without a word: its pickers stay open while the focus moves (an
 * editor, a notice or a panel taking it used to close the picker, and the command ended with no
 * next picker and no message), and a picker closed on purpose says in the status bar which step
 * ended the command.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable, workbenchEval } from './pageProbe';
import { activatedExtension } from './suiteFixtures';

/** Page-side: whether the quick input titled `arg` is shown now (false, not null: answers at once). */
const PICKER_SHOWN = `(title) => { const w = document.querySelector('.quick-input-widget'); return Boolean(w && w.offsetParent !== null && w.style.display !== 'none' && (w.querySelector('.quick-input-title')?.textContent ?? '').includes(title)); }`;

/** Page-side: the status bar's text once it contains `arg`; null until then. */
const STATUS_SAYS = `(text) => { const t = document.querySelector('.part.statusbar')?.textContent ?? ''; return t.includes(text) ? t : null; }`;

suite('Run Audit ends with a word', function () {
  this.timeout(120_000);

  suiteSetup(async () => {
    await activatedExtension();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('the dataset picker stays open when an editor takes the focus; closing it names the step in the status bar', async function () {
    if (!pageProbesAvailable) this.skip();
    let ended: CommandResult | undefined;
    const running = Promise.resolve(vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit')).then((r) => (ended = r));
    await workbenchEval<boolean>(`(t) => (${PICKER_SHOWN})(t) || null`, 'Reach Audit: dataset', 60_000);

    // Something else takes the focus while the picker waits (as a notice, a panel or an editor opened late does).
    const doc = await vscode.workspace.openTextDocument({ content: 'not a dataset\n' });
    await vscode.window.showTextDocument(doc, { preserveFocus: false });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(ended, undefined, `the command ended when the focus moved: ${JSON.stringify(ended)}`);
    assert.equal(await workbenchEval<boolean>(PICKER_SHOWN, 'Reach Audit: dataset'), true, 'the dataset picker closed when the focus moved');

    // Closed on purpose: the command ends, and says at which step.
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    const result = await running;
    assert.equal(result.how, 'dismissed');
    assert.match(result.message ?? '', /ended at the dataset step/);
    const status = await workbenchEval<string>(STATUS_SAYS, 'ended at the dataset step', 10_000);
    assert.match(status, /nothing was started/);
  });
});
