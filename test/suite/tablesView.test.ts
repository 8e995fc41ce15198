/**
 * Build Tables and the Trajectory view in a real VS Code, on a three-checkpoint trajectory of the
 * bundled demo (base → round1 → tuned) that the suite audits with the built CLI: the Tables page
 * shows the same rows as `reach-audit table`, selected runs of one trajectory bring its curves,
 * a step lists the questions that moved and a question opens in the audit panel; labels with
 * markup stay text under the strict CSP. The README's pictures of both tabs come from here.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { TablesResult } from '../../src/extension/tables/tablesCommands';
import type { TablesMessage, TrajectoryMessage } from '../../src/extension/tables/tablesData';
import type { FlowKey, Interval, StoredTrajectory, TrajectoryPoint } from '../../src/contract';
import { pageProbesAvailable, panelClick, panelEval, screenshot } from './pageProbe';
import { freshSuiteFolder, activatedExtension } from './suiteFixtures';

const FRAME = '.rt-tables';
const MOVES: FlowKey[] = ['reachable->realized', 'unreached->realized', 'realized->reachable', 'unreached->reachable', 'realized->unreached', 'reachable->unreached'];
const HOSTILE_LABEL = 'r1 <img src=x onerror=alert(1)><svg onload="document.documentElement.dataset.pwned=1">';

/** Page-side: the rendered tables (titles, headline, rows as cell text) and the page's safety facts. */
const TABLES_DOM = `(want) => {
  const sections = Array.from(document.querySelectorAll('.rt-tables .rt-section'));
  if (sections.length !== want) return null;
  return {
    sections: sections.map((s) => ({
      id: s.getAttribute('data-table'),
      title: s.querySelector('h2')?.textContent ?? '',
      headline: s.querySelector('.rt-headline')?.textContent ?? '',
      rows: Array.from(s.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent ?? '')),
    })),
    img: document.querySelectorAll('img').length,
    handlers: Array.from(document.querySelectorAll('*')).flatMap((el) => Array.from(el.attributes).filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => a.name)),
    scripts: Array.from(document.querySelectorAll('script')).map((el) => ({ src: el.getAttribute('src'), nonce: el.nonce !== '' || el.hasAttribute('nonce') })),
    csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? null,
    pwned: document.documentElement.hasAttribute('data-pwned'),
  };
}`;

/** Page-side: the Trajectory tab once its chart is drawn, with the selected step's moved ids. */
const TRAJECTORY_DOM = `(title) => {
  const t = document.querySelector('.tj-title')?.textContent ?? '';
  const canvas = document.querySelector('canvas.tj-rates');
  if (!t.includes(title) || !canvas || canvas.width === 0 || canvas.height === 0) return null;
  return {
    title: t,
    source: document.querySelector('.tj-source')?.textContent ?? '',
    steps: Array.from(document.querySelectorAll('.tj-step')).map((b) => ({ text: b.textContent, pressed: b.getAttribute('aria-pressed') })),
    moved: Object.fromEntries(Array.from(document.querySelectorAll('.tj-move')).map((m) => [m.getAttribute('data-move'), Array.from(m.querySelectorAll('.tj-question')).map((b) => b.textContent)])),
    passk: !!document.querySelector('canvas.tj-passk'),
    passkValues: Array.from(document.querySelectorAll('.tj-passk-values li')).map((li) => li.textContent),
    checkpointRows: Array.from(document.querySelectorAll('.rt-section[data-table="trajectory"] tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent)),
    img: document.querySelectorAll('img').length,
    pwned: document.documentElement.hasAttribute('data-pwned'),
  };
}`;

interface TablesDom {
  sections: { id: string; title: string; headline: string; rows: string[][] }[];
  img: number;
  handlers: string[];
  scripts: { src: string | null; nonce: boolean }[];
  csp: string | null;
  pwned: boolean;
}
interface TrajectoryDom {
  title: string;
  source: string;
  steps: { text: string; pressed: string }[];
  moved: Record<string, string[]>;
  passk: boolean;
  /** Per checkpoint, "label: pass@1 31.8% [26.1–37.5] (n = 12) · pass@4 …". */
  passkValues: string[];
  checkpointRows: string[][];
  img: number;
  pwned: boolean;
}

function movedIds(message: TrajectoryMessage, step: number): Record<string, string[]> {
  const f = message.trajectory.flows[step];
  return Object.fromEntries(MOVES.filter((k) => f.counts[k] > 0).map((k) => [k, f.ids[k]]));
}

