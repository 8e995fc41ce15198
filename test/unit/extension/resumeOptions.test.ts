import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { resumePlan } from '../../../src/extension/commands/resumeOptions';

// out/test/unit/extension → test/fixtures/runs
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/runs');
const temp = mkdtempSync(path.join(os.tmpdir(), 'reach-audit-resume-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** A stopped copy of a fixture run in a workspace's runs, its manifest changed by `edit`. */
function stoppedRun(edit: (m: Record<string, unknown>) => void): string {
  const runDir = path.join(temp, 'ws', '.reach-audit', 'runs', `run-${Math.random().toString(36).slice(2)}`);
  cpSync(path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base'), runDir, { recursive: true });
  rmSync(path.join(runDir, 'summary.json'));
  const manifest = JSON.parse(readFileSync(path.join(runDir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  edit(manifest);
  writeFileSync(path.join(runDir, 'manifest.json'), JSON.stringify(manifest));
  return runDir;
}

test("a run started by Add Probes to This Log… resumes from VS Code with the log its manifest names", () => {
  const log = path.join(temp, 'ws', '.reach-audit', 'runs', 'gsm8k-imported');
  const runDir = stoppedRun((m) => (m.realizedFrom = { source: log, sha256: 'a'.repeat(64), tool: 'lm-evaluation-harness' }));
  const plan = resumePlan(runDir);
  assert.ok('options' in plan, 'problem' in plan ? plan.problem : '');
  assert.equal(plan.options.realizedFrom, log);
  assert.equal(plan.options.out, runDir);
  assert.equal(plan.options.resume, true);
});

test('a shard still resumes only from a terminal, and says so', () => {
  const runDir = stoppedRun((m) => ((m.selection as Record<string, unknown>).shard = { index: 0, count: 2, questions: 2, ofQuestions: 4 }));
  const plan = resumePlan(runDir);
  assert.ok('problem' in plan);
  assert.match(plan.problem, /only the command line can give again \(shard\)/);
});
