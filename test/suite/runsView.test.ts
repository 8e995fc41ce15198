/**
 * The Runs view inside a real VS Code: the extension activates through its contributed view,
 * lists the fixture runs of the workspace with their names and headline numbers (counts for these
 * runs of fewer than 20 questions), and its refresh
 * command picks up a run written while VS Code is open; a run clicked in it is the one the open
 * panel and the Audit view show.
 */
import * as assert from 'node:assert/strict';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { RunsNode } from '../../src/extension/sidebar/runsView';
import { EXTENSION_ID, FIXTURE_RUNS, BASE_RUN, workspaceFolder } from './suiteFixtures';
import { pageProbesAvailable, workbenchClick } from './pageProbe';

const UNFINISHED_RUN = '2026-12-01T11-00-00Z-demo-base-rerun';
const TUNED_RUN = '2026-12-01T10-15-00Z-demo-tuned';

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function rootRows(api: ReachAuditApi): Promise<{ label: string; description: string; node: RunsNode }[]> {
  const nodes = await api.runs.getChildren();
  return nodes.map((node) => {
    const item = api.runs.getTreeItem(node);
    return { label: String(item.label), description: String(item.description), node };
  });
}

async function childRows(api: ReachAuditApi, node: RunsNode): Promise<string[]> {
  const children = await api.runs.getChildren(node);
  return children.map((child) => {
    const item = api.runs.getTreeItem(child);
    return `${String(item.label)}: ${String(item.description ?? '')}`;
  });
}

