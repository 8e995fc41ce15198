/**
 * Watch Training Run sized and followed (walkthrough 3, point 4): from the palette it asks, as Run
 * Reachability Audit does, how many questions and which probes with what budget (typed into VS
 * Code's own pickers by the launcher); its notification shows the checkpoint's estimate, then its
 * questions done one by one; watched again after a restart, a checkpoint finished before reads as
 * audited at once, never as "being written".
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { WatchArgs, WatchOutcome } from '../../src/extension/commands/watchTrainingRun';
import { commandThroughPickers, pageProbesAvailable } from './pageProbe';
import { freshSuiteFolder, activatedExtension } from './suiteFixtures';

const ASKED = /^auditing checkpoint-100 · 0 queued · 0 done — checkpoint-100: (\d+)\/20 questions \(\d+%\)/;

suite('Watch Training Run: sized from the palette, its progress question by question', function () {
  this.timeout(300_000);
  let api: ReachAuditApi;
  let root: string;
  let demo: string;
  let first: WatchOutcome | undefined;
  const config = () => vscode.workspace.getConfiguration('reachAudit');

  suiteSetup(async () => {
    root = freshSuiteFolder('watch-progress-suite');
    fs.mkdirSync(path.join(root, 'run'), { recursive: true });
    ({ api, demo } = await activatedExtension());
    fs.cpSync(path.join(demo, 'base'), path.join(root, 'run', 'checkpoint-100'), { recursive: true });
    // Short outputs: the demo's 20 questions in seconds.
    await config().update('maxNewTokens', 32, vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(async () => {
    await config().update('maxNewTokens', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(root, { recursive: true, force: true });
  });

  const base = (): WatchArgs => ({ dir: path.join(root, 'run'), data: path.join(demo, 'data', 'arith-test.jsonl'), poll: 0.2, untilIdle: 1.5, out: path.join(root, 'trajectory') });

  test('asks how many questions and what budget, then shows the estimate and each question done', async function () {
    if (!pageProbesAvailable) this.skip(); // the answers are typed into VS Code's pickers
    const from = api.watches.reported.length;
    // Sized through its three pickers.
    first = await commandThroughPickers(() => vscode.commands.executeCommand<WatchOutcome>('reachAudit.watchTrainingRun', base()), [
      ['questions of arith-test.jsonl', 'First 20'], // how many questions
      ['Reach Audit: probes', ''], // which probes: the ones offered
      ['budget per probe', '2'], // the budget of each
    ]);
    assert.equal(first.how, 'ended', first.message);
    const argv = (first.argv ?? []).join(' ');
    assert.match(argv, /--limit 20\b/);
    assert.match(argv, /--probe (sample|routes|search):2\b/);
    assert.doesNotMatch(argv, /:(?!2\b)\d+/, 'every probe at the budget typed');
    const said = api.watches.reported.slice(from);
    assert.ok(said.some((m) => /^auditing checkpoint-100 · 0 queued · 0 done — checkpoint-100: (estimate about \S+ at [\d.,]+ tokens\/s|0\/20 questions .* · estimate about)/.test(m)), `the estimate:\n${said.slice(0, 8).join('\n')}`);
    const counts = [...new Set(said.map((m) => ASKED.exec(m)?.[1]).filter((d) => d !== undefined).map(Number))];
    assert.ok(counts.filter((d) => d > 0 && d < 20).length >= 5, `questions done, one by one: ${counts.join(', ')}`);
    assert.ok(counts.includes(20), counts.join(', '));
  });

  test('watched again after a restart: the checkpoint done before is never shown as being written', async function () {
    assert.ok(first?.argv, 'the first watch ran');
    // The same flags as the first watch (those between the data and the watch's own).
    const argv = first.argv;
    const flags = argv.slice(4, argv.findIndex((a, i) => i >= 4 && ['--out', '--poll', '--until-idle', '--max-checkpoints'].includes(a)));
    const from = api.watches.reported.length;
    const again = await vscode.commands.executeCommand<WatchOutcome>('reachAudit.watchTrainingRun', { ...base(), flags });
    assert.equal(again.how, 'ended', again.message);
    const said = api.watches.reported.slice(from);
    assert.ok(said.length > 0);
    assert.deepEqual(said.filter((m) => m.includes('being written')), []);
    assert.match(again.status ?? '', /· 1 done$/);
  });
});
