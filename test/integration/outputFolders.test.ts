/**
 * Output files whose folder cannot be made (report --html, table --md), with the real CLI: the
 * message names the flag, the folder and the cause, at once — a folder under /proc used to make
 * the command spin for ever, deaf to Ctrl-C — and nothing is written.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtCli, repoRoot, runCli } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-output-folders-'));
const run = path.join(repoRoot, 'test/fixtures/runs/2026-12-01T09-30-00Z-demo-base');
const env = { ...process.env, REACH_AUDIT_DEBUG: '' };
const file = path.join(root, 'a-file');

describe('output folders that cannot be made', () => {
  before(() => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    fs.writeFileSync(file, 'x');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('report --html under a file names the file in the way', () => {
    const html = path.join(file, 'out', 'report.html');
    const r = runCli(['report', run, '--html', html], { cwd: root, env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `reach-audit report: --html ${html}: cannot write the folder ${path.dirname(html)}: a file is in the way (expected a folder) (${file} is a file)\n`);
    assert.equal(r.stdout, '');
  });

  it('report --html and table --md under /proc are refused at once', { skip: process.platform !== 'linux' && 'Linux file systems' }, () => {
    const started = Date.now();
    const r = runCli(['report', run, '--html', '/proc/reach-audit/report.html'], { cwd: root, env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, 'reach-audit report: --html /proc/reach-audit/report.html: cannot write the folder /proc/reach-audit: it is on the proc file system, which holds no ordinary files; choose a folder on a disk\n');
    const t = runCli(['table', run, '--md', '/proc/reach-audit/tables.md'], { cwd: root, env });
    assert.equal(t.code, 2, t.stderr);
    assert.match(t.stderr, /--md \/proc\/reach-audit\/tables\.md: cannot write the folder \/proc\/reach-audit: it is on the proc file system/);
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
  });
});
