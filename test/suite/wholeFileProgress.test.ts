/**
 * A whole-file audit's progress in the real VS Code, checked in the rendered notifications: before
 * the first question the plan and its cost measured on a warm-up are offered with Cancel, in a
 * notification that closes when its run ends (a comparison's base estimate is gone while the tuned
 * run works); the
 * progress notification counts finished questions one at a time (not a chunk at once), shows the
 * generated tokens per second, and gives no time left until the engine has measured one (beside the
 * speed it rests on); a comparison's counts say which run they are of. Cancel on the estimate cancels
 * the run before any question is recorded. The notifications are read from the workbench DOM as
 * they render (a mutation observer keeps every message shown); the extension's own messages are
 * read beside them. The launcher's smoke-test driver keeps VS Code from showing toasts, so the
 * suite opens the notifications center, where the same notifications render with their live
 * messages and buttons.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable, panelEval, screenshot, workbenchEval } from './pageProbe';
import { installedExtension, activatedExtension, freshSuiteFolderWithModel } from './suiteFixtures';

const N = 24;

/**
 * Page-side: from now on, every distinct message the notifications center renders, in order, with
 * its buttons; and each distinct set of messages shown at once (what was on screen together).
 */
const WATCH_TOASTS = `() => {
  const seen = (window.__reachAuditToasts = []);
  const together = (window.__reachAuditToastSets = []);
  const known = new Set();
  let last = '';
  const look = () => {
    const now = Array.from(document.querySelectorAll('.notifications-center .notification-list-item-message')).map((m) => m.textContent.trim()).filter((m) => m !== '');
    if (JSON.stringify(now) !== last) {
      last = JSON.stringify(now);
      together.push(now);
    }
    for (const item of document.querySelectorAll('.notifications-center .notification-list-item')) {
      const message = (item.querySelector('.notification-list-item-message')?.textContent ?? '').trim();
      const buttons = Array.from(item.querySelectorAll('.notification-list-item-buttons-container .monaco-button')).map((b) => b.textContent.trim());
      const key = message + '\\u0000' + buttons.join('|');
      if (message === '' || known.has(key)) continue;
      known.add(key);
      seen.push({ message, buttons });
    }
  };
  window.__reachAuditToastObserver?.disconnect();
  window.__reachAuditToastObserver = new MutationObserver(look);
  window.__reachAuditToastObserver.observe(document.body, { childList: true, subtree: true, characterData: true });
  look();
  return true;
}`;
const RENDERED_TOASTS = `() => window.__reachAuditToasts ?? null`;
/** Page-side (the audit panel): the status line's count and the headline's, read at once while running. */
const PANEL_COUNTS = `() => {
  const status = document.querySelector('.run-status .status-text')?.textContent ?? '';
  if (status.startsWith('Done')) return 'done';
  const running = /^Running · (\\d+) \\/ 24$/.exec(status);
  const story = /^(\\d+) questions? so far/.exec(document.querySelector('.story-counts strong')?.textContent ?? '');
  const metric = document.querySelector('.metric-n .metric-value')?.textContent;
  const headline = story ? Number(story[1]) : metric ? Number(metric.replace(/,/g, '')) : undefined;
  return running && headline !== undefined ? { status: Number(running[1]), headline } : null;
}`;
const SHOWN_TOGETHER = `() => window.__reachAuditToastSets ?? null`;
/** Page-side: the messages the notifications center shows now. */
const SHOWN_NOW = `() => Array.from(document.querySelectorAll('.notifications-center .notification-list-item-message')).map((m) => m.textContent.trim())`;
/** Page-side: presses Cancel on the estimate's notification (the progress notification has its own Cancel). */
const CANCEL_ESTIMATE = `() => {
  const item = Array.from(document.querySelectorAll('.notifications-center .notification-list-item')).find((i) => (i.querySelector('.notification-list-item-message')?.textContent ?? '').includes('Estimate: about'));
  const button = item && Array.from(item.querySelectorAll('.notification-list-item-buttons-container .monaco-button')).find((b) => b.textContent.trim() === 'Cancel');
  if (!button) return null;
  button.click();
  return true;
}`;

interface Toast {
  message: string;
  buttons: string[];
}

function recordLines(runDir: string): number {
  const file = path.join(runDir, 'records.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').length : 0;
}

/** The question count a progress message gives ("7/24 questions · …"), undefined for other messages. */
function doneIn(message: string): number | undefined {
  const m = new RegExp(`(?:^|: )(\\d+)/${N} questions`).exec(message);
  return m ? Number(m[1]) : undefined;
}