suite('Build Tables and the training trajectory', function () {
  this.timeout(600_000);
  let api: ReachAuditApi;
  let root: string;
  let cli: string;
  let trajectoryDir: string;
  let runs: string[];
  let comparison: string;

  // The built CLI under the extension host's own Node (Electron's binary needs ELECTRON_RUN_AS_NODE
  // to act as one), asynchronously so the extension host stays responsive meanwhile.
  const node = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const env = { ...process.env, ELECTRON_RUN_AS_NODE: '1', REACH_AUDIT_CACHE: path.join(root, 'cache') };
      execFile(process.execPath, [cli, ...args], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`reach-audit ${args.join(' ')}: ${err.message}\n${stderr}`));
        else resolve(stdout);
      });
    });

  suiteSetup(async () => {
    root = freshSuiteFolder('tables-suite');
    const activated = await activatedExtension();
    api = activated.api;
    cli = path.join(activated.extension.extensionPath, 'dist', 'cli.js');
    const demo = activated.demo;
    trajectoryDir = path.join(root, 'trajectory');
    await node([
      'trajectory', '--model', path.join(demo, 'base'), '--model', path.join(demo, 'round1'), '--model', path.join(demo, 'tuned'),
      '--data', path.join(demo, 'data', 'arith-test.jsonl'), '--limit', '12', '--probe', 'sample:4', '--probe', 'routes:4', '--probe', 'search:4',
      '--repair', '--max-new-tokens', '48', '--batch', '12', '--out', trajectoryDir,
    ]);
    runs = ['0-base', '1-round1', '2-tuned'].map((r) => path.join(trajectoryDir, r));
    comparison = path.join(root, 'comparison');
    await node(['compare', '--base-run', runs[0], '--tuned-run', runs[2], '--out', comparison]);
  });

  // The next suites start from an editor area without this suite's pages.
  suiteTeardown(async () => {
    api?.tables.close();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Build Tables: the tables as reach-audit table prints them, rendered as text under the strict CSP', async () => {
    const result = await vscode.commands.executeCommand<TablesResult>('reachAudit.buildTables', { folders: [...runs, comparison] });
    assert.equal(result.error, undefined);
    const message = result.message as TablesMessage;
    assert.deepEqual(message.tables.map((t) => t.id), ['routes-vs-search', 'repair', 'training', 'pass-at-k-delta']);
    assert.equal(message.tables[3].rows.length, 4, 'Δpass@k: one row per k ≤ the budget of 4 for the one comparison');
    assert.equal(message.tables[0].rows.length, 3, 'one routes-vs-search row per checkpoint');
    assert.equal(message.tables[2].rows.length, 1, 'one training row for the comparison');
    // The same rows as the command line's Markdown.
    const md = path.join(root, 'tables.md');
    await node(['table', ...runs, comparison, '--md', md]);
    const text = fs.readFileSync(md, 'utf8');
    // The Markdown writes <, > and & as entities (so a model name with markup stays text); the page shows them as text.
    const mdText = (c: string) => c.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    for (const t of message.tables) {
      assert.ok(text.includes(mdText(t.notes[0])), t.notes[0]);
      for (const row of t.rows) assert.ok(text.includes(`| ${row.map((c) => mdText(c).replace(/\|/g, '\\|')).join(' | ')} |`), `${t.id}: ${row.join(' | ')}`);
    }
    // Four-way verdicts with the stated margin; the headlines count decisive rows only.
    const rowVerdict = /^(routes better|search better|routes non-inferior at −5 pts|equivalent within ±5 pts|inconclusive at ±5 pts( \(≈ [\d,]+ questions to decide\))?)$/;
    const rvs = message.tables[0];
    assert.match(rvs.notes[0], /^Search at reward 0\/1 \(per question: .*\): random routes non-inferior to search \(gain set, Holm-adjusted over the \d reward 0\/1 settings?, margin ±5 pts; \"search better\" unadjusted\) in \d of \d settings; search better in \d; \d inconclusive/);
    assert.match(rvs.notes[1], /^Margin: ±5 pts\. Rule: /);
    for (const row of rvs.rows) assert.match(row[rvs.headers.indexOf('verdict')], rowVerdict);
    const training = message.tables[2];
    assert.match(training.notes[0], /^Realized up while the reachable ceiling does not rise \(Holm-adjusted; a realized fall or a ceiling rise vetoes, unadjusted; margin \+5 pts\) in \d of \d comparisons/);
    assert.match(training.rows[0][training.headers.indexOf('Δ realized (pts) [95% CI]')], /Holm .* · (better|worse|equivalent within ±5 pts|inconclusive at ±5 pts)/);
    // The margin is a setting, as --margin is a flag.
    const config = vscode.workspace.getConfiguration('reachAudit');
    await config.update('equivalenceMargin', 10, vscode.ConfigurationTarget.Global);
    try {
      const wide = await vscode.commands.executeCommand<TablesResult>('reachAudit.buildTables', { folders: [...runs, comparison] });
      assert.match((wide.message as TablesMessage).tables[0].notes[1], /^Margin: ±10 pts\./);
    } finally {
      await config.update('equivalenceMargin', undefined, vscode.ConfigurationTarget.Global);
    }
    const again = await vscode.commands.executeCommand<TablesResult>('reachAudit.buildTables', { folders: [...runs, comparison] });
    assert.deepEqual((again.message as TablesMessage).tables, message.tables);
    await api.tables.whenReady();
    assert.match(api.tables.html, /default-src 'none'/);
    if (!pageProbesAvailable) return;
    // The chat side bar would take a third of the window in the pictures.
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    const dom = await panelEval<TablesDom>(TABLES_DOM, message.tables.length, 20_000, FRAME);
    assert.deepEqual(dom.sections.map((s) => s.rows), message.tables.map((t) => t.rows), 'every cell as sent, as text');
    assert.deepEqual(dom.sections.map((s) => s.headline), message.tables.map((t) => t.notes[0]));
    assert.equal(dom.img, 0);
    assert.deepEqual(dom.handlers, []);
    assert.ok(dom.scripts.every((s) => s.src === null || s.nonce), JSON.stringify(dom.scripts));
    assert.match(dom.csp ?? '', /default-src 'none'/);
    const shot = await screenshot('tables-dark', FRAME);
    for (const file of shot.files) assert.ok(fs.statSync(file).size > 10_000, `${file} looks empty`);
  });

  test('Show Training Trajectory: labels with markup stay text; a mismatched checkpoint is refused with the difference', async () => {
    const result = await vscode.commands.executeCommand<TablesResult>('reachAudit.showTrajectory', { runs, labels: ['base', HOSTILE_LABEL, 'tuned'] });
    assert.equal(result.error, undefined);
    const refused = await vscode.commands.executeCommand<TablesResult>('reachAudit.showTrajectory', { runs: [runs[0], path.join(root, 'missing')] });
    assert.match(refused.error ?? '', /missing: no such run folder/);
    await api.tables.whenReady();
    const sent = [...api.tables.sent].reverse().find((m): m is TrajectoryMessage => m.type === 'showTrajectory');
    assert.equal(sent?.trajectory.points[1].label, HOSTILE_LABEL, 'the labelled trajectory was sent to the page');
    if (!pageProbesAvailable) return;
    // Text only (the chart is checked above): the labels as the page shows them.
    const dom = await panelEval<TrajectoryDom>(`() => {
      const source = document.querySelector('.tj-source')?.textContent;
      if (source === undefined) return null;
      return { title: document.querySelector('.tj-title')?.textContent ?? '', source,
        steps: Array.from(document.querySelectorAll('.tj-step')).map((b) => ({ text: b.textContent, pressed: '' })), moved: {}, passk: false, passkValues: [], checkpointRows: [],
        img: document.querySelectorAll('img').length, pwned: document.documentElement.hasAttribute('data-pwned') };
    }`, null, 20_000, FRAME);
    assert.ok(dom.source.includes(HOSTILE_LABEL), dom.source);
    assert.ok(dom.steps[0].text.includes(HOSTILE_LABEL));
    assert.equal(dom.img, 0);
    assert.equal(dom.pwned, false);
  });
  test('runs of one trajectory selected in the Runs view bring its curves; a step lists the questions that moved; a question opens in the audit panel', async () => {
    const nodes = runs.map((folder) => ({ kind: 'run', run: { folder, name: path.basename(folder), recordedQuestions: 12, problems: [] } }));
    const result = await vscode.commands.executeCommand<TablesResult>('reachAudit.buildTables', nodes[0], nodes);
    assert.equal(result.error, undefined);
    const shown = [...api.tables.sent].reverse().find((m): m is TrajectoryMessage => m.type === 'showTrajectory');
    assert.ok(shown, 'the trajectory of the selected runs was sent');
    assert.deepEqual(shown.trajectory.points.map((p) => p.folder), runs);
    assert.deepEqual(shown.trajectory.points.map((p) => p.label), ['base', 'round1', 'tuned']);
    const stored = JSON.parse(fs.readFileSync(path.join(trajectoryDir, 'trajectory.json'), 'utf8')) as StoredTrajectory;
    assert.deepEqual(shown.trajectory.points.map((p) => [p.realized, p.ceiling]), stored.points.map((p) => [p.realized, p.ceiling]), 'the same numbers as reach-audit trajectory');
    const passAtK = (p: TrajectoryPoint) => [p.passAt1, p.passAt1Ci, p.passAtK, p.passAtKCi, p.passAtKN];
    assert.deepEqual(shown.trajectory.points.map(passAtK), stored.points.map(passAtK), 'pass@1 and pass@k with the same intervals and n');
    // 12 questions: pass@4 (0/1 per question at a budget of 4) has its Wilson interval, pass@1 none (no bootstrap below 20 questions).
    assert.ok(shown.trajectory.points.every((p) => p.passAt1Ci === null && p.passAtKCi !== null && p.passAtKN === 12), JSON.stringify(shown.trajectory.points.map(passAtK)));
    assert.deepEqual(shown.trajectory.flows.map((f) => f.ids), stored.flows.map((f) => f.ids));
    await api.tables.whenReady();
    if (!pageProbesAvailable) return;
    const dom = await panelEval<TrajectoryDom>(TRAJECTORY_DOM, '3 checkpoints', 20_000, FRAME);
    assert.equal(dom.steps.length, 2);
    assert.deepEqual(dom.steps.map((s) => s.pressed), ['false', 'true'], 'the last step is selected first');
    assert.deepEqual(dom.moved, movedIds(shown, 1));
    assert.ok(dom.passk, 'pass@1 vs pass@k is drawn (the sample probe ran)');
    // Each checkpoint's pass@1 and pass@4 with its interval and n, as text under the chart and in the table.
    const at = (x: number | null, ci: Interval | null, n: number) => (ci ? `${(100 * x!).toFixed(1)}% [${(100 * ci.lo).toFixed(1)}–${(100 * ci.hi).toFixed(1)}] (n = ${n})` : `${(100 * x!).toFixed(1)}% (n = ${n}; no interval below 20 questions)`);
    assert.deepEqual(dom.passkValues, shown.trajectory.points.map((p) => `${p.label}: pass@1 ${at(p.passAt1, p.passAt1Ci, p.passAtKN)} · pass@4 ${at(p.passAtK, p.passAtKCi, p.passAtKN)}`));
    assert.deepEqual(dom.checkpointRows, shown.tables[0].rows, 'the checkpoints table as sent');
    for (const row of dom.checkpointRows) {
      assert.match(row[row.length - 2], /^\d+\.\d% \(n = 12; no interval below 20 questions\)$/, 'pass@1 with n, no bootstrap interval over 12 questions');
      assert.match(row[row.length - 1], /^\d+\.\d% \[\d+\.\d, \d+\.\d\] \(n = 12\)$/, 'pass@4 with its Wilson interval and n');
    }
    const shot = await screenshot('trajectory-dark', FRAME);
    for (const file of shot.files) assert.ok(fs.statSync(file).size > 10_000, `${file} looks empty`);

    // The first step, then its first moved question: it opens in the audit panel on that checkpoint's run.
    await panelClick(dom.steps[0].text, FRAME);
    const first = await panelEval<TrajectoryDom>(`(want) => { const d = (${TRAJECTORY_DOM})('3 checkpoints'); return d && d.steps[0].pressed === 'true' ? d : null; }`, null, 20_000, FRAME);
    assert.deepEqual(first.moved, movedIds(shown, 0));
    const id = Object.values(first.moved)[0]?.[0];
    if (id === undefined) return; // nothing moved at the first step on these questions
    await panelClick(id, FRAME);
    const deadline = Date.now() + 20_000;
    while (api.panel.runFolder !== runs[1] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(api.panel.runFolder, runs[1]);
    await api.panel.whenReady();
    while (![...api.panel.sent].some((m) => m.type === 'selectQuestion' && String(m.id) === id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok([...api.panel.sent].some((m) => m.type === 'selectQuestion' && String(m.id) === id), `question ${id} selected in the audit panel`);
  });

  test('a Tables page hidden behind another editor gets what is shown meanwhile', async () => {
    // The audit panel opened by the click above covers the Tables page (kept while hidden).
    const before = api.tables.sent.length;
    const result = await vscode.commands.executeCommand<TablesResult>('reachAudit.showTrajectory', { file: path.join(trajectoryDir, 'trajectory.json') });
    assert.equal(result.error, undefined);
    await api.tables.whenReady();
    const deadline = Date.now() + 20_000;
    while (!api.tables.sent.slice(before).some((m) => m.type === 'showTrajectory') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const again = api.tables.sent.slice(before).find((m): m is TrajectoryMessage => m.type === 'showTrajectory');
    assert.ok(again, `sent since: ${JSON.stringify(api.tables.sent.slice(before).map((m) => m.type))}`);
    assert.deepEqual(again.trajectory.points.map((p) => p.label), ['base', 'round1', 'tuned']);
  });
});
