/**
 * Resume from the panel itself: a run stopped by Cancel shows, in the panel's header, that it
 * stopped and a Resume button; pressing it (a click in the page, which posts to the host) continues
 * the run in the same folder, the button gone while it goes and once it is finished. A run cut by
 * a window reload (no status line) gets the same offer with a sentence saying what was kept.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { pageProbesAvailable, panelEval } from './pageProbe';
import { activatedExtension, freshSuiteFolderWithModel, until } from './suiteFixtures';

function recordIds(runDir: string): string[] {
  const file = path.join(runDir, 'records.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => String((JSON.parse(l) as { id: unknown }).id)) : [];
}

/** Page-side: the header's Resume (its sentence and whether it is shown), once `want` (shown or not) holds. */
const RESUME_STATE = `(want) => {
  const box = document.querySelector('.run-resume');
  if (!box) return want ? null : { shown: false, note: '', status: document.querySelector('.run-status')?.textContent ?? '' };
  const shown = !box.hidden && box.getBoundingClientRect().height > 0;
  if (shown !== want) return null;
  return { shown, note: document.querySelector('.run-resume-note')?.textContent ?? '', status: document.querySelector('.run-status')?.textContent ?? '' };
}`;
const CLICK_RESUME = `() => { const b = document.querySelector('.run-resume:not([hidden]) .run-resume-button'); if (!b) return null; b.click(); return true; }`;