suite('Runs view', () => {
  let runsDir: string;
  let api: ReachAuditApi;

  suiteSetup(() => {
    runsDir = path.join(workspaceFolder(), '.reach-audit', 'runs');
    rmSync(runsDir, { recursive: true, force: true });
    mkdirSync(runsDir, { recursive: true });
    for (const run of [BASE_RUN, UNFINISHED_RUN]) {
      cpSync(path.join(FIXTURE_RUNS, run), path.join(runsDir, run), { recursive: true });
    }
  });

  test('the extension activates in the extension host when its view is opened', async () => {
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed in this VS Code`);
    const expectedRoot = process.env.REACH_AUDIT_EXPECT_EXTENSION_ROOT;
    if (expectedRoot) {
      // The launcher says which copy must run: the working tree, or the one installed from the .vsix.
      const actual = extension.extensionUri.fsPath;
      assert.ok(
        actual === expectedRoot || actual.startsWith(expectedRoot + path.sep),
        `extension loaded from ${actual}, expected under ${expectedRoot}`,
      );
    }
    assert.equal(extension.isActive, false, 'nothing activates the extension before its view opens (no "*" activation)');
    // Opening the activity-bar container triggers the onView activation event; nothing calls activate().
    await vscode.commands.executeCommand('workbench.view.extension.reachAudit');
    await waitFor('the extension to activate', () => (extension.isActive ? true : undefined));
    api = extension.exports;
    assert.equal(typeof api.runs.refresh, 'function', 'activate() returns the extension API');
    await waitFor('the Runs view to become visible', () => (api.runsView.visible ? true : undefined));
  });

  test('the Runs view lists a fixture run with its name and headline numbers', async () => {
    const rows = await rootRows(api);
    assert.deepEqual(
      rows.map((r) => r.label),
      ['demo-base-rerun', 'demo-base'],
      'runs are listed newest first, named without their time prefix',
    );
    const base = rows[1];
    // The numbers of the fixture run as `reach-audit report` prints them (test/fixtures/runs/README.md),
    // as counts: 8 questions are fewer than the 20 from which rates and intervals are shown.
    assert.equal(base.description, 'realized 4 of 8 · reachable sample 4 of 8, routes 2 of 8');
    assert.deepEqual(await childRows(api, base.node), [
      'Counted: n = 8 questions · counted, not rated (rates with 95% intervals from 20 questions on)',
      'Realized: 4 of 8',
      'Reachable · sample: 4 of 8',
      'Reachable · routes: 2 of 8',
      'Reachable · any probe: 5 of 8',
      'Answer-blind · sample · majority: 3 of 8',
      'Answer-blind · sample · confidence: 3 of 8',
      'Answer-blind · routes · majority: 2 of 8',
      'Answer-blind · routes · confidence: 2 of 8',
      // The audit chose block 4 on the one-question selection half; the held-out half is empty (null in summary.json).
      'Repair: block 4 · failure set 1 · no held-out question to score it on · damage 0 of 4',
      // Then the questions, grouped from records.jsonl: the failure set and each state.
      'Failure set: 1 question',
      'Questions · Realized: 4 questions',
      'Questions · Reachable, not realized: 1 question',
      'Questions · Unreached: 3 questions',
    ]);
    // A run that is still being written (torn last line) shows how far it got, and the numbers of
    // its finished questions: the ones the panel shows for them (no summary.json yet).
    assert.equal(rows[0].description, 'unfinished · realized 2 of 3 · reachable sample 1 of 3, routes 1 of 3');
    assert.deepEqual(await childRows(api, rows[0].node), [
      'Unfinished: 3 questions recorded, no summary.json yet; the numbers are over the 3 finished',
      'Counted: n = 3 questions · counted, not rated (rates with 95% intervals from 20 questions on)',
      'Realized: 2 of 3',
      'Reachable · sample: 1 of 3',
      'Reachable · routes: 1 of 3',
      'Reachable · any probe: 2 of 3',
      'Answer-blind · sample · majority: 1 of 3',
      'Answer-blind · sample · confidence: 1 of 3',
      'Answer-blind · routes · majority: 1 of 3',
      'Answer-blind · routes · confidence: 1 of 3',
      'Failure set: 0 questions',
      'Questions · Realized: 2 questions',
      'Questions · Unreached: 1 question',
    ]);
  });

  test('the refresh command picks up a run added while VS Code is open', async () => {
    const before = (await api.runs.runs()).map((r) => r.name);
    assert.ok(!before.includes('demo-tuned'), 'the tuned run is not there before it is written');

    cpSync(path.join(FIXTURE_RUNS, TUNED_RUN), path.join(runsDir, TUNED_RUN), { recursive: true });
    const shown = await vscode.commands.executeCommand<readonly { name: string }[]>('reachAudit.refreshRuns');
    assert.deepEqual(
      shown.map((r) => r.name),
      ['demo-base-rerun', 'demo-tuned', 'demo-base'],
    );
    const tuned = (await rootRows(api)).find((r) => r.label === 'demo-tuned');
    assert.ok(tuned, 'the view lists the new run');
    assert.equal(tuned.description, 'realized 3 of 8 · reachable sample 5 of 8, routes 2 of 8');
  });

  test('a run clicked in the Runs view: the open panel and the Audit view both follow it', async function () {
    if (!pageProbesAvailable) this.skip(); // the click is the user's, on the rendered tree
    const base = path.join(runsDir, BASE_RUN);
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: base });
    assert.equal(api.panel.runFolder, base);
    await vscode.commands.executeCommand('reachAudit.runs.focus');
    for (const [label, folder] of [['demo-tuned', TUNED_RUN], ['demo-base-rerun', UNFINISHED_RUN]]) {
      const target = path.join(runsDir, folder);
      // The click is the user's, on the Runs view's row (rows in the side bar only: a notification or
      // another list may name the run too). A click that selects nothing (the tree rendering its rows
      // again as the click lands, under load) is repeated; once the row is selected, the panel must
      // follow, whatever the number of clicks it took.
      const selectedLabels = () => api.runsView.selection.map((n) => String(api.runs.getTreeItem(n).label));
      let clicked = await workbenchClick('.part.sidebar .monaco-list-row', label);
      for (let again = 0; again < 2; again++) {
        const selected = await waitFor(`${label} selected`, () => (selectedLabels().includes(label) ? true : undefined), 5_000).then(() => true, () => false);
        if (selected) break;
        clicked = await workbenchClick('.part.sidebar .monaco-list-row', label);
      }
      await waitFor(`the panel on ${label}`, () => (api.panel.runFolder === target ? true : undefined)).catch((err: Error) => {
        // Say what the click reached and where each surface stands, so that a failure here can be read.
        throw new Error(`${err.message}; clicked ${JSON.stringify(clicked)}; selected [${selectedLabels().join(', ')}]; panel open ${api.panel.open}, on ${api.panel.runFolder ?? 'nothing'}; in view ${api.inView.folder ?? 'nothing'}`);
      });
      await waitFor(`the Audit view on ${label}`, () => (api.auditView.html.includes(`<h2>${label}</h2>`) ? true : undefined));
    }
    // The next suites start with nothing selected: the Audit view shows the newest run, a live one included.
    await vscode.commands.executeCommand('reachAudit.runs.focus');
    await vscode.commands.executeCommand('list.clear');
    await waitFor('the selection cleared', () => (api.runsView.selection.length === 0 ? true : undefined));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
