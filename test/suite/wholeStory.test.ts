/**
 * A run of few questions and the random-routes-vs-search comparison, in the real VS Code and
 * checked in the rendered pages: Audit This Question leads with the question's own story in the
 * panel and in the Audit view (deployed answer against gold with its rule, per probe which
 * attempts were right, blind picks, repair row, the skipped steps and why) and shows no rate
 * tiles over one question; a run of 20 questions with routes and search shows, in the Charts tab,
 * the paired comparison with the numbers of its summary.json, and "unmatched" when the two
 * budgets differ. Saves the pictures of both for the README. Runs last (file order): it opens
 * the panel and activates the extension, which the earlier files check from a fresh start.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { QuestionRecord, RunManifest, RunSummary } from '../../src/contract';
import { pointsInterval, pValueClause, signedPoints } from '../../webview/src/comparison/comparisonModel';
import { pageProbesAvailable, panelClick, panelEval, screenshot, viewEval } from './pageProbe';
import { activatedExtension, freshSuiteFolderWithModel } from './suiteFixtures';

const XSS_QUESTION = 'Ann has <img src=x onerror=alert(1)> 3 pens and buys 4 more. How many pens?';

function readRecords(runDir: string): QuestionRecord[] {
  return fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

/** How the story words the rule that read the deployed answer. */
function ruleWords(rule: string): string {
  return rule === 'none' ? 'no rule found an answer' : `read by ${rule}`;
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

interface StoryDom {
  metrics: number;
  cards: string[];
  counts: string;
  deployed: string;
  probes: string[];
  steps: string[];
  imgs: number;
  detail: string;
}

/** Page-side: the panel's story once the card of question `id` shows. */
const STORY_DOM = `(id) => {
  const card = Array.from(document.querySelectorAll('.headline .story-card')).find((c) => c.dataset.id === id);
  if (!card) return null;
  return {
    metrics: document.querySelectorAll('.headline .metric').length,
    cards: Array.from(document.querySelectorAll('.headline .story-card')).map((c) => c.dataset.id),
    counts: document.querySelector('.story-counts').textContent,
    deployed: card.querySelector('.story-deployed').textContent,
    probes: Array.from(card.querySelectorAll('.story-probe-line')).map((e) => e.textContent),
    steps: Array.from(document.querySelectorAll('.story-steps li')).map((e) => e.textContent),
    imgs: document.querySelectorAll('img').length,
    detail: document.querySelector('.detail-title h2') ? document.querySelector('.detail-title h2').textContent : '',
  };
}`;

suite('A run of few questions; random routes vs search', function () {
  this.timeout(240_000);
  let api: ReachAuditApi;
  let root: string;
  let model: string;
  let data: string;
  let twenty: string;
  let settings: Record<string, unknown>;
  let demo: string;

  suiteSetup(async () => {
    ({ root, model } = freshSuiteFolderWithModel('one-question-suite'));
    data = path.join(root, 'gsm8k.jsonl');
    fs.writeFileSync(data, [
      { id: 'p0', question: 'What is 2 + 2?', answer: '#### 4' },
      { id: 'pens', question: XSS_QUESTION, answer: '3 + 4 = 7\n#### 7' },
      { id: 'p2', question: 'What is 6 + 1?', answer: '#### 7' },
    ].map((q) => JSON.stringify(q)).join('\n') + '\n');
    twenty = path.join(root, 'twenty.jsonl');
    fs.writeFileSync(twenty, Array.from({ length: 20 }, (_, i) => JSON.stringify({ id: `t${i}`, question: `What is ${i} + 2?`, answer: `#### ${i + 2}` })).join('\n') + '\n');
    settings = { maxNewTokens: 4, batch: 4, threads: 1, cacheDir: path.join(root, 'cache') };
    ({ api, demo } = await activatedExtension());
  });

  test('Audit This Question on the demo: the panel and the Audit view tell the question\'s story, not rates over n = 1, and say what was skipped', async () => {
    const demoData = path.join(demo, 'data', 'arith-test.jsonl');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(demoData));
    editor.selection = new vscode.Selection(2, 2, 2, 2); // line 3, as a new user tried it
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.auditQuestion', {
      options: { ...settings, model: path.join(demo, 'base'), probes: ['sample:4', 'routes:4', 'search:4'], repair: true, maxNewTokens: 64, batch: 8 },
    });
    assert.equal(result.how, 'done', result.message);
    assert.ok(result.runDir);
    const [record] = readRecords(result.runDir);
    assert.equal(record.line, 3);
    const manifest = readJson<RunManifest>(path.join(result.runDir, 'manifest.json'));
    assert.match(manifest.globalRoutes.skipped ?? '', /this run has 1\)/, 'the one-question run skipped the global-route pool');

    // The Audit view (the newest run): the story and the skipped steps, no interval.
    const runs = await api.runs.refresh();
    const entry = runs.find((r) => r.folder === result.runDir);
    assert.ok(entry);
    api.auditView.show(entry);
    const html = api.auditView.html;
    assert.ok(html.includes('n = 1 question · counted, not rated'), html);
    assert.ok(html.includes(`Question ${record.id}`), html);
    assert.ok(html.includes('<strong>Global-route selection</strong>'), html);
    assert.ok(!html.includes('95% CI'), 'no interval over one question');
    for (const [probe, r] of Object.entries(record.probes)) assert.ok(html.includes(`${probe}: ${r.attempts.filter((a) => a.correct).length} of ${r.budget} attempts right`), `${probe} in the Audit view`);

    if (!pageProbesAvailable) return;
    await panelClick('Questions');
    const dom = await panelEval<StoryDom>(STORY_DOM, record.id, 60_000);
    assert.equal(dom.metrics, 0, 'no rate tiles over one question');
    assert.deepEqual(dom.cards, [record.id]);
    assert.ok(dom.counts.startsWith(`1 question · realized ${record.realized.correct ? 1 : 0} of 1`), dom.counts);
    assert.ok(dom.deployed.startsWith(`Deployed ${record.realized.answer ?? 'no answer'} `), dom.deployed);
    assert.ok(dom.deployed.includes(`vs gold ${record.gold}`) && dom.deployed.includes(ruleWords(record.realized.rule)), dom.deployed);
    assert.deepEqual(dom.probes.map((l) => l.split(':')[0]), Object.keys(record.probes));
    for (const [probe, r] of Object.entries(record.probes)) {
      const line = dom.probes.find((l) => l.startsWith(`${probe}:`))!;
      assert.ok(line.startsWith(`${probe}: ${r.attempts.filter((a) => a.correct).length} of ${r.budget} attempts right`), line);
      assert.ok(line.endsWith(record.reachable[probe] ? '· reachable' : '· not reached'), line);
    }
    assert.ok(dom.steps.some((s) => s.startsWith('Global-route selection: ') && s.includes('(this run has 1)')), dom.steps.join('\n'));
    assert.ok(dom.steps.some((s) => s.startsWith('Rates and 95% intervals: shown from 20 questions on')), dom.steps.join('\n'));
    assert.equal(dom.detail, `Question ${record.id}`, 'the question is open in the detail pane');

    // The side view as rendered in the workbench.
    await vscode.commands.executeCommand('workbench.view.extension.reachAudit');
    const side = await viewEval<{ questions: string[]; steps: string[] }>(`() => {
      const q = Array.from(document.querySelectorAll('.story-q h3')).map((h) => h.textContent);
      return q.length ? { questions: q, steps: Array.from(document.querySelectorAll('.story-steps li strong')).map((s) => s.textContent) } : null;
    }`, '.story-q');
    assert.deepEqual(side.questions, [`Question ${record.id} line 3`]);
    assert.ok(side.steps.includes('Global-route selection'), side.steps.join(', '));

    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    await screenshot('one-question');
  });

  test('Audit This Question: dataset markup stays text in the story, in the panel and the Audit view', async () => {
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(data));
    editor.selection = new vscode.Selection(1, 2, 1, 2); // line 2: the question with markup
    const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.auditQuestion', { options: { ...settings, model, probes: ['sample:2', 'routes:2'], repair: true } });
    assert.equal(result.how, 'done', result.message);
    const [record] = readRecords(result.runDir!);
    assert.equal(record.question, XSS_QUESTION);
    const entry = (await api.runs.refresh()).find((r) => r.folder === result.runDir);
    assert.ok(entry);
    api.auditView.show(entry);
    assert.ok(!api.auditView.html.includes('<img'), 'escaped in the Audit view');
    assert.ok(api.auditView.html.includes('Ann has &lt;img src=x onerror=alert(1)&gt; 3 pens'));
    if (!pageProbesAvailable) return;
    const dom = await panelEval<{ text: string; imgs: number; pwned: boolean }>(`() => {
      const card = document.querySelector('.story-card[data-id="pens"] .story-question');
      return card ? { text: card.textContent, imgs: document.querySelectorAll('img').length, pwned: document.documentElement.hasAttribute('data-pwned') } : null;
    }`, null, 60_000);
    assert.deepEqual(dom, { text: XSS_QUESTION, imgs: 0, pwned: false });
    const side = await viewEval<number>(`() => document.querySelector('.story-q') ? document.querySelectorAll('img').length : null`, '.story-q');
    assert.equal(side, 0, 'no element from dataset text in the Audit view');
  });

  test('Random routes vs search: the Charts tab shows the paired comparison of summary.json, and "unmatched" for unequal budgets', async () => {
    // The demo model on the first 20 demo questions: enough questions for the interval, answers worth a picture.
    const matched = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      ...settings, model: path.join(demo, 'base'), data: path.join(demo, 'data', 'arith-test.jsonl'), limit: 20, probes: ['routes:4', 'search:4'], repair: false, maxNewTokens: 64, batch: 16, name: 'suite-rvs',
    });
    assert.equal(matched.how, 'done', matched.message);
    const summary = readJson<RunSummary>(path.join(matched.runDir!, 'summary.json'));
    const c = summary.routesVsSearch;
    assert.ok(c && c.match === 'matched' && c.n === 20);
    assert.equal(api.panel.runFolder, matched.runDir);
    if (pageProbesAvailable) {
      await panelClick('Charts');
      const tiles = await panelEval<Record<string, string>>(`() => {
        const tiles = Array.from(document.querySelectorAll('.rvs-tile'));
        return tiles.length ? Object.fromEntries(tiles.map((t) => [t.className.match(/rvs-(\\w+)$/)[1], Array.from(t.children).map((x) => x.textContent).join('|')])) : null;
      }`);
      assert.equal(tiles.difference, `Δ reachable, all questions (routes − search)|${signedPoints(c.difference!.estimate)}|${pointsInterval(c.difference!)} n=20`);
      const g = c.gainSet!;
      assert.equal(tiles.gain, `Δ reachable on the gain set (routes − search)|${signedPoints(g.difference.estimate)}|${g.n < 20 ? `${g.onlyA} − ${g.onlyB} of n=${g.n}` : `${pointsInterval(g.difference)} n=${g.n}`}`);
      assert.equal(tiles.onlyA, `Only routes|${c.onlyA}|of n=20`);
      assert.equal(tiles.onlyB, `Only search|${c.onlyB}|of n=20`);
      assert.equal(tiles.both, `Both|${c.both}|neither ${c.neither}`);
      assert.equal(tiles.mcnemar, `McNemar (exact)|${pValueClause(c.mcnemarP)}|${c.onlyA + c.onlyB} discordant`);
      // The four-way verdict with its margin, on the gain set: 20 questions decide nothing at ±5 pts.
      const d = g.decision;
      assert.equal(d.verdict, 'inconclusive');
      assert.equal(tiles.verdict, `Verdict on the gain set (routes vs search)|inconclusive|margin ±5 pts${d.questionsNeeded !== null ? ` · ≈ ${d.questionsNeeded.toLocaleString('en-US')} questions to decide` : ''}`);
      const costs = await panelEval<string[][]>(`() => { const rows = Array.from(document.querySelectorAll('tr[data-measure]')).map((tr) => Array.from(tr.children).map((x) => x.textContent)); return rows.length ? rows : null; }`);
      const n = (x: number) => x.toLocaleString('en-US');
      const ratio = (x: number | null) => (x === null ? '—' : `${x.toFixed(2)}×`);
      assert.deepEqual(costs, [
        ['generations', n(c.cost.a.generations), n(c.cost.b.generations), ratio(c.cost.ratio.generations)],
        ['generated tokens', n(c.cost.a.tokens), n(c.cost.b.tokens), ratio(c.cost.ratio.tokens)],
        ['block applications', n(c.cost.a.blockApplications), n(c.cost.b.blockApplications), ratio(c.cost.ratio.blockApplications)],
      ]);
      assert.equal(await panelEval<number>(`() => document.querySelectorAll('.rvs-tile').length ? document.querySelectorAll('.rvs-unmatched').length : null`), 0);
      // The picture shows the panel alone, not beside the dataset files earlier tests opened.
      for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) if (tab.input instanceof vscode.TabInputText) await vscode.window.tabGroups.close(tab);
      }
      await panelEval<boolean>(`() => { const t = document.querySelector('.rvs-tiles'); if (!t) return null; t.closest('.card').scrollIntoView({ block: 'start' }); return true; }`);
      await screenshot('routes-vs-search');
    }

    const unequal = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', { ...settings, model, data: twenty, probes: ['routes:3', 'search:2'], repair: false, name: 'suite-rvs-unmatched' });
    assert.equal(unequal.how, 'done', unequal.message);
    const u = readJson<RunSummary>(path.join(unequal.runDir!, 'summary.json')).routesVsSearch;
    assert.equal(u?.match, 'unmatched');
    if (!pageProbesAvailable) return;
    await panelClick('Charts');
    const banner = await panelEval<{ banner: string; titles: string[] }>(`() => {
      const b = document.querySelector('.rvs-unmatched');
      return b ? { banner: b.textContent, titles: Array.from(document.querySelectorAll('.card h3')).map((h) => h.textContent) } : null;
    }`);
    assert.equal(banner.banner, 'UNMATCHED budgets: routes 3 vs search 2 generations per question');
    assert.ok(banner.titles.includes('Random routes vs search — UNMATCHED budgets'), banner.titles.join(', '));
    await panelClick('Questions');
  });
});
