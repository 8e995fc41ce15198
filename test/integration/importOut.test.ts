/**
 * `reach-audit import --out` at places a run folder cannot go (a file, a symbolic link, a path
 * under the log itself), and a log whose record would pass the line every reader takes: each a
 * clear message and exit 2, nothing written.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-import-out-'));
const log = path.join(root, 'samples_gsm8k_2024-01-01T00-00-00.jsonl');

function run(args: string[]): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, REACH_AUDIT_DEBUG: '' } });
  return { code: r.status, stderr: r.stderr };
}

describe('reach-audit import --out where no run folder can go', () => {
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    const line = (id: number) => JSON.stringify({ doc_id: id, doc: { question: `2 + ${id}?`, answer: `#### ${id + 2}` }, target: `${id + 2}`, arguments: { gen_args_0: { arg_0: `2 + ${id}?`, arg_1: { until: ['\n'] } } }, resps: [[`${id + 2}`]], filtered_resps: [`${id + 2}`], exact_match: 1 });
    fs.writeFileSync(log, `${line(0)}\n${line(1)}\n`);
  });

  it('a file: named as a file, exit 2', () => {
    const out = path.join(root, 'a-file');
    fs.writeFileSync(out, 'x');
    const r = run(['import', log, '--out', out]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--out .*a-file: .*a-file is a file, not a folder; choose another --out/);
  });

  it('a symbolic link to an empty folder: named as a link, exit 2, the folder it points to untouched', () => {
    const target = fs.mkdtempSync(path.join(root, 'target-'));
    const out = path.join(root, 'link');
    fs.symlinkSync(target, out);
    const r = run(['import', log, '--out', out]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /link is a symbolic link/);
    assert.deepEqual(fs.readdirSync(target), []);
  });

  it('a path under the log itself: named as under a file, exit 2', () => {
    const r = run(['import', log, '--out', path.join(log, 'run')]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /samples_gsm8k_2024-01-01T00-00-00\.jsonl is a file, so .*run cannot be a folder under it/);
    assert.doesNotMatch(r.stderr, /ENOTDIR|EEXIST/);
  });
});
