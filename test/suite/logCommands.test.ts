/**
 * No trip to the terminal for a harness log (walkthrough 4): an lm-eval log imported in VS Code is
 * offered Add Probes to This Log… (the Runs view's menu on imported runs only, and the panel's note),
 * which audits the demo model on the log's outputs (`--realized-from` the imported run) through the
 * same session as Run Audit, opens the new run in view, and resumes from VS Code once stopped;
 * Regrade Run… grades a run again with other rules into a new run in view and says how many
 * verdicts changed, or names the missing file with the fix; Export Results writes the HTML report.
 *
 * The log is written here: the first five demo questions, their logged prompt the question itself
 * (the last user message of the demo's chat deployment, as a harness that logs messages keeps it),
 * three worked solutions, one answer without the "#### N" marker and one wrong answer.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { ImportOutcome } from '../../src/extension/commands/importLog';
import type { RegradeOutcome } from '../../src/extension/commands/regradeRun';
import type { QuestionRecord } from '../../src/contract';
import { activatedExtension, freshSuiteFolder, manifestOf } from './suiteFixtures';
import { clearNotifications, renderedNotification } from './notifications';
import { pageProbesAvailable, panelClick, panelEval, workbenchEval } from './pageProbe';

const QUESTIONS = 5;

/** Page-side: whether the quick input titled `arg` is shown now. */
const PICKER_SHOWN = `(title) => { const w = document.querySelector('.quick-input-widget'); return Boolean(w && w.offsetParent !== null && w.style.display !== 'none' && (w.querySelector('.quick-input-title')?.textContent ?? '').includes(title)) || null; }`;

