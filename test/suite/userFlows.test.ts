/**
 * The audit experience inside a real VS Code, on a small random model and a small GSM8K file that
 * the suite writes into the workspace: the Run Reachability Audit command fills a run that the Runs
 * view lists and the panel shows with the numbers of its summary.json; the per-question command
 * reproduces a question's record of the full run; a cancelled run keeps its finished questions and
 * resumes to completion; dataset text with markup reaches the page only as data, never as HTML.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/auditCommands';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';

const EXTENSION_ID = 'reach-audit.reach-audit';
const XSS_QUESTION = 'Tom has <img src=x onerror=alert(1)> 2 apples </script><script>alert(2)</script> and buys 2 more. How many?';

interface JsonRecord {
  id: string;
  line: number;
  question: string;
  [key: string]: unknown;
}

function readRecords(runDir: string): JsonRecord[] {
  return fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as JsonRecord);
}

suite('Audit commands, panel and editor', function () {
  this.timeout(180_000);
  let api: ReachAuditApi;
  let root: string;
  let model: string;
  let data: string;
  let bigData: string;
  let settings: Record<string, unknown>;
  let fullRun: string;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the launcher opens a workspace folder');
    root = path.join(folder.uri.fsPath, 'audit-suite');
    fs.rmSync(root, { recursive: true, force: true });
    model = path.join(root, 'model');
    writeRandomModel(model, SMALL_SPECS.llama);
    data = path.join(root, 'gsm8k.jsonl');
    const questions = [
      { id: 'q0', question: 'What is 1 + 1?', answer: '1 + 1 = 2\n#### 2' },
      { id: 'xss', question: XSS_QUESTION, answer: '#### 4' },
      { id: 'q2', question: 'What is 3 + 4?', answer: '#### 7' },
      { id: 'q3', question: 'What is 5 + 5?', answer: '#### 10' },
    ];
    fs.writeFileSync(data, questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
    bigData = path.join(root, 'gsm8k-long.jsonl');
    const many = Array.from({ length: 24 }, (_, i) => JSON.stringify({ id: `m${i}`, question: `What is ${i} + ${i}?`, answer: `#### ${2 * i}` }));
    fs.writeFileSync(bigData, many.join('\n') + '\n');
    settings = {
      probes: ['sample:2', 'routes:2', 'search:2'],
      repair: true,
      maxNewTokens: 4,
      batch: 2,
      threads: 1,
      cacheDir: path.join(root, 'cache'),
    };
    const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
  });

  test('Run Reachability Audit: the run appears in the Runs view, the panel shows it with its summary numbers', async () => {
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', { ...settings, model, data, limit: 3, name: 'suite-full' });
    assert.equal(result.how, 'done', result.message);
    assert.ok(result.runDir && fs.existsSync(path.join(result.runDir, 'summary.json')));
    fullRun = result.runDir;
    const records = readRecords(fullRun);
    assert.equal(records.length, 3);

    const runs = await api.runs.refresh();
    const entry = runs.find((r) => r.folder === fullRun);
    assert.ok(entry, 'the Runs view lists the new run');
    const summary = JSON.parse(fs.readFileSync(path.join(fullRun, 'summary.json'), 'utf8')) as { n: number; realized: { rate: number } };
    assert.equal(entry.headline?.n, summary.n);
    assert.equal(entry.headline?.realized?.rate, summary.realized.rate);
    const children = await api.runs.getChildren({ kind: 'run', run: entry });
    const labels = children.map((c) => String(api.runs.getTreeItem(c).label));
    assert.ok(labels.includes('Realized'), labels.join(', '));
    const groups = children.filter((c) => c.kind === 'group');
    assert.ok(groups.length > 0, labels.join(', '));
    const questionRows = (await Promise.all(groups.map((g) => api.runs.getChildren(g)))).flat();
    // Every question of the run once under its state (the failure set lists some again).
    const byState = (await Promise.all(groups.filter((g) => String(api.runs.getTreeItem(g).label).startsWith('Questions')).map((g) => api.runs.getChildren(g)))).flat();
    assert.deepEqual(byState.map((q) => (q.kind === 'question' ? q.question.id : '')).sort(), records.map((r) => r.id).sort());
    const click = api.runs.getTreeItem(questionRows[0]).command;
    assert.equal(click?.command, 'reachAudit.showQuestion');

    // The panel shows this run: the page asked for it (ready) and got its records and summary.
    assert.equal(api.panel.runFolder, fullRun);
    await api.panel.whenReady();
    const load = [...api.panel.sent].reverse().find((m) => m.type === 'loadRun');
    assert.ok(load && load.type === 'loadRun');
    assert.deepEqual(load.run.records.map((r) => r.id), records.map((r) => r.id));
    const finalSummary = [...api.panel.sent].reverse().find((m) => m.type === 'updateSummary' || m.type === 'loadRun');
    const shownSummary = finalSummary?.type === 'updateSummary' ? finalSummary.summary : finalSummary?.type === 'loadRun' ? finalSummary.run.summary : undefined;
    assert.deepEqual(shownSummary, summary);
    const status = [...api.panel.sent].reverse().find((m) => m.type === 'runStatus');
    assert.ok(status && status.type === 'runStatus' && status.status === 'done' && status.done === 3);

    // The Audit view shows the same numbers.
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: fullRun });
    api.auditView.show(entry);
    assert.ok(api.auditView.html.includes(`n = ${summary.n} questions`));
  });

  test('Audit This Question on a chosen line gives the record of that question in the full run', async () => {
    assert.ok(fullRun, 'needs the full run');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(data));
    editor.selection = new vscode.Selection(2, 3, 2, 3); // line 3: q2
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.auditQuestion', { options: { ...settings, model } });
    assert.equal(result.how, 'done', result.message);
    assert.ok(result.runDir);
    const single = readRecords(result.runDir);
    assert.equal(single.length, 1);
    const inFull = readRecords(fullRun).find((r) => r.line === 3);
    assert.ok(inFull);
    assert.deepEqual(single[0], inFull);
    // The panel selected it; the editor's CodeLens shows its state.
    assert.equal(api.panel.runFolder, result.runDir);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.file(data));
    const onLine = lenses.filter((l) => l.range.start.line === 2 && l.command?.command === 'reachAudit.showQuestion');
    assert.equal(onLine.length, 1);
    assert.match(onLine[0].command!.title, /realized|reachable|repaired|unreached/);
  });

  test('Probe Layer Routes and Silence MLP Blocks audit the question under the cursor with those probes', async () => {
    // The question by file and line (the argument form; the cursor form is tested above).
    const routes = await vscode.commands.executeCommand<CommandResult>('reachAudit.probeRoutesForQuestion', { file: data, line: 1, options: { ...settings, model, repair: false } });
    assert.equal(routes.how, 'done', routes.message);
    const [routed] = readRecords(routes.runDir!);
    assert.equal(routed.id, 'q0');
    assert.deepEqual(Object.keys(routed.probes as object).sort(), ['routes', 'search']);
    assert.equal(routed.repair, undefined);
    const silenced = await vscode.commands.executeCommand<CommandResult>('reachAudit.silenceBlocksForQuestion', { file: data, line: 1, options: { ...settings, model, repair: false } });
    assert.equal(silenced.how, 'done', silenced.message);
    const [scanned] = readRecords(silenced.runDir!);
    assert.equal(scanned.id, 'q0');
    assert.ok(scanned.repair, 'the repair scan ran');
  });

  test('Cancel keeps the finished questions; Resume completes the run', async () => {
    const options = { ...settings, model, data: bigData, batch: 1, probes: ['sample:4', 'routes:4', 'search:4'], name: 'suite-cancel' };
    const first = new Promise<void>((resolve) => {
      const l = api.session.listen({ onRecord: () => { l.dispose(); resolve(); } });
    });
    const running = vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', options);
    await first;
    api.session.cancelAll();
    const stopped = await running;
    assert.equal(stopped.how, 'cancelled', stopped.message);
    assert.ok(stopped.runDir);
    const kept = readRecords(stopped.runDir);
    assert.ok(kept.length >= 1 && kept.length < 24, `kept ${kept.length}`);
    assert.ok(!fs.existsSync(path.join(stopped.runDir, 'summary.json')));

    const resumed = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', { ...options, out: stopped.runDir, resume: true });
    assert.equal(resumed.how, 'done', resumed.message);
    const all = readRecords(stopped.runDir);
    assert.deepEqual(all.map((r) => r.id), Array.from({ length: 24 }, (_, i) => `m${i}`));
    assert.deepEqual(all.slice(0, kept.length), kept);
  });

  test('Dataset markup reaches the panel as data, never as HTML', async () => {
    assert.ok(fullRun);
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: fullRun });
    await api.panel.whenReady();
    // The page is the bundle and nothing from the run: no dataset text in the HTML at all.
    assert.ok(!api.panel.html.includes('onerror'));
    assert.match(api.panel.html, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
    assert.equal((api.panel.html.match(/<script /g) ?? []).length, 1);
    const load = [...api.panel.sent].reverse().find((m) => m.type === 'loadRun');
    assert.ok(load && load.type === 'loadRun');
    const xss = load.run.records.find((r) => r.id === 'xss');
    assert.ok(xss, 'the XSS question is in the run');
    assert.equal(xss.question, XSS_QUESTION);
  });

  test('Export Results writes CSV and JSON of the run records', async () => {
    assert.ok(fullRun);
    const csv = path.join(root, 'export.csv');
    const json = path.join(root, 'export.json');
    await vscode.commands.executeCommand('reachAudit.exportResults', { runDir: fullRun, format: 'csv', file: csv });
    await vscode.commands.executeCommand('reachAudit.exportResults', { runDir: fullRun, format: 'json', file: json });
    assert.deepEqual(JSON.parse(fs.readFileSync(json, 'utf8')), readRecords(fullRun));
    const lines = fs.readFileSync(csv, 'utf8').trimEnd().split('\r\n');
    assert.equal(lines.length, 4);
    assert.ok(lines[0].startsWith('id,line,question,gold,answer,rule,realized,'));
  });
});
