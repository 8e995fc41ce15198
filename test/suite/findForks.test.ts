/**
 * Find Where the Answer Forks inside a real VS Code: on dataset lines of the demo, the command audits
 * the question with the fork probe and opens it in the panel. A question the base model gets wrong
 * has its forks in the record and in the detail pane (one row a fork, the deployed output token by
 * token); one it gets right says why there is nothing to fork toward.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import type { QuestionRecord } from '../../src/contract';
import { pageProbesAvailable, panelEval } from './pageProbe';
import { activatedExtension, workspaceFolder } from './suiteFixtures';

function recordOf(runDir: string): QuestionRecord {
  const lines = fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').trim().split('\n');
  assert.equal(lines.length, 1, 'a one-question run');
  return JSON.parse(lines[0]) as QuestionRecord;
}

suite('Find Where the Answer Forks', function () {
  this.timeout(300_000);
  let api: ReachAuditApi;
  let data: string;
  let model: string;
  let cacheDir: string;

  suiteSetup(async () => {
    const activated = await activatedExtension();
    api = activated.api;
    data = path.join(activated.demo, 'data', 'arith-test.jsonl');
    model = path.join(activated.demo, 'base');
    cacheDir = path.join(workspaceFolder(), 'forks-suite-cache');
  });

  test('an unrealized question: its forks in the record and the detail pane; a realized one says why none were tried', async () => {
    const options = { model, probes: ['sample:2'], forkProbe: 8, maxNewTokens: 48, threads: 1, cacheDir };
    let forked: { record: QuestionRecord; runDir: string } | undefined;
    let realized: { record: QuestionRecord; result: CommandResult } | undefined;
    // The demo base model gets about half the questions wrong: the first lines give one of each.
    for (let line = 1; line <= 12 && !(forked && realized); line++) {
      const result = await vscode.commands.executeCommand<CommandResult>('reachAudit.findWhereAnswerForks', { file: data, line, options });
      assert.ok(result.runDir, `line ${line}: ${result.how} ${result.message ?? ''}`);
      const record = recordOf(result.runDir);
      assert.ok(record.deployedTokens && record.deployedTokens.steps.length > 0, `line ${line}: the deployed output's token record`);
      if (record.realized.correct) {
        assert.equal(record.fork, undefined, 'no forks on a realized question');
        assert.match(result.message ?? '', new RegExp(`answers question ${record.id} correctly: there is no lost answer to fork toward`));
        realized ??= { record, result };
      } else if (record.fork && record.fork.forks.length > 0) {
        assert.equal(result.how, 'done', result.message);
        assert.equal(result.message, undefined, 'forks found: nothing to explain away');
        assert.ok(record.fork.forks.length <= 8 / 2, 'each fork is continued twice within B = 8');
        forked ??= { record, runDir: result.runDir };
        if (pageProbesAvailable) {
          assert.equal(api.panel.runFolder, result.runDir, 'the panel shows the question\'s run');
          const shown = await panelEval<{ heading: string; rows: number; tokens: number; id: string } | null>(`() => {
            const s = document.querySelector('.detail .fork');
            if (!s) return null;
            return { heading: s.querySelector('h3').textContent, rows: s.querySelectorAll('.fork-row').length, tokens: s.querySelectorAll('.fork-output .fork-token').length, id: document.querySelector('.detail h2')?.textContent ?? '' };
          }`);
          assert.ok(shown, 'the detail pane has the forks section');
          assert.equal(shown.id, `Question ${record.id}`);
          assert.match(shown.heading, /fork probe, B = 8/);
          assert.equal(shown.rows, record.fork.forks.length);
          assert.equal(shown.tokens, record.deployedTokens.steps.length);
        }
      }
    }
    assert.ok(forked, 'a question the base model gets wrong, with forks, among the first 12');
    assert.ok(realized, 'a question the base model gets right among the first 12');
  });
});
