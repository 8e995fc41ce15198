/**
 * `report` on run files edited into nonsense, with the real CLI: each is refused with the file,
 * the line (records.jsonl) and the field named — never "Cannot convert undefined or null to
 * object" or "toPrecision is not a function" — and the files are left as they were.
 */
import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot, runCli } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-malformed-runs-'));
const env = { ...process.env, REACH_AUDIT_DEBUG: '' };
const FIXTURES = path.join(repoRoot, 'test/fixtures/runs');
const BASE = path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base');
const TUNED = path.join(FIXTURES, '2026-12-01T10-15-00Z-demo-tuned');

function copyRun(name: string, edit: (folder: string) => void): string {
  const folder = path.join(root, name);
  fs.cpSync(BASE, folder, { recursive: true });
  edit(folder);
  return folder;
}

function refused(folder: string, expected: string): void {
  const before = fs.readdirSync(folder).map((f) => [f, fs.readFileSync(path.join(folder, f), 'utf8')]);
  const r = runCli(['report', folder], { cwd: root, env });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `reach-audit report: ${expected}\n`);
  assert.equal(r.stdout, '');
  assert.doesNotMatch(r.stderr, /Cannot convert|is not a function|at .*\.js:\d+/);
  assert.deepEqual(fs.readdirSync(folder).map((f) => [f, fs.readFileSync(path.join(folder, f), 'utf8')]), before, 'nothing changed');
}

describe('report on malformed run files', () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('summary.json holding {}', () => {
    const folder = copyRun('empty-summary', (f) => fs.writeFileSync(path.join(f, 'summary.json'), '{}\n'));
    const r = runCli(['report', folder], { cwd: root, env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^reach-audit report: ${path.join(folder, 'summary.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: field n: missing; field realized: missing; field reachable: missing; and \\d+ more\\n$`));
  });

  it('an earlier version\'s summary.json (fields added since missing) names regrade, which reads the run', () => {
    const folder = copyRun('earlier-summary', (f) => {
      const summary = JSON.parse(fs.readFileSync(path.join(f, 'summary.json'), 'utf8')) as Record<string, unknown>;
      delete summary.reachableAnyBudget;
      delete summary.passAtKCi;
      fs.writeFileSync(path.join(f, 'summary.json'), JSON.stringify(summary));
    });
    refused(folder, `${path.join(folder, 'summary.json')}: field reachableAnyBudget: missing; field passAtKCi: missing — an earlier version's summary; \`reach-audit regrade ${folder}\` writes a current run from its stored outputs`);
    const regraded = runCli(['regrade', folder, '--out', path.join(root, 'earlier-regraded')], { cwd: root, env });
    assert.equal(regraded.code, 0, regraded.stderr);
    assert.equal(runCli(['report', path.join(root, 'earlier-regraded')], { cwd: root, env }).code, 0);
  });

  it('records.jsonl lines 5 and ["a"]', () => {
    const lines = fs.readFileSync(path.join(BASE, 'records.jsonl'), 'utf8').trimEnd().split('\n');
    const five = copyRun('record-5', (f) => fs.writeFileSync(path.join(f, 'records.jsonl'), ['5', ...lines.slice(1)].join('\n') + '\n'));
    refused(five, `${path.join(five, 'records.jsonl')}:1: the file: expected an object, got 5`);
    const array = copyRun('record-array', (f) => fs.writeFileSync(path.join(f, 'records.jsonl'), [lines[0], '["a"]', ...lines.slice(2)].join('\n') + '\n'));
    const r = runCli(['report', array], { cwd: root, env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /records\.jsonl:2: field id: missing; field line: missing; field gold: missing; and \d+ more\n$/);
  });

  it('comparison.json with mcnemarP as a string', () => {
    const out = path.join(root, 'comparison');
    const made = runCli(['compare', '--base-run', BASE, '--tuned-run', TUNED, '--out', out], { cwd: root, env });
    assert.equal(made.code, 0, made.stderr);
    const file = path.join(out, 'comparison.json');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { comparison: { realized: Record<string, unknown> } };
    stored.comparison.realized.mcnemarP = '0.5';
    fs.writeFileSync(file, JSON.stringify(stored));
    refused(out, `${file}: field comparison.realized.mcnemarP: expected a number in [0, 1], got "0.5"`);
  });
});
