/**
 * The audit experience inside a real VS Code, on a small random model and a small GSM8K file that
 * the suite writes into the workspace: the Run Reachability Audit command fills a run that the Runs
 * view lists and the panel shows with the numbers of its summary.json; the per-question command
 * reproduces a question's record of the full run; a cancelled run keeps its finished questions and
 * resumes to completion; dataset text with markup reaches the page only as data, never as HTML
 * (checked in the rendered webview DOM); Compare Checkpoints on the shipped demo pair shows both
 * runs and the paired numbers, and the suite saves screenshots of the panel in each theme.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable, panelClick, panelDom, panelEval, screenshot } from './pageProbe';
import { storedVerdictText, type PairedDelta } from '../../src/contract';
import { until, installedExtension, activatedExtension, freshSuiteFolderWithModel } from './suiteFixtures';
import { reachAuditHover } from './questionHover';

// The markup a hostile dataset could carry; the <svg> one would leave a mark on the page if it ever ran.
const XSS_QUESTION =
  'Tom has <img src=x onerror=alert(1)> 2 apples </script><script>alert(2)</script> and <svg onload="document.documentElement.dataset.pwned=1"> buys 2 more. How many?';

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
    ({ root, model } = freshSuiteFolderWithModel('audit-suite'));
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
    ({ api } = await activatedExtension());
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

  test('A click on a table row keeps the panel; Reveal in dataset opens the line beside it, the panel still shown', async function () {
    // Walkthrough defect 2: one click replaced the panel with the dataset in the same editor group.
    if (!pageProbesAvailable) this.skip(); // the row is clicked in the rendered page
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: fullRun });
    await api.panel.whenReady();
    const target = readRecords(fullRun)[2];
    const panelGroup = () =>
      vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('reachAudit.panel')))?.viewColumn;
    const datasetEditors = () => vscode.window.visibleTextEditors.filter((e) => e.document.uri.fsPath === data);
    for (const record of readRecords(fullRun)) {
      await panelEval<boolean>(
        `(id) => { const row = [...document.querySelectorAll('.qt-body-row:not([hidden])')].find((r) => r.querySelector('.col-id')?.textContent === id); if (!row) return null; row.click(); return true; }`,
        record.id,
      );
      await panelEval<string>(`(id) => document.querySelector('.detail-title h2')?.textContent === 'Question ' + id ? 'shown' : null`, record.id);
    }
    await new Promise((r) => setTimeout(r, 1000));
    assert.ok(api.panel.visible, 'the panel is still shown after clicking through the rows');
    assert.equal(datasetEditors().length, 0, 'a click opens no dataset');
    await panelEval<boolean>(
      `(id) => { const row = [...document.querySelectorAll('.qt-body-row:not([hidden])')].find((r) => r.querySelector('.col-id')?.textContent === id); if (!row) return null; row.click(); return true; }`,
      target.id,
    );
    await panelClick('Reveal in dataset');
    const deadline = Date.now() + 15_000;
    while (datasetEditors().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const [editor] = datasetEditors();
    assert.ok(editor, 'Reveal in dataset opened the dataset');
    assert.equal(editor.selection.active.line, target.line - 1);
    assert.ok(api.panel.visible, 'the panel stays visible beside the dataset');
    assert.ok(panelGroup() !== undefined && editor.viewColumn !== panelGroup(), `dataset in group ${editor.viewColumn}, panel in ${panelGroup()}`);
  });

  test('Run Reachability Audit on the shipped demo data: the table shows each question with its state', async () => {
    const { demo } = installedExtension();
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      ...settings,
      model: path.join(demo, 'base'),
      data: path.join(demo, 'data', 'arith-test.jsonl'),
      limit: 4,
      maxNewTokens: 64,
      batch: 8,
      name: 'suite-demo',
    });
    assert.equal(result.how, 'done', result.message);
    const records = readRecords(result.runDir!);
    assert.deepEqual(records.map((r) => r.line), [1, 2, 3, 4]);
    const runs = await api.runs.refresh();
    const summary = JSON.parse(fs.readFileSync(path.join(result.runDir!, 'summary.json'), 'utf8')) as { n: number; realized: { rate: number } };
    const entry = runs.find((r) => r.folder === result.runDir);
    assert.equal(entry?.headline?.realized?.rate, summary.realized.rate);
    assert.equal(api.panel.runFolder, result.runDir);
    if (!pageProbesAvailable) return;
    // In the rendered table: each question's row carries the realized chip exactly when it was realized.
    for (const record of records) {
      api.panel.selectQuestion(record.id);
      const dom = await panelDom(record.id, record.question);
      assert.equal(dom.rowTexts.length, 1, record.id);
      const realized = (record.realized as { correct: boolean }).correct;
      assert.equal(/(^|[^a-z])realized/.test(dom.rowTexts[0].replace(/not realized/g, '')), realized, `${record.id}: ${dom.rowTexts[0]}`);
    }
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
    // The panel selected it; the editor's hover on its line gives its state.
    assert.equal(api.panel.runFolder, result.runDir);
    const hover = await reachAuditHover(vscode.Uri.file(data), 2);
    assert.match(hover ?? '', /^\*\*Reach Audit:\*\* (realized|reachable|repaired|unreached)/);
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
    // Kept in the order the questions finished; the finished run holds them in dataset order, unchanged.
    assert.deepEqual(kept.map((k) => all.find((r) => r.id === k.id)), kept);
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

    // What the webview actually rendered (the launcher reads the DOM of the panel's frame).
    if (!pageProbesAvailable) return;
    api.panel.selectQuestion('xss');
    const dom = await panelDom('xss', XSS_QUESTION);
    assert.equal(dom.pwned, false, 'the payload ran');
    assert.equal(dom.imgElements, 0, 'an <img> element was created from dataset text');
    // Our bundle (by src, with the nonce) and VS Code's own acquireVsCodeApi shim, nothing else.
    const [ours, ...others] = dom.scripts.filter((x) => x.src !== null);
    assert.ok(ours && ours.nonce && /\/dist\/webview\/main\.js(\?|#|$)/.test(ours.src ?? ''), JSON.stringify(dom.scripts));
    assert.deepEqual(others, [], JSON.stringify(dom.scripts));
    for (const inline of dom.scripts.filter((x) => x.src === null)) assert.match(inline.inline, /acquireVsCodeApi/, JSON.stringify(dom.scripts));
    assert.deepEqual(dom.handlerAttributes, []);
    assert.equal(dom.rowTexts.length, 1, 'the question has one table row');
    assert.ok(dom.rowTexts[0].includes('Tom has <img src=x onerror=alert(1)> 2 apples'), dom.rowTexts[0]);
    assert.equal(dom.detailTitle, 'Question xss');
    assert.equal(dom.detailQuestion, XSS_QUESTION, 'the detail pane shows the question as text');
    assert.match(dom.csp ?? '', /default-src 'none'/);
  });

  test('Compare Checkpoints on the shipped demo pair: both runs, the paired numbers, the panel in each theme', async function () {
    this.timeout(300_000);
    const { demo } = installedExtension();
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.compareCheckpoints', {
      ...settings,
      baseModel: path.join(demo, 'base'),
      tunedModel: path.join(demo, 'tuned'),
      data: path.join(demo, 'data', 'arith-test.jsonl'),
      // 20: the fewest questions the panel shows rates and their charts for (fewer are read question by question).
      limit: 20,
      probes: ['sample:4', 'routes:4', 'search:4'],
      maxNewTokens: 64,
      batch: 16,
      name: 'suite-compare',
    });
    assert.equal(result.how, 'done', result.message);
    assert.ok(result.runDir);
    const stored = JSON.parse(fs.readFileSync(path.join(result.runDir, 'comparison.json'), 'utf8')) as {
      base: { folder: string }; tuned: { folder: string };
      comparison: { n: number; realized: PairedDelta; reachableCeiling: PairedDelta; reachable: Record<string, PairedDelta>; transitions: Record<string, Record<string, string[]>> };
    };
    const base = readRecords(stored.base.folder);
    const tuned = readRecords(stored.tuned.folder);
    assert.equal(stored.comparison.n, 20);
    const realized = (records: JsonRecord[]) => records.filter((r) => (r.realized as { correct: boolean }).correct).length / records.length;
    assert.equal(stored.comparison.realized.base, realized(base));
    assert.equal(stored.comparison.realized.tuned, realized(tuned));
    const cells = Object.values(stored.comparison.transitions).flatMap((row) => Object.values(row));
    assert.equal(cells.reduce((n, ids) => n + ids.length, 0), 20, 'every question in one transition cell');

    // Both runs are listed; the panel shows the trained run against the base with the comparison.
    const runs = await api.runs.refresh();
    for (const folder of [stored.base.folder, stored.tuned.folder]) assert.ok(runs.some((r) => r.folder === folder), folder);
    assert.equal(api.panel.runFolder, stored.tuned.folder);
    await api.panel.whenReady();
    const load = [...api.panel.sent].reverse().find((m) => m.type === 'loadRun');
    assert.ok(load && load.type === 'loadRun');
    assert.deepEqual(load.baseRun?.records.map((r) => r.id), base.map((r) => r.id));
    assert.deepEqual(load.compare, stored.comparison);
    // Opened again later (Runs view, CodeLens): the trained run comes back with its base and numbers.
    await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: stored.tuned.folder });
    await api.panel.whenReady();
    const reopened = [...api.panel.sent].reverse().find((m) => m.type === 'loadRun');
    assert.ok(reopened && reopened.type === 'loadRun' && reopened !== load);
    assert.equal(reopened.baseRun?.runId, path.basename(stored.base.folder));
    assert.deepEqual(reopened.compare, stored.comparison);

    if (!pageProbesAvailable) return;
    // The Comparison section: each paired difference with its four-way verdict against the margin.
    const verdicts = await panelEval<string[]>(`() => { const cells = Array.from(document.querySelectorAll('.compare-deltas tbody td.verdict')).map((c) => c.textContent); return cells.length ? cells : null; }`);
    const deltas = [stored.comparison.realized, stored.comparison.reachableCeiling, ...Object.values(stored.comparison.reachable)];
    assert.deepEqual(verdicts, deltas.map((d) => storedVerdictText(d.decision)));
    for (const v of verdicts) assert.match(v, /^(better|worse|equivalent within ±5 pts|inconclusive at ±5 pts( \(≈ [\d,]+ questions to decide\))?)$/);
    // A question the deployed base model got wrong that some probe reached: the detail worth showing.
    const shown = tuned.find((r) => !(r.realized as { correct: boolean }).correct && Object.values(r.reachable as Record<string, boolean>).some(Boolean)) ?? tuned[0];
    api.panel.selectQuestion(shown.id);
    await panelDom(shown.id, shown.question);
    const workbench = vscode.workspace.getConfiguration('workbench');
    const original = workbench.inspect<string>('colorTheme')?.globalValue;
    // The chat side bar would take a third of the window in the pictures.
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    // So would the dataset files earlier tests revealed beside the panel: the pictures show the panel alone.
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) if (tab.input instanceof vscode.TabInputText) await vscode.window.tabGroups.close(tab);
    }
    const themes: [string, string, vscode.ColorThemeKind][] = [
      ['dark', 'Dark Modern', vscode.ColorThemeKind.Dark],
      ['light', 'Light Modern', vscode.ColorThemeKind.Light],
      ['high-contrast', 'Default High Contrast', vscode.ColorThemeKind.HighContrast],
    ];
    try {
      for (const [name, theme, kind] of themes) {
        await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
        for (const deadline = Date.now() + 10_000; vscode.window.activeColorTheme.kind !== kind;) {
          assert.ok(Date.now() < deadline, `the ${theme} theme did not apply`);
          await new Promise((r) => setTimeout(r, 100));
        }
        await panelClick('Questions');
        const table = await screenshot(`compare-${name}`);
        await panelClick('Charts');
        const charts = await screenshot(`compare-charts-${name}`);
        for (const file of [...table.files, ...charts.files]) assert.ok(fs.statSync(file).size > 10_000, `${file} looks empty`);
      }
      // The dataset beside the panel: each audited line carries its state (gutter mark; the cursor's line in words).
      await workbench.update('colorTheme', 'Dark Modern', vscode.ConfigurationTarget.Global);
      await panelClick('Questions');
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(path.join(demo, 'data', 'arith-test.jsonl')), { viewColumn: vscode.ViewColumn.Beside });
      const at = new vscode.Position(shown.line - 1, 0);
      editor.selection = new vscode.Selection(at, at);
      editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.AtTop);
      assert.ok(await reachAuditHover(editor.document.uri, shown.line - 1), 'the shown question has its hover');
      await until('the cursor line\'s state', () => (api.cursorLine.shown?.line === shown.line - 1 ? true : undefined));
      // The picture shows the line's hover with its numbers, as a pointer or Ctrl+K Ctrl+I opens it.
      await vscode.commands.executeCommand('editor.action.showHover');
      await screenshot('editor-dark');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      await workbench.update('colorTheme', original, vscode.ConfigurationTarget.Global);
      await panelClick('Questions');
    }
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