function recordsOf(runDir: string): QuestionRecord[] {
  return fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

/** An lm-eval samples file of the first QUESTIONS rows of `rows`, and the outputs it logs. */
function writeLog(file: string, rows: { id: string; question: string; answer: string }[]): string[] {
  const outputs = rows.map((r, i) => {
    const gold = r.answer.split('#### ').pop() ?? '';
    // Question 2 states its answer without the marker (stated: correct; strict: not); question 4 is wrong.
    return i === 1 ? `The total is ${gold}.` : i === 3 ? '#### 0' : r.answer;
  });
  const lines = rows.map((r, i) => {
    const extracted = outputs[i].includes('#### ') ? outputs[i].split('#### ').pop() : '[invalid]';
    const gold = r.answer.split('#### ').pop();
    return JSON.stringify({
      doc_id: i,
      doc: r,
      target: r.answer,
      arguments: { gen_args_0: { arg_0: r.question, arg_1: { until: ['</s>'], do_sample: false, temperature: 0 } } },
      resps: [[outputs[i]]],
      filtered_resps: [extracted],
      filter: 'strict-match',
      metrics: ['exact_match'],
      exact_match: extracted === gold ? 1 : 0,
    });
  });
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return outputs;
}

suite('Add Probes to This Log… and Regrade Run…', function () {
  this.timeout(240_000);
  let api: ReachAuditApi;
  let demo: string;
  let root: string;
  let data: string;
  let log: string;
  let logged: string[];
  let imported: string;
  let probed: string | undefined;
  const made: string[] = [];

  suiteSetup(async () => {
    ({ api, demo } = await activatedExtension());
    root = freshSuiteFolder('log-commands');
    const rows = fs.readFileSync(path.join(demo, 'data', 'arith-test.jsonl'), 'utf8').split('\n').filter((l) => l !== '').slice(0, 8).map((l) => JSON.parse(l) as { id: string; question: string; answer: string });
    // The benchmark holds more questions than the log: the audit asks the log's.
    data = path.join(root, 'arith.jsonl');
    fs.writeFileSync(data, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    log = path.join(root, 'samples_arith_2026-12-07T10-00-00.000000.jsonl');
    logged = writeLog(log, rows.slice(0, QUESTIONS));
    const outcome = await vscode.commands.executeCommand<ImportOutcome>('reachAudit.importLog', vscode.Uri.file(log));
    assert.equal(outcome.how, 'done', outcome.message);
    assert.ok(outcome.runDir);
    imported = outcome.runDir;
    made.push(imported);
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const f of made) fs.rmSync(f, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
    await vscode.commands.executeCommand('reachAudit.refreshRuns');
  });

  test("the Runs view's row of an imported run offers Add Probes to This Log…; a run made by an audit does not", async () => {
    const runs = await api.runs.refresh();
    const entry = runs.find((r) => r.folder === imported);
    assert.ok(entry, 'the Runs view lists the imported run');
    const item = api.runs.getTreeItem({ kind: 'run', run: entry });
    assert.equal(item.contextValue, 'reachAudit.run.imported');
    const other = runs.find((r) => r.folder !== imported && r.finished);
    if (other) assert.equal(api.runs.getTreeItem({ kind: 'run', run: other }).contextValue?.includes('.imported'), false);
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('reachAudit.addProbesToLog') && commands.includes('reachAudit.regradeRun'));
  });

  test("the panel of an imported run says no probe ran and its Add Probes button starts the command's model step", async function () {
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: imported });
    await api.panel.whenReady();
    assert.equal(api.panel.runFolder, imported);
    if (!pageProbesAvailable) this.skip();
    const note = await panelEval<string>(`() => { const n = document.querySelector('.imported-note'); return n && !n.hidden && n.offsetParent !== null ? n.textContent : null; }`);
    assert.match(note, /Imported from lm-evaluation-harness's log: .*not probed/);
    await panelClick('Add Probes to This Log…');
    assert.equal(await workbenchEval<boolean>(PICKER_SHOWN, 'was made with', 30_000), true, 'the model picker of Add Probes did not open');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });

  test("Add Probes runs the demo model's probes on the log's questions, its outputs the log's, and puts the new run in view", async () => {
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.addProbesToLog', {
      runDir: imported,
      model: path.join(demo, 'tuned'),
      data,
      probes: ['sample:2'],
      options: { maxNewTokens: 64, backend: 'local' },
    });
    assert.equal(result.how, 'done', result.message);
    assert.ok(result.runDir && result.runDir !== imported);
    probed = result.runDir;
    made.push(probed);
    const manifest = manifestOf(probed);
    assert.equal(manifest.realizedFrom?.source, imported, 'the manifest names the imported run as the source of the realized outputs');
    assert.equal(manifest.realizedFrom?.tool, 'lm-evaluation-harness');
    assert.equal(manifest.selection.limit, QUESTIONS, "the log's questions: the benchmark's first five");
    const records = recordsOf(probed);
    assert.deepEqual(records.map((r) => r.realized.output), logged, "realized is the log's output");
    assert.deepEqual(records.map((r) => r.realized.correct), [true, true, true, false, true]);
    for (const r of records) {
      assert.equal(r.probes.sample?.attempts.length, 2, `question ${r.id}: the sample probe ran on the model`);
      assert.equal(r.realized.cost?.generations ?? 0, 0, 'nothing generated for the deployment');
    }
    // In view everywhere: the panel, the Audit view's run, the Runs view's list.
    assert.equal(api.panel.runFolder, probed);
    assert.equal(api.inView.folder, path.resolve(probed));
    assert.ok((await api.runs.refresh()).some((r) => r.folder === probed), 'the Runs view lists the new run');
  });

  test('the run Add Probes started resumes from VS Code to the records of the uninterrupted run', async () => {
    assert.ok(probed, 'the Add Probes test ran first');
    const whole = fs.readFileSync(path.join(probed, 'records.jsonl'), 'utf8');
    // Stopped after two questions: its summary gone, three records lost.
    fs.writeFileSync(path.join(probed, 'records.jsonl'), whole.split('\n').slice(0, 2).join('\n') + '\n');
    fs.rmSync(path.join(probed, 'summary.json'));
    fs.rmSync(path.join(probed, 'failure-set.jsonl'), { force: true });
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.resumeRun', probed);
    assert.equal(result.how, 'done', result.message);
    assert.ok(fs.existsSync(path.join(probed, 'summary.json')));
    const sorted = (text: string) => text.split('\n').filter((l) => l !== '').sort();
    assert.deepEqual(sorted(fs.readFileSync(path.join(probed, 'records.jsonl'), 'utf8')), sorted(whole));
  });

  test('Regrade Run… grades the log again (correct by the marker only) into a new run in view, and says how many verdicts changed', async () => {
    await clearNotifications();
    const result = await vscode.commands.executeCommand<RegradeOutcome>('reachAudit.regradeRun', { runDir: imported, gradeTruncated: 'strict', correctBy: 'strict' });
    assert.equal(result.how, 'done', result.message);
    assert.ok(result.runDir && fs.existsSync(path.join(result.runDir, 'summary.json')));
    made.push(result.runDir);
    const manifest = manifestOf(result.runDir);
    assert.equal(manifest.regradedFrom, path.resolve(imported));
    assert.equal(manifest.grading?.correctBy, 'strict');
    // Question 2 stated its answer without the marker: correct before, not now.
    assert.equal(result.changed, 1);
    assert.deepEqual(recordsOf(result.runDir).map((r) => r.realized.correct), [true, false, true, false, true]);
    assert.equal(api.panel.runFolder, result.runDir);
    assert.ok((await api.runs.refresh()).some((r) => r.folder === result.runDir), 'the Runs view lists the regraded run');
    if (pageProbesAvailable) assert.match((await renderedNotification('1 verdict changed')).message, /realized on 1 question/);
  });

  test('a regrade whose log is not where it is given names the file and offers to locate it', async () => {
    await clearNotifications();
    const gone = path.join(root, 'moved', 'samples_arith_2026-12-07T10-00-00.000000.jsonl');
    const result = await vscode.commands.executeCommand<RegradeOutcome>('reachAudit.regradeRun', { runDir: imported, gradeTruncated: 'strict', correctBy: 'stated', data: gone });
    assert.equal(result.how, 'failed');
    assert.ok(result.message?.includes(gone), result.message);
    assert.match(result.message ?? '', /not there/);
    if (pageProbesAvailable) assert.ok((await renderedNotification('cannot regrade')).buttons.includes('Locate Log…'));
  });

  test('Export Results writes the HTML report of a run', async () => {
    const file = path.join(root, 'report.html');
    const written = await vscode.commands.executeCommand<string | undefined>('reachAudit.exportResults', { runDir: imported, format: 'html', file });
    assert.equal(written, file);
    const html = fs.readFileSync(file, 'utf8');
    assert.match(html, /^<!doctype html>/i);
    assert.match(html, /Reach Audit — arith-imported/);
  });
});
