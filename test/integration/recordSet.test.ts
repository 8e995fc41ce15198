/**
 * The record set of a run folder, as table, regrade and compare read it (issue 29): a duplicated
 * line, a deleted line, a record with fewer attempts than its budget or a budget unlike the run's
 * is refused naming the file, the question and what was expected — never counted (n used to count
 * a duplicated question twice). The untouched fixture runs still read.
 */
import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot, runCli } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-record-set-'));
const env = { ...process.env, REACH_AUDIT_DEBUG: '' };
const BASE = path.join(repoRoot, 'test/fixtures/runs/2026-12-01T09-30-00Z-demo-base');
const TUNED = path.join(repoRoot, 'test/fixtures/runs/2026-12-01T10-15-00Z-demo-tuned');

type Rec = { id: string; probes: Record<string, { budget: number; attempts: unknown[]; correct: boolean[] }> };

function editedRun(name: string, edit: (records: Rec[]) => Rec[], keepSummary = true): string {
  const folder = path.join(root, name);
  fs.cpSync(BASE, folder, { recursive: true });
  const file = path.join(folder, 'records.jsonl');
  const records = fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Rec);
  fs.writeFileSync(file, edit(records).map((r) => JSON.stringify(r)).join('\n') + '\n');
  if (!keepSummary) fs.rmSync(path.join(folder, 'summary.json'));
  return folder;
}

function refusedEverywhere(folder: string, expected: RegExp): void {
  const file = path.join(folder, 'records.jsonl');
  for (const [command, args] of [
    ['table', ['table', folder]],
    ['regrade', ['regrade', folder, '--out', path.join(root, `${path.basename(folder)}-regraded`)]],
    ['compare', ['compare', '--base-run', folder, '--tuned-run', TUNED, '--out', path.join(root, `${path.basename(folder)}-cmp`)]],
  ] as const) {
    const r = runCli([...args], { cwd: root, env });
    assert.notEqual(r.code, 0, `${command} accepted it`);
    assert.ok(r.stderr.startsWith(`reach-audit ${command}: ${file}: `), `${command}: ${r.stderr}`);
    assert.match(r.stderr, expected, command);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
}

describe('the record set every reader checks', () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads the untouched fixture runs', () => {
    const r = runCli(['table', BASE, TUNED], { cwd: root, env });
    assert.equal(r.code, 0, r.stderr);
  });

  it('a duplicated line and a deleted one (n would count a question twice)', () => {
    const folder = editedRun('dup-missing', (rs) => [...rs.slice(0, 3), rs[2], ...rs.slice(4)]);
    refusedEverywhere(folder, /question "arith-A02-0002" is recorded twice \(records 3 and 4\); the file was edited or damaged/);
  });

  it('a deleted line in a finished run', () => {
    const folder = editedRun('missing', (rs) => rs.slice(1));
    refusedEverywhere(folder, /holds 7 questions, but the run finished all 8 it selected/);
  });

  it('a record with no attempts for a budget of 4', () => {
    const folder = editedRun('no-attempts', (rs) => rs.map((r, i) => (i === 1 ? { ...r, probes: { ...r.probes, sample: { ...r.probes.sample, attempts: [], correct: [] } } } : r)));
    refusedEverywhere(folder, /probe sample: 0 attempts for a budget of 4/);
  });

  it('a probe budget unlike the run\'s', () => {
    const folder = editedRun('budget', (rs) => rs.map((r, i) => (i === 0 ? { ...r, probes: { ...r.probes, routes: { ...r.probes.routes, budget: 2 } } } : r)));
    refusedEverywhere(folder, /probe routes: budget 2, but the run's is 4/);
  });

  it('an unfinished run may hold fewer questions, never the same one twice', () => {
    const fewer = editedRun('unfinished', (rs) => rs.slice(0, 5), false);
    // Refused unless asked for; with --allow-unfinished its finished questions are used.
    const refused = runCli(['table', fewer], { cwd: root, env });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /has not finished \(5 of 8 questions\); finish it with --resume, or pass --allow-unfinished/);
    const r = runCli(['table', fewer, '--allow-unfinished'], { cwd: root, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /has not finished \(5 of 8 questions\)/);
    const twice = editedRun('unfinished-dup', (rs) => [...rs.slice(0, 5), rs[0]], false);
    const t = runCli(['table', twice, '--allow-unfinished'], { cwd: root, env });
    assert.notEqual(t.code, 0);
    assert.match(t.stderr, /question "arith-A00-0000" is recorded twice \(records 1 and 6\)/);
  });

  it('regrade checks a --data FILE against the run whatever the format, and the records against it', () => {
    const data = path.join(repoRoot, 'media/demo/data/arith-test.jsonl');
    const other = path.join(repoRoot, 'media/demo/data/choice-test.jsonl');
    const r = runCli(['regrade', BASE, '--data', other, '--out', path.join(root, 'other-format')], { cwd: root, env });
    assert.notEqual(r.code, 0);
    // Loaded in the run's format, another format's file is named for what it is.
    assert.ok(r.stderr.startsWith(`reach-audit regrade: ${other}: answer format gsm8k does not fit this file's ARC `), r.stderr);
    const edited = editedRun('edited-gold', (rs) => rs.map((x, i) => (i === 2 ? { ...x, gold: '12345' } : x)));
    const g = runCli(['regrade', edited, '--data', data, '--out', path.join(root, 'edited-gold-regraded')], { cwd: root, env });
    assert.notEqual(g.code, 0);
    assert.match(g.stderr, new RegExp(`question "arith-A02-0002" has gold "12345", ${data.replace(/[.]/g, '\\.')}:3 has "`));
    const ok = runCli(['regrade', BASE, '--data', data, '--out', path.join(root, 'base-regraded')], { cwd: root, env });
    assert.equal(ok.code, 0, ok.stderr);
  });
});