/** The estimate as offered: the plan by stage, then tokens and time from the measured warm-up, memory beside them (then, once measured, the time left). */
const ESTIMATE = (stages: string) =>
  new RegExp(
    `^Reach Audit: ${N} questions × \\(${stages.replace(/[+()]/g, '\\$&')}\\) = [\\d]+ generations(, \\+ repair \\d+ per scanned question \\(up to \\d+\\))?\\. ` +
      'Estimate: about [\\d,]+(–[\\d,]+)? tokens \\(\\d+(–\\d+)? per generation(; outputs not stopped within the warm-up may run to the token budget)?\\), about \\S+(–\\S+)? at [\\d.]+ tokens/s \\(measured warm-up: \\d+ of the first question\'s requests, \\d+ tokens in [\\d.]+ s\\)' +
      '; memory: about [\\d.]+ \\S+ of f32 weights \\+ up to [\\d.]+ \\S+ of KV cache \\(\\d+ sequences? at once × [\\d.]+ \\S+\\), not counting working buffers, prompts prefilled ahead or the prefix store\\.(:? measured: .* left.*)?$',
  );

suite('A whole-file audit: the estimate with Cancel, live progress', function () {
  this.timeout(240_000);
  let api: ReachAuditApi;
  let root: string;
  let model: string;
  let data: string;

  suiteSetup(async () => {
    ({ root, model } = freshSuiteFolderWithModel('progress-suite'));
    data = path.join(root, 'progress-24.jsonl');
    fs.writeFileSync(data, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `p${i}`, question: `What is ${i} + 2?`, answer: `#### ${i + 2}` })).join('\n') + '\n');
    ({ api } = await activatedExtension());
  });

  /**
   * Clears the notifications of earlier tests, opens the notifications center and watches what it
   * renders. The center closes itself when its list empties (a clicked button removes its
   * notification), so one notification of the suite's own stays in it.
   */
  async function watchToasts(): Promise<void> {
    await vscode.commands.executeCommand('notifications.clearAll');
    void vscode.window.showInformationMessage('Reach Audit suite: this test reads the notifications here.');
    await vscode.commands.executeCommand('notifications.showList');
    if (pageProbesAvailable) await workbenchEval<boolean>(WATCH_TOASTS);
  }

  teardown(async () => {
    await vscode.commands.executeCommand('notifications.hideList');
  });

  test('the estimate is offered before the first question; progress counts one question at a time with tokens/s, and no time left until measured', async () => {
    await watchToasts();
    const messages: string[] = [];
    const order: string[] = [];
    const estimates: string[] = [];
    const listener = api.session.listen({
      onProgressMessage: (m) => messages.push(m),
      onEstimate: (m) => {
        estimates.push(m);
        order.push('estimate');
      },
      onRecord: () => order.push('record'),
    });
    // Walkthrough defect 1: what the panel header, the run's Runs-view row and the Audit view said
    // while the run went (sampled every 200 ms), and the header as rendered after a few questions.
    const live = { header: new Set<number>(), row: new Set<number>(), auditView: new Set<number>() };
    let liveDir: string | undefined;
    let records = 0;
    let headerSeen: Promise<string | null> | undefined;
    // Walkthrough 3, point 6: at each sample, the notification, the status bar, the Runs view's row
    // and the Audit view give one count (read in one turn of the extension host).
    const together: { notification?: number; statusBar?: number; row?: number; auditView?: number }[] = [];
    const panelCounts: Promise<{ status: number; headline: number } | 'done' | string>[] = [];
    let entry: Awaited<ReturnType<typeof api.runs.runs>>[number] | undefined;
    const sampler = setInterval(() => {
      for (const m of api.panel.sent) if (m.type === 'runStatus' && m.status === 'running') live.header.add(m.done);
      if (!liveDir) return;
      if (entry) {
        const description = String(api.runs.getTreeItem({ kind: 'run', run: entry }).description ?? '');
        const counted = /^running · (\d+) \/ 24 questions$/.exec(description)?.[1];
        if (counted) live.row.add(Number(counted));
        const said = /Running · (\d+) \/ 24 questions/.exec(api.auditView.html)?.[1];
        if (said) live.auditView.add(Number(said));
        const bar = /: (\d+)\/24$/.exec(api.session.statusBarText ?? '')?.[1];
        const last = messages.length > 0 ? doneIn(messages[messages.length - 1]) : undefined;
        if (counted && said && bar && last !== undefined && last > 0 && last < N) together.push({ notification: last, statusBar: Number(bar), row: Number(counted), auditView: Number(said) });
      }
      void api.runs.runs().then((runs) => (entry = runs.find((r) => r.folder === liveDir)));
    }, 200);
    const counting = api.session.listen({
      onStarted: (e) => (liveDir = e.runDir),
      onRecord: () => {
        // The panel header as the page renders it, once four questions have finished (the run may
        // end first on a fast machine: then the page says Done and the host-side samples decide).
        if (++records === 4 && pageProbesAvailable) {
          headerSeen = panelEval<string>(`() => { const t = document.querySelector('.run-status .status-text')?.textContent ?? ''; return /^(Running · ([4-9]|1\\d|2[0-4]) \\/ 24|Done · 24 questions)$/.test(t) ? t : null; }`).catch((err: Error) => `probe failed: ${err.message}`);
        }
        // The panel's status line and its headline, read in one go: one count.
        if (records % 4 === 2 && records < N && pageProbesAvailable) panelCounts.push(panelEval<{ status: number; headline: number } | 'done'>(PANEL_COUNTS).catch((err: Error) => `probe failed: ${err.message}`));
      },
    });
    let result: CommandResult;
    try {
      result = await vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
        // 64 tokens: the run outlasts the time the engine needs before it trusts its speed
        // (MIN_TIMED_MS, timeLeft.ts), so a time left is shown before the end.
        model, data, probes: ['sample:8', 'routes:8', 'search:8'], repair: true, maxNewTokens: 64, batch: 4, threads: 1,
        cacheDir: path.join(root, 'cache'), name: 'progress-live',
      });
    } finally {
      listener.dispose();
      counting.dispose();
      clearInterval(sampler);
    }
    assert.equal(result.how, 'done', result.message);
    assert.equal(recordLines(result.runDir!), N);
    const midRun = (seen: Set<number>) => [...seen].filter((d) => d > 0 && d < N);
    assert.ok(midRun(live.header).length >= 3, `panel header counts while running: ${[...live.header].join(', ')}`);
    assert.ok(midRun(live.row).length >= 2, `Runs view row counts while running: ${[...live.row].join(', ')}`);
    assert.ok(midRun(live.auditView).length >= 2, `Audit view counts while running: ${[...live.auditView].join(', ')}`);
    if (headerSeen) assert.match((await headerSeen) ?? '', /^(Running · \d+ \/ 24|Done · 24 questions)$/);
    assert.ok(together.length >= 2, `samples with every count shown: ${JSON.stringify(together)}`);
    for (const t of together) assert.ok(t.statusBar === t.notification && t.row === t.notification && t.auditView === t.notification, `one count: ${JSON.stringify(t)}`);
    const inPanel = (await Promise.all(panelCounts)).filter((c) => c !== 'done');
    for (const c of inPanel) assert.ok(typeof c === 'object' && c.status === c.headline, `the panel's status line and headline: ${JSON.stringify(c)}`);

    // The plan and its measured cost, offered once, before any question finished.
    assert.equal(estimates.length, 1, JSON.stringify(estimates));
    assert.match(estimates[0], ESTIMATE('deployment 1 + sample 8 + routes 8 + search 8 + global-routes 8'));
    assert.equal(order[0], 'estimate', order.slice(0, 3).join(', '));
    assert.equal(order.filter((o) => o === 'record').length, N);

    // The notification's messages as the extension reported them: every count from 0 to N, one step at a time.
    const counts = messages.map(doneIn).filter((d): d is number => d !== undefined);
    assert.equal(counts[0], 0);
    assert.equal(counts.at(-1), N);
    for (let i = 1; i < counts.length; i++) assert.ok(counts[i] - counts[i - 1] === 0 || counts[i] - counts[i - 1] === 1, `count went ${counts[i - 1]} → ${counts[i]}`);
    assert.deepEqual([...new Set(counts)], Array.from({ length: N + 1 }, (_, i) => i));
    // Tokens are timed before the first question finishes; the time left only after one has.
    assert.ok(messages.some((m) => doneIn(m) === 0 && /· [\d.]+ tokens\/s/.test(m)), messages.slice(0, 8).join('\n'));
    // A time left only once measured (timeLeft.ts: returned generations timed for 5 s), always beside the
    // speed it rests on; on a loaded machine that can come before the first question finishes.
    assert.doesNotMatch(messages[0], /left/, messages[0]);
    for (const m of messages) if (/ left\b/.test(m)) assert.match(m, /· [\d.]+ tokens\/s · /, `time left without a measured speed: ${m}`);
    assert.ok(messages.some((m) => /^\d+\/24 questions( · [\d,]+ tokens)? · [\d.]+ tokens\/s · (\d+h\d\dm|\d+m\d\ds|\d+s) left$/.test(m)), `a measured time left is shown once a question has finished:\n${messages.filter((m) => (doneIn(m) ?? 0) >= 1).slice(0, 8).join('\n')}`);

    if (!pageProbesAvailable) return;
    // What the window rendered: the estimate toast with its Cancel button, and the progress toast's counts.
    const toasts = await workbenchEval<Toast[]>(RENDERED_TOASTS);
    const offered = toasts.find((t) => t.message.includes('Estimate: about'));
    assert.ok(offered, JSON.stringify(toasts.map((t) => t.message)));
    assert.match(offered.message, ESTIMATE('deployment 1 + sample 8 + routes 8 + search 8 + global-routes 8'));
    assert.deepEqual(offered.buttons, ['Cancel']);
    const progress = toasts.filter((t) => t.message.startsWith('Reach Audit: auditing progress-24.jsonl: '));
    const rendered = progress.map((t) => doneIn(t.message)).filter((d): d is number => d !== undefined);
    assert.ok(rendered.length > 0, JSON.stringify(toasts.map((t) => t.message)));
    // Not a chunk at a time: the window showed several counts between none and all.
    const between = new Set(rendered.filter((d) => d > 0 && d < N));
    assert.ok(between.size >= 3, `rendered counts: ${rendered.join(', ')}`);
    for (let i = 1; i < rendered.length; i++) assert.ok(rendered[i] >= rendered[i - 1], `rendered count went back: ${rendered.join(', ')}`);
    assert.ok(progress.some((t) => / [\d.]+ tokens\/s/.test(t.message)), 'tokens/s rendered');
    for (const t of progress) {
      if (/ left\b/.test(t.message)) assert.match(t.message, /· [\d.]+ tokens\/s · /, `rendered a time left before one was measured: ${t.message}`);
    }
    assert.ok(progress.some((t) => / left$/.test(t.message) && doneIn(t.message)! >= 1), 'a measured time left was rendered');

    // The offer does not outlive its run: once the audit has ended it is gone from the list.
    const shown = await workbenchEval<string[]>(SHOWN_NOW);
    assert.ok(!shown.some((m) => m.includes('Estimate: about')), JSON.stringify(shown));
    assert.equal(recordLines(result.runDir!), N, 'the finished run is untouched');
    assert.ok(fs.existsSync(path.join(result.runDir!, 'summary.json')));
  });

  test('Compare Checkpoints: each count says which run it is of, the base run first, then the trained one', async () => {
    await watchToasts();
    const { demo } = installedExtension();
    const messages: string[] = [];
    const estimates: string[] = [];
    const listener = api.session.listen({ onProgressMessage: (m) => messages.push(m), onEstimate: (m) => estimates.push(m) });
    let result: CommandResult;
    try {
      result = await vscode.commands.executeCommand<CommandResult>('reachAudit.compareCheckpoints', {
        baseModel: path.join(demo, 'base'), tunedModel: path.join(demo, 'tuned'), data: path.join(demo, 'data', 'arith-test.jsonl'),
        limit: 6, probes: ['sample:2', 'routes:2', 'search:2'], repair: false, maxNewTokens: 32, batch: 2, threads: 1,
        cacheDir: path.join(root, 'cache'), name: 'progress-compare',
      });
    } finally {
      listener.dispose();
    }
    assert.equal(result.how, 'done', result.message);
    // Both runs over: neither Runs-view row still counts as running (the request's end names only the tuned run).
    const compared = (await api.runs.refresh()).filter((r) => path.basename(r.folder).includes('progress-compare'));
    assert.equal(compared.length, 2, compared.map((r) => r.folder).join(', '));
    for (const run of compared) assert.doesNotMatch(String(api.runs.getTreeItem({ kind: 'run', run }).description), /^running/, run.folder);
    assert.deepEqual(estimates.map((e) => /^Reach Audit \((base|tuned) run\): 6 questions × /.exec(e)?.[1]), ['base', 'tuned'], estimates.join('\n'));
    const counts = messages.map((m) => /^(base|tuned): (\d+)\/6 questions/.exec(m)).filter((m) => m !== null).map((m) => `${m[1]} ${m[2]}`);
    const steps = [...new Set(counts)];
    assert.deepEqual(steps, [...[0, 1, 2, 3, 4, 5, 6].map((d) => `base ${d}`), ...[0, 1, 2, 3, 4, 5, 6].map((d) => `tuned ${d}`)], counts.join(', '));
    if (!pageProbesAvailable) return;
    const toasts = await workbenchEval<Toast[]>(RENDERED_TOASTS);
    const rendered = toasts.map((t) => /: (base|tuned): \d+\/6 questions/.exec(t.message)?.[1]).filter((l) => l !== undefined);
    assert.ok(rendered.includes('base') && rendered.includes('tuned'), JSON.stringify(toasts.map((t) => t.message)));
    assert.ok(rendered.indexOf('tuned') > rendered.lastIndexOf('base'), `rendered ${rendered.join(', ')}`);
    // The notifications follow the run in progress: once the tuned run has finished a question, the
    // base run's estimate is gone; the tuned run's estimate showed; after the end neither is left.
    // (Not from the tuned run's first count: VS Code keeps a progress notification up for at least
    // 800 ms after it opened, and the demo's base run of 6 questions can end sooner than that.)
    const together = await workbenchEval<string[][]>(SHOWN_TOGETHER);
    const duringTuned = together.filter((set) => set.some((m) => /: tuned: [1-6]\/6 questions/.test(m)));
    assert.ok(duringTuned.length > 0, JSON.stringify(together));
    for (const set of duringTuned) assert.ok(!set.some((m) => m.startsWith('Reach Audit (base run): ')), `the base run's estimate beside the tuned run's progress: ${JSON.stringify(set)}`);
    assert.ok(together.some((set) => set.some((m) => m.startsWith('Reach Audit (tuned run): '))), 'the tuned run\'s estimate was shown');
    // (Within VS Code's 800 ms minimum display of a progress notification.)
    let after = await workbenchEval<string[]>(SHOWN_NOW);
    for (const deadline = Date.now() + 3_000; after.some((m) => m.includes('Estimate: about')) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      after = await workbenchEval<string[]>(SHOWN_NOW);
    }
    assert.ok(!after.some((m) => m.includes('Estimate: about')), JSON.stringify(after));
  });

  test('Cancel on the estimate cancels the run before any question is recorded', async function () {
    if (!pageProbesAvailable) this.skip(); // the button is clicked in the rendered window
    await watchToasts();
    let estimated!: () => void;
    const estimate = new Promise<void>((resolve) => (estimated = resolve));
    const messages: string[] = [];
    let records = 0;
    const listener = api.session.listen({
      onEstimate: () => estimated(),
      onProgressMessage: (m) => messages.push(m),
      onRecord: () => records++,
    });
    let result: CommandResult;
    try {
      // Budgets large enough that the first question takes a minute or more: the click lands well
      // before it. (At 48 tokens the engine finished two questions of this tiny model within the
      // second the click took; at 256 the first took 30 s on the CLI.)
      const running = vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
        model, data, probes: ['sample:32', 'routes:32', 'search:32'], repair: false, maxNewTokens: 512, batch: N, threads: 1,
        cacheDir: path.join(root, 'cache'), name: 'progress-cancel',
      });
      await estimate;
      const toast = await workbenchEval<Toast>(`() => (window.__reachAuditToasts ?? []).find((t) => t.message.includes('sample 32 + routes 32') && t.message.includes('Estimate: about') && t.buttons.includes('Cancel')) ?? null`);
      assert.match(toast.message, ESTIMATE('deployment 1 + sample 32 + routes 32 + search 32 + global-routes 32'));
      await screenshot('estimate-cancel');
      assert.equal(await workbenchEval<boolean>(CANCEL_ESTIMATE), true);
      result = await running;
    } finally {
      listener.dispose();
    }
    assert.equal(result.how, 'cancelled', result.message);
    assert.ok(result.runDir);
    assert.equal(records, 0, 'no question finished');
    assert.equal(recordLines(result.runDir), 0, 'records.jsonl holds no question');
    assert.ok(!fs.existsSync(path.join(result.runDir, 'summary.json')));
    assert.ok(fs.existsSync(path.join(result.runDir, 'manifest.json')), 'the run folder stays, resumable');
    for (const m of messages) {
      const done = doneIn(m);
      if (done !== undefined) assert.equal(done, 0, m);
    }
    // The window says what was kept.
    const stopped = await workbenchEval<string>(
      `() => (window.__reachAuditToasts ?? []).map((t) => t.message).find((m) => m.startsWith('Reach Audit: audit stopped;')) ?? null`,
    );
    assert.equal(stopped, `Reach Audit: audit stopped; 0 finished questions kept in ${path.basename(result.runDir)}.`);
  });
});