suite('Resume from the panel', function () {
  this.timeout(300_000);
  let api: ReachAuditApi;
  let root: string;
  let model: string;
  let data: string;
  const N = 40;
  /** The run the first test stopped and resumed. */
  let finishedRun: string | undefined;

  suiteSetup(async () => {
    ({ root, model } = freshSuiteFolderWithModel('panel-resume-suite'));
    data = path.join(root, 'resume.jsonl');
    fs.writeFileSync(data, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `q${String(i).padStart(3, '0')}`, question: `What is ${i} + 3?`, answer: `#### ${i + 3}` })).join('\n') + '\n');
    ({ api } = await activatedExtension());
  });

  suiteTeardown(async () => {
    api?.panel.close();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a cancelled run: the header offers Resume; pressing it finishes the run in its folder, and the offer goes', async () => {
    let started: string | undefined;
    const firstRecord = new Promise<void>((resolve) => {
      const l = api.session.listen({ onStarted: (e) => (started = e.runDir), onRecord: () => { l.dispose(); resolve(); } });
    });
    const running = vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model, data, probes: ['sample:4', 'routes:4'], maxNewTokens: 8, batch: 1, threads: 1, cacheDir: path.join(root, 'cache'), name: 'panel-resume',
    });
    await firstRecord;
    assert.ok(started);
    const runDir = started;
    assert.equal(api.panel.resumeOffer, undefined, 'no Resume while the run goes');
    api.session.cancelAll();
    const stopped = await running;
    assert.equal(stopped.how, 'cancelled', stopped.message);
    const kept = recordIds(runDir);
    assert.ok(kept.length >= 1 && kept.length < N, `kept ${kept.length}`);
    assert.equal(api.panel.runFolder, runDir, 'the panel shows the stopped run');
    assert.deepEqual(api.panel.resumeOffer, { comparison: false }, 'the header offers Resume (its status line says Cancelled)');

    // Whether the run finished, from the session's events (the resumed run is the panel's, not this test's call).
    let resumedEnd: (() => void) | undefined;
    const ended = new Promise<void>((resolve) => (resumedEnd = resolve));
    const listener = api.session.listen({ onEnded: (dir) => dir && path.resolve(dir) === path.resolve(runDir) && resumedEnd?.() });
    try {
      await api.panel.whenReady();
      if (pageProbesAvailable) {
        const before = await panelEval<{ shown: boolean; note: string; status: string }>(RESUME_STATE, true, 30_000);
        assert.match(before.status, /Cancelled/);
        await panelEval<boolean>(CLICK_RESUME, null, 20_000);
      } else {
        // Without the launcher's page probes: what the button posts, as the page posts it.
        await vscode.commands.executeCommand('reachAudit.resumeRun', { runDir });
      }
      await Promise.race([ended, until('the resumed run to end', () => (fs.existsSync(path.join(runDir, 'summary.json')) ? true : undefined), 240_000)]);
    } finally {
      listener.dispose();
    }
    await until('the summary', () => (fs.existsSync(path.join(runDir, 'summary.json')) ? true : undefined), 60_000);
    const ids = recordIds(runDir);
    assert.equal(ids.length, N, 'every question, in the same folder');
    assert.equal(new Set(ids).size, N, 'each question once');
    await until('the offer gone once finished', () => (api.panel.resumeOffer === undefined && api.panel.runFolder === runDir ? true : undefined), 30_000);
    if (pageProbesAvailable) {
      const after = await panelEval<{ shown: boolean }>(RESUME_STATE, false, 30_000);
      assert.equal(after.shown, false);
    }
    finishedRun = runDir;
  });

  test('a comparison stopped in its trained run: the header offers Resume; pressing it finishes that run and compares the two', async () => {
    const runs: Record<string, string> = {};
    const tunedRecord = new Promise<void>((resolve) => {
      const l = api.session.listen({
        onStarted: (e) => e.label && (runs[e.label] = e.runDir),
        onRecord: (_e, dir) => {
          if (runs.tuned && dir === runs.tuned) {
            l.dispose();
            resolve();
          }
        },
      });
    });
    const comparing = vscode.commands.executeCommand<CommandResult>('reachAudit.compareCheckpoints', {
      baseModel: model, tunedModel: model, data, limit: 12, probes: ['sample:2', 'routes:2'], maxNewTokens: 8, batch: 1, threads: 1, cacheDir: path.join(root, 'cache'), name: 'panel-resume-pair',
    });
    await tunedRecord;
    api.session.cancelAll();
    const stopped = await comparing;
    assert.equal(stopped.how, 'cancelled', stopped.message);
    const { base, tuned } = runs;
    assert.ok(base && tuned);
    assert.ok(fs.existsSync(path.join(base, 'summary.json')), 'the base run finished before Cancel');
    assert.ok(!fs.existsSync(path.join(tuned, 'summary.json')));
    await until('the comparison in the panel', () => (api.panel.runFolder === tuned ? true : undefined));
    const offer = api.panel.resumeOffer;
    assert.equal(offer?.comparison, true, JSON.stringify(offer));
    assert.match(offer?.note ?? '', /The comparison stopped before its end/);

    await api.panel.whenReady();
    if (pageProbesAvailable) {
      const shown = await panelEval<{ shown: boolean; note: string }>(RESUME_STATE, true, 30_000);
      assert.match(shown.note, /comparison stopped/);
      await panelEval<boolean>(CLICK_RESUME, null, 20_000);
    } else {
      void vscode.commands.executeCommand('reachAudit.resumeRun', { runDir: tuned, baseRunDir: base });
    }
    const comparisons = path.join(path.dirname(path.dirname(tuned)), 'comparisons');
    const written = await until('a comparison of the two runs', () => {
      const names = fs.existsSync(comparisons) ? fs.readdirSync(comparisons) : [];
      const found = names.map((n) => path.join(comparisons, n, 'comparison.json')).filter((f) => fs.existsSync(f)).find((f) => {
        const c = JSON.parse(fs.readFileSync(f, 'utf8')) as { base: { folder: string }; tuned: { folder: string } };
        return path.resolve(c.tuned.folder) === path.resolve(tuned) && path.resolve(c.base.folder) === path.resolve(base);
      });
      return found;
    }, 240_000);
    assert.ok(written);
    assert.equal(recordIds(tuned).length, 12, 'the trained run finished in its folder');
    assert.equal(new Set(recordIds(tuned)).size, 12);
    // comparison.json is on disk before the engine's answer reaches the extension, and the trained run
    // alone is shown in between (its resume done): wait for the panel's last load to be the comparison.
    const lastLoad = () => {
      const loads = api.panel.sent.filter((m) => m.type === 'loadRun');
      return loads[loads.length - 1];
    };
    await until('the comparison shown, with nothing to resume', () => {
      const last = lastLoad();
      return api.panel.runFolder === tuned && api.panel.resumeOffer === undefined && last?.type === 'loadRun' && last.baseRun && last.compare ? true : undefined;
    }, 30_000);
    const last = lastLoad();
    assert.ok(last?.type === 'loadRun' && last.baseRun && last.compare, 'the panel shows the comparison with its numbers');
  });

  test('a run cut by a window reload (no status line): the header says so and offers Resume', async () => {
    // The finished run of the first test, made unfinished as a reload leaves it: no summary, no status.
    const runDir = finishedRun;
    assert.ok(runDir, 'the first test finished a run');
    const copy = path.join(path.dirname(runDir), `${path.basename(runDir)}-cut`);
    fs.cpSync(runDir, copy, { recursive: true });
    fs.rmSync(path.join(copy, 'summary.json'));
    try {
      await vscode.commands.executeCommand('reachAudit.openPanel', { runDir: copy });
      await until('the cut run in the panel', () => (api.panel.runFolder === copy ? true : undefined));
      const offer = api.panel.resumeOffer;
      assert.equal(offer?.comparison, false);
      assert.match(offer?.note ?? '', /Stopped before its end · 40 questions kept/);
      if (pageProbesAvailable) {
        await api.panel.whenReady();
        const shown = await panelEval<{ shown: boolean; note: string }>(RESUME_STATE, true, 30_000);
        assert.match(shown.note, /Stopped before its end/);
      }
    } finally {
      api.panel.close();
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
