/**
 * Two real `reach-audit audit` processes on one run folder: the second (a new audit, or a second
 * --resume) is refused with the holder named and touches nothing; the first, killed with SIGKILL,
 * leaves a stale lock that --resume takes over (the holder is frozen with SIGSTOP after its first record so
 * the check does not race a fast machine), and the finished run holds every question once,
 * under the first run's manifest.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-run-lock-'));
const model = path.join(root, 'model');
const data = path.join(root, 'test.jsonl');
const out = path.join(root, 'run');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const QUESTIONS = 80;
const FLAGS = ['--model', model, '--data', data, '--probe', 'sample:2', '--max-new-tokens', '8', '--batch', '1', '--threads', '1', '--out', out];

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function recordLines(): string[] {
  try {
    return fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  } catch {
    return [];
  }
}

async function until(what: string, ok: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('run-folder lock (two reach-audit processes)', () => {
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    const lines = [];
    for (let i = 0; i < QUESTIONS; i++) lines.push(JSON.stringify({ id: `q${i}`, question: `What is ${i} + ${i}?`, answer: `#### ${2 * i}` }));
    fs.writeFileSync(data, lines.join('\n') + '\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses a second writer naming the holder, then resumes after the holder is killed', async () => {
    const first = spawn(process.execPath, [cli, 'audit', ...FLAGS, '--seed', '1'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let firstErr = '';
    first.stderr!.on('data', (d: Buffer) => (firstErr += d.toString()));
    const exited = new Promise<void>((resolve) => first.on('exit', () => resolve()));
    try {
      await until('the first audit to record a question', () => recordLines().length >= 1);
      // Freeze the holder so a fast machine cannot finish all questions while the refusals are checked;
      // a stopped process still holds its lock and still counts as running.
      first.kill('SIGSTOP');
      const manifestBefore = fs.readFileSync(path.join(out, 'manifest.json'), 'utf8');

      const second = run(['audit', ...FLAGS, '--seed', '2']);
      assert.equal(second.code, 2, second.stderr);
      const holder = new RegExp(`reach-audit audit: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by pid ${first.pid} on host .+, started \\d{4}-[\\d-]+T[\\d:.]+Z \\(reach-audit audit, run "model-test"\\); wait for it to finish \\(or stop it\\), or choose another --out\\n$`);
      assert.match(second.stderr, holder);
      const resumeToo = run(['audit', ...FLAGS, '--seed', '1', '--resume']);
      assert.equal(resumeToo.code, 2, resumeToo.stderr);
      assert.match(resumeToo.stderr, holder);
      assert.equal(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'), manifestBefore, 'the refused writers left the manifest alone');
      assert.equal(first.exitCode, null, `the first audit still runs: ${firstErr}`);
    } finally {
      first.kill('SIGKILL');
      await exited;
    }
    const kept = recordLines();
    assert.ok(kept.length >= 1 && kept.length < QUESTIONS, `killed mid-run with ${kept.length} records`);
    assert.ok(fs.existsSync(path.join(out, '.reach-audit.lock')), 'SIGKILL leaves the lock behind');

    const resumed = run(['audit', ...FLAGS, '--seed', '1', '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`warning: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: took over a stale lock left by pid ${first.pid} on host .+ \\(reach-audit audit, run "model-test"\\), which no longer runs`));
    const ids = recordLines().map((l) => (JSON.parse(l) as { id: string }).id);
    assert.equal(ids.length, QUESTIONS, 'every question once');
    assert.equal(new Set(ids).size, QUESTIONS);
    assert.equal((JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { seeds: { run: number } }).seeds.run, 1);
    assert.ok(fs.existsSync(path.join(out, 'summary.json')));
    assert.deepEqual(fs.readdirSync(out).filter((f) => f.includes('lock') || f.endsWith('.tmp')), [], 'no lock or temporary file left');
  });
});
