/**
 * `reach-audit trajectory --watch` with the built CLI: the demo checkpoints are copied into the
 * watched folder while it runs (the first one's weights in two halves, as a trainer writes them),
 * each is audited once complete, in step order, and trajectory.json grows with each; run again,
 * nothing is redone; Ctrl-C stops it with the finished questions kept, and the same command
 * resumes to the uninterrupted result; checkpoints the trainer deletes are skipped and named.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli } from '../support/cliRun';
import { validateStoredTrajectory } from '../../src/audit/store/runFileValidation';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-watch-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const base = path.join(repoRoot, 'media/demo/base');
const tuned = path.join(repoRoot, 'media/demo/tuned');
const data = path.join(repoRoot, 'media/demo/data/arith-test.jsonl');
const FLAGS = ['--data', data, '--limit', '6', '--probe', 'sample:2', '--probe', 'routes:2', '--max-new-tokens', '24', '--threads', '1', '--batch', '6', '--poll', '0.2'];

/** The CLI in the background; `stderr()` is what it has written so far. */
function start(args: string[]) {
  const child = spawn(process.execPath, [builtCli, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const pointsOf = (out: string) => {
  const file = path.join(out, 'trajectory.json');
  return fs.existsSync(file) ? validateStoredTrajectory(JSON.parse(fs.readFileSync(file, 'utf8')), file).points : [];
};
/** The trajectory without when and where it was written. */
const resultOf = (out: string) => {
  const { createdAt: _c, ...rest } = JSON.parse(fs.readFileSync(path.join(out, 'trajectory.json'), 'utf8'));
  return JSON.parse(JSON.stringify(rest, (k, v) => (k === 'folder' ? undefined : v)));
};

describe('reach-audit trajectory --watch', () => {
  before(() => assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const run = path.join(root, 'run');
  const out = path.join(root, 'watched');

  it('audits each checkpoint copied in while it runs, once complete, in step order', async () => {
    fs.mkdirSync(run);
    const watch = start(['trajectory', '--watch', run, ...FLAGS, '--out', out, '--max-checkpoints', '2']);
    await until('the first status line', () => watch.stderr().includes('reach-audit: watch: waiting for checkpoints · 0 queued · 0 done'));

    // A trainer writing checkpoint-1000: config first, then the weights, the second half later.
    const first = path.join(run, 'checkpoint-1000');
    fs.mkdirSync(first);
    for (const f of fs.readdirSync(base).filter((f) => f !== 'model.safetensors')) fs.copyFileSync(path.join(base, f), path.join(first, f));
    const weights = fs.readFileSync(path.join(base, 'model.safetensors'));
    fs.writeFileSync(path.join(first, 'model.safetensors'), weights.subarray(0, weights.length >> 1));
    await until('the half-written checkpoint named', () => /1 being written \(checkpoint-1000: .*model\.safetensors.*\)/.test(watch.stderr()));
    await new Promise((r) => setTimeout(r, 1000)); // five polls with the half file standing still
    assert.ok(!fs.existsSync(path.join(out, 'checkpoint-1000')), 'no audit of a checkpoint whose weights do not read');
    fs.appendFileSync(path.join(first, 'model.safetensors'), weights.subarray(weights.length >> 1));

    await until('the first checkpoint in trajectory.json', () => pointsOf(out).length === 1);
    assert.match(watch.stderr(), /reach-audit: watch: auditing checkpoint-1000 · 0 queued · 0 done/);
    assert.equal(pointsOf(out)[0].label, 'checkpoint-1000');

    // An earlier step arrives later: it goes before it in the trajectory (by number, not by name).
    fs.cpSync(tuned, path.join(run, 'checkpoint-200'), { recursive: true });
    const code = await watch.exited;
    assert.equal(code, 0, watch.stderr());
    assert.deepEqual(pointsOf(out).map((p) => [p.label, p.n]), [['checkpoint-200', 6], ['checkpoint-1000', 6]]);
    assert.match(watch.stderr(), /reach-audit: watch ended: 2 checkpoints done; waiting for checkpoints · 0 queued · 2 done/);
    assert.match(watch.stdout(), /checkpoint-200 → checkpoint-1000/, 'the tables at the end');
  });

  it('run again: finished checkpoints are reused, not redone; one the trainer deleted stays in the trajectory', () => {
    const records = fs.readFileSync(path.join(out, 'checkpoint-200', 'records.jsonl'), 'utf8');
    const before = resultOf(out);
    fs.rmSync(path.join(run, 'checkpoint-1000'), { recursive: true });
    const again = runCli(['trajectory', '--watch', run, ...FLAGS, '--out', out, '--until-idle', '0'], { cwd: root, env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /watch ended: nothing new for 0 s; waiting for checkpoints · 0 queued · 2 done/);
    assert.equal(fs.readFileSync(path.join(out, 'checkpoint-200', 'records.jsonl'), 'utf8'), records);
    assert.deepEqual(resultOf(out), before);
  });

  it('Ctrl-C stops it with the finished questions kept; the same command resumes to the same trajectory', async () => {
    const cut = path.join(root, 'cut');
    fs.cpSync(base, path.join(run, 'checkpoint-1000'), { recursive: true });
    const args = ['trajectory', '--watch', run, ...FLAGS, '--out', cut, '--until-idle', '0'];
    const watch = start(args);
    await until('a first finished question', () => fs.existsSync(path.join(cut, 'checkpoint-200', 'records.jsonl')) && fs.readFileSync(path.join(cut, 'checkpoint-200', 'records.jsonl'), 'utf8').includes('\n'));
    watch.child.kill('SIGINT');
    assert.equal(await watch.exited, 130, watch.stderr());
    assert.match(watch.stderr(), /reach-audit: watch stopped \(\d checkpoints done, kept in .*\); run the same command again to resume\./);
    const again = runCli(args, { cwd: root, env });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(resultOf(cut), resultOf(out));
  });

  it('a checkpoint the trainer deletes while queued, or while half-written, is skipped and named; the watch goes on', async () => {
    const rotating = path.join(root, 'rotating');
    const staging = path.join(root, 'staging');
    fs.mkdirSync(rotating);
    fs.mkdirSync(staging);
    for (const [from, name] of [[base, 'checkpoint-1'], [tuned, 'checkpoint-2']]) fs.cpSync(from, path.join(staging, name), { recursive: true });
    const watch = start(['trajectory', '--watch', rotating, ...FLAGS, '--out', path.join(root, 'rotated'), '--until-idle', '1']);
    await until('the first status line', () => watch.stderr().includes('reach-audit: watch: waiting for checkpoints'));
    // Both appear at once (renames, as a trainer's save does); the second waits while the first is audited.
    fs.renameSync(path.join(staging, 'checkpoint-1'), path.join(rotating, 'checkpoint-1'));
    fs.renameSync(path.join(staging, 'checkpoint-2'), path.join(rotating, 'checkpoint-2'));
    await until('checkpoint-2 queued behind checkpoint-1', () => watch.stderr().includes('reach-audit: watch: auditing checkpoint-1 · 1 queued · 0 done'));
    fs.rmSync(path.join(rotating, 'checkpoint-2'), { recursive: true });
    // A half-written one, then gone too.
    const half = path.join(rotating, 'checkpoint-3');
    fs.mkdirSync(half);
    fs.copyFileSync(path.join(base, 'config.json'), path.join(half, 'config.json'));
    await until('checkpoint-3 seen being written', () => /being written \(checkpoint-3: /.test(watch.stderr()));
    fs.rmSync(half, { recursive: true });
    assert.equal(await watch.exited, 0, watch.stderr());
    assert.match(watch.stderr(), /reach-audit: watch: next checkpoint-2 · 1 queued · 1 done\n/, 'between two audits');
    assert.match(watch.stderr(), /watch ended: nothing new for 1 s; waiting for checkpoints · 0 queued · 1 done · skipped checkpoint-2 \(deleted before its audit\), checkpoint-3 \(deleted before it was complete\)/);
    assert.deepEqual(pointsOf(path.join(root, 'rotated')).map((p) => p.label), ['checkpoint-1']);
  });

  it('skips and names checkpoints that cannot be audited and goes on; names that collide as folder names are told apart; a restart adds nothing (issue 39, defects 5 and 6)', async () => {
    const bad = path.join(root, 'bad-run');
    fs.mkdirSync(bad);
    fs.cpSync(base, path.join(bad, 'ckpt 100'), { recursive: true });
    fs.cpSync(tuned, path.join(bad, 'ckpt_100'), { recursive: true });
    // A Trainer checkpoint: no tokenizer files.
    fs.cpSync(base, path.join(bad, 'ckpt_50'), { recursive: true });
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) fs.rmSync(path.join(bad, 'ckpt_50', f), { force: true });
    // A context of one position.
    fs.cpSync(base, path.join(bad, 'ckpt_70'), { recursive: true });
    const config = path.join(bad, 'ckpt_70', 'config.json');
    fs.writeFileSync(config, JSON.stringify({ ...JSON.parse(fs.readFileSync(config, 'utf8')), max_position_embeddings: 1 }));
    // A FIFO beside the weights: never ready, never read.
    fs.cpSync(base, path.join(bad, 'ckpt_80'), { recursive: true });
    spawnSync('mkfifo', [path.join(bad, 'ckpt_80', 'tokenizer.json.fifo')]);
    const into = path.join(root, 'bad-out');
    const args = ['trajectory', '--watch', bad, ...FLAGS, '--out', into, '--until-idle', '1'];
    const first = runCli(args, { cwd: root, env });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /skipped ckpt_50 \(cannot be audited: [^)]*tokenizer\.json/);
    assert.match(first.stderr, /ckpt_70 \(cannot be audited: /);
    assert.match(first.stderr, /being written \(ckpt_80: tokenizer\.json\.fifo is not a regular file\)/);
    assert.deepEqual(pointsOf(into).map((p) => p.label), ['ckpt 100', 'ckpt_100']);
    assert.equal(fs.readdirSync(into).filter((f) => fs.existsSync(path.join(into, f, 'summary.json'))).length, 2, 'two finished run folders, one per checkpoint');
    // Run again: nothing is redone or listed twice, the bad ones are named again.
    const again = runCli(args, { cwd: root, env });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(pointsOf(into).map((p) => p.label), ['ckpt 100', 'ckpt_100']);
    // The trainer deletes "ckpt 100": a restart keeps it once, under its own name.
    fs.rmSync(path.join(bad, 'ckpt 100'), { recursive: true });
    const later = runCli(args, { cwd: root, env });
    assert.equal(later.code, 0, later.stderr);
    assert.deepEqual(pointsOf(into).map((p) => p.label), ['ckpt 100', 'ckpt_100']);
  });

  it('refuses what cannot be watched, naming the flag', () => {
    const r = runCli(['trajectory', '--watch', path.join(root, 'nowhere'), '--data', data], { cwd: root, env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--watch: .*nowhere is not a folder/);
    const both = runCli(['trajectory', '--watch', run, '--model', base, '--data', data], { cwd: root, env });
    assert.match(both.stderr, /--watch: the checkpoints are the folders that appear in DIR; leave out --model, --runs and --labels/);
    const poll = runCli(['trajectory', '--model', base, '--model', tuned, '--data', data, '--poll', '1'], { cwd: root, env });
    assert.match(poll.stderr, /--poll: only with --watch DIR/);
    const zero = runCli(['trajectory', '--watch', run, '--data', data, '--poll', '0'], { cwd: root, env });
    assert.match(zero.stderr, /--poll: expected a number of seconds > 0/);
    // On servers every checkpoint would be the one served model: refused before anything is read or written.
    const servers = ['--backend', 'openai', '--base-url', 'http://127.0.0.1:9/v1'];
    const watched = runCli(['trajectory', '--watch', run, '--data', data, ...servers, '--out', path.join(root, 'on-servers')], { cwd: root, env });
    assert.notEqual(watched.code, 0);
    assert.match(watched.stderr, /--backend openai with --watch would audit every checkpoint on the one model the servers serve/);
    const listed = runCli(['trajectory', '--model', base, '--model', tuned, '--data', data, ...servers, '--out', path.join(root, 'on-servers')], { cwd: root, env });
    assert.notEqual(listed.code, 0);
    assert.match(listed.stderr, /--backend openai with --model \(repeated\) would audit every checkpoint/);
    assert.ok(!fs.existsSync(path.join(root, 'on-servers')), 'nothing was written');
  });
});
