/**
 * Storage that refuses our writes, with the real CLI: a special file system (--out /proc/run) is
 * refused at once; a read-only file system and a full disk are named with the path, the cause and
 * the command that continues the run, every finished question survives, no *.tmp file is left, and
 * --resume after making room finishes the run. Full and read-only disks are small tmpfs mounts,
 * which need root (CI runs as root); elsewhere those cases are skipped, saying why.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-storage-'));
const model = path.join(root, 'model');
const data = path.join(root, 'test.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const QUESTIONS = 40;
const FLAGS = ['--model', model, '--data', data, '--probe', 'sample:2', '--max-new-tokens', '8', '--batch', '4', '--threads', '1'];
const mounts: string[] = [];

function run(args: string[], timeout = 120_000): { code: number | null; stdout: string; stderr: string; ms: number } {
  const t = Date.now();
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env, timeout });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t };
}

/** Mounts a tmpfs with `options` at a new folder; undefined when this user cannot mount. */
function tmpfs(name: string, options: string): string | undefined {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  mounts.push(dir);
  return dir;
}

function leftovers(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.tmp') || f.includes('.lock') || f.includes('.write-test'));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('storage faults', () => {
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    const lines = [];
    for (let i = 0; i < QUESTIONS; i++) lines.push(JSON.stringify({ id: `q${i}`, question: `What is ${i} + ${i}?`, answer: `#### ${2 * i}` }));
    fs.writeFileSync(data, lines.join('\n') + '\n');
  });
  after(() => {
    for (const m of mounts) spawnSync('umount', [m]);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('refuses a run folder on a special file system at once (it used to spin)', { skip: process.platform !== 'linux' && 'Linux file systems' }, () => {
    const r = run(['audit', ...FLAGS, '--out', '/proc/run'], 30_000);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, 'reach-audit audit: cannot write the run folder /proc/run: it is on the proc file system, which holds no ordinary files; choose a folder on a disk\n');
    assert.ok(r.ms < 15_000, `answered in ${r.ms} ms`);
    assert.equal(fs.existsSync('/proc/run'), false);
  });

  it('names a read-only file system (not ENOENT) before loading the model', (t) => {
    const ro = tmpfs('ro', 'ro,size=1m');
    if (!ro) return t.skip('mounting a tmpfs needs root');
    const out = path.join(ro, 'runs', 'a');
    const r = run(['audit', ...FLAGS, '--out', out]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `reach-audit audit: cannot write the run folder ${out}: read-only file system (creating ${path.join(ro, 'runs')})\n`);
  });

  it('a full disk names the file, the cause and the resume command; nothing is lost or left behind', (t) => {
    const disk = tmpfs('full', 'size=32k');
    if (!disk) return t.skip('mounting a tmpfs needs root');
    const out = path.join(disk, 'run');
    const r = run(['audit', ...FLAGS, '--out', out]);
    assert.equal(r.code, 2, r.stderr);
    const m = new RegExp(
      `reach-audit audit: cannot write (${escape(out)}/[a-z.-]+): no space left on device\\. (\\d+) finished questions? (?:is|are) kept in ${escape(path.join(out, 'records.jsonl'))}; free some space, then continue with: (reach-audit audit .* --resume)\\n`,
    ).exec(r.stderr);
    assert.ok(m, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual(leftovers(out), [], 'no temporary file, lock or probe left');
    const text = fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8');
    const complete = text.split('\n').slice(0, -1);
    assert.equal(complete.length, Number(m[2]), 'the count in the message is what records.jsonl holds');
    for (const line of complete) JSON.parse(line);
    assert.ok(complete.length < QUESTIONS, `the disk filled mid-run (${complete.length} of ${QUESTIONS} kept)`);

    spawnSync('mount', ['-o', 'remount,size=4m', disk]);
    const again = run(m[3].split(' ').slice(1).map((w) => w.replace(/^'|'$/g, '')));
    assert.equal(again.code, 0, again.stderr);
    const ids = fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => (JSON.parse(l) as { id: string }).id);
    assert.equal(new Set(ids).size, QUESTIONS);
    assert.equal(ids.length, QUESTIONS);
    assert.ok(fs.existsSync(path.join(out, 'summary.json')));
    assert.deepEqual(leftovers(out), []);
  });

  describe('run files that are huge or not regular files (issue 39, defects 1 and 7)', () => {
    const out = path.join(root, 'special');
    const records = path.join(out, 'records.jsonl');
    let kept = '';
    before(() => {
      const r = run(['audit', ...FLAGS, '--limit', '2', '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      kept = fs.readFileSync(records, 'utf8');
    });
    const restore = () => {
      fs.rmSync(records, { force: true });
      fs.writeFileSync(records, kept);
    };

    it('report and --resume read a records.jsonl longer than the longest JavaScript string (540 MB)', () => {
      // Blank lines after the records: past V8's 0x1fffffe8-character limit as a whole, small line by line.
      const fd = fs.openSync(records, 'a');
      const block = Buffer.from((' '.repeat(1023) + '\n').repeat(8192));
      for (let i = 0; i < 66; i++) fs.writeSync(fd, block);
      fs.closeSync(fd);
      try {
        assert.ok(fs.statSync(records).size > 0x1fffffe8);
        const report = run(['report', out]);
        assert.equal(report.code, 0, report.stderr);
        assert.match(report.stdout, /n = 2|2 questions|\/2\b/);
        const resume = run(['audit', ...FLAGS, '--limit', '2', '--out', out, '--resume']);
        assert.equal(resume.code, 0, resume.stderr);
      } finally {
        restore();
      }
    });

    for (const [what, make, expected] of [
      ['a symlink to /dev/zero', () => fs.symlinkSync('/dev/zero', records), /is a character device; expected a regular file/],
      ['a FIFO', () => spawnSync('mkfifo', [records]), /is a FIFO \(named pipe\); expected a regular file/],
    ] as const) {
      it(`report and --resume refuse a records.jsonl that is ${what}, naming it, in bounded time`, () => {
        fs.rmSync(records);
        make();
        try {
          for (const args of [['report', out], ['audit', ...FLAGS, '--limit', '2', '--out', out, '--resume']]) {
            const r = run(args, 30_000);
            assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
            assert.ok(r.stderr.includes(records), r.stderr);
            assert.match(r.stderr, expected);
            assert.ok(r.ms < 20_000, `${args[0]} answered in ${r.ms} ms`);
          }
        } finally {
          restore();
        }
      });
    }

    it('--resume does not write through a records.jsonl replaced by a symlink (weak case)', () => {
      const elsewhere = path.join(root, 'elsewhere.jsonl');
      // One question of two recorded: a resume has one to write.
      const first = kept.slice(0, kept.indexOf('\n') + 1);
      fs.writeFileSync(elsewhere, first);
      fs.rmSync(records);
      fs.symlinkSync(elsewhere, records);
      try {
        const r = run(['audit', ...FLAGS, '--limit', '2', '--out', out, '--resume']);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, /records\.jsonl: it is a symbolic link; expected a regular file/);
        assert.equal(fs.readFileSync(elsewhere, 'utf8'), first, 'the link target is untouched');
      } finally {
        restore();
      }
    });

    it('a model whose config.json is a symlink to /dev/zero or a FIFO is refused, naming it', () => {
      const bad = path.join(root, 'bad-model');
      fs.cpSync(model, bad, { recursive: true });
      const config = path.join(bad, 'config.json');
      for (const make of [() => fs.symlinkSync('/dev/zero', config), () => spawnSync('mkfifo', [config])]) {
        fs.rmSync(config);
        make();
        const r = run(['audit', ...FLAGS.map((f) => (f === model ? bad : f)), '--limit', '1', '--out', path.join(root, 'bad-run')], 30_000);
        assert.equal(r.code, 2, r.stderr);
        assert.ok(r.stderr.includes(config), r.stderr);
        assert.match(r.stderr, /expected a regular file/);
        assert.ok(r.ms < 20_000, `answered in ${r.ms} ms`);
      }
    });
  });
});
