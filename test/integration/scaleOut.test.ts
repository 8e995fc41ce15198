/**
 * Beyond one process, with the built CLI on the bundled demo pair: 4 shards as 4 concurrent
 * processes merged equal the single-machine run (one shard killed mid-run and resumed); the Slurm
 * and Kubernetes scripts in tools/cluster run exactly as written (the scheduler only supplies the
 * index); and `audit --backend openai` against two `serve --http` processes gives the in-process
 * outputs and grades, writes no secret anywhere, and refuses layer probes on a plain server.
 *
 * "Equal" is byte for byte: records.jsonl, failure-set.jsonl and summary.json. The engine gives a
 * sequence the same numbers whatever shares its batch, so shards and servers that batch other
 * questions together change nothing.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli, runCliAsync, runCliUntilRecorded, startHttpServe } from '../support/cliRun';

const repo = repoRoot;
const cli = builtCli;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-scale-'));
const model = path.join(repo, 'media/demo/base');
const data = path.join(repo, 'media/demo/data/arith-test.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const FLAGS = ['--limit', '12', '--probe', 'sample:2', '--probe', 'routes:2', '--probe', 'search:2', '--repair', '--max-new-tokens', '24', '--threads', '1'];

const run = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { cwd: root, env: { ...env, ...extraEnv } });
const runAsync = (args: string[]) => runCliAsync(args, { cwd: root, env });

function assertSameRun(folder: string, single: string): void {
  for (const file of ['records.jsonl', 'summary.json', 'failure-set.jsonl']) {
    assert.equal(fs.readFileSync(path.join(folder, file), 'utf8'), fs.readFileSync(path.join(single, file), 'utf8'), file);
  }
}

/** A `reach-audit` on PATH, as an installed CLI would be, for the cluster scripts. */
function pathWithCli(): string {
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'reach-audit'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
  return `${bin}:${process.env.PATH}`;
}

describe('sharded audits, cluster scripts and remote engines', () => {
  const single = path.join(root, 'single');
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    const r = run(['audit', '--model', model, '--data', data, ...FLAGS, '--out', single]);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('4 shards in 4 processes, one killed and resumed, merge into the single-machine run', async () => {
    const shard = (i: number) => ['audit', '--model', model, '--data', data, ...FLAGS, '--shard', `${i}/4`, '--out', path.join(root, 'shards', `s${i}`)];
    // Shard 2 is killed as soon as it has recorded a question, then resumed.
    await runCliUntilRecorded([...shard(2), '--batch', '1'], path.join(root, 'shards', 's2', 'records.jsonl'), { cwd: root, env });
    const partial = fs.readFileSync(path.join(root, 'shards', 's2', 'records.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    assert.ok(partial >= 1 && partial < 3, `shard 2 was killed after ${partial} of its 3 questions`);
    const others = await Promise.all([0, 1, 3].map((i) => runAsync(shard(i))));
    for (const o of others) assert.equal(o.code, 0, o.stderr);
    const early = run(['merge', ...[0, 1, 2, 3].map((i) => path.join(root, 'shards', `s${i}`)), '--out', path.join(root, 'too-early')]);
    assert.notEqual(early.code, 0);
    assert.match(early.stderr, /shard 2\/4 .* has finished \d of its 3 questions: resume it/);
    const resumed = run([...shard(2), '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const merged = path.join(root, 'merged');
    const m = run(['merge', ...[3, 1, 0, 2].map((i) => path.join(root, 'shards', `s${i}`)), '--out', merged]);
    assert.equal(m.code, 0, m.stderr);
    assertSameRun(merged, single);
    const missing = run(['merge', ...[0, 1, 3].map((i) => path.join(root, 'shards', `s${i}`)), '--out', path.join(root, 'missing')]);
    assert.match(missing.stderr, /shard 2\/4 is missing/);
  });

  it('the Slurm array script and the Kubernetes Indexed Job run as written', async () => {
    const PATH = pathWithCli();
    const flags = FLAGS.filter((f) => f !== '--limit' && f !== '12');
    const common = { ...env, PATH, MODEL: model, DATA: data, AUDIT_FLAGS: ['--limit', '12', ...flags].join(' ') };
    const sh = (script: string, extra: Record<string, string>, shell = 'bash') =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(shell, ['-c', script], { cwd: root, env: { ...common, ...extra }, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    // Slurm: the array tasks (Slurm sets the index and the count), then the merge job.
    const slurmRuns = path.join(root, 'slurm');
    const audit = path.join(repo, 'tools/cluster/slurm-audit.sbatch');
    const tasks = await Promise.all([0, 1, 2, 3].map((i) => sh(`bash ${audit}`, { RUNS: slurmRuns, SLURM_ARRAY_TASK_ID: String(i), SLURM_ARRAY_TASK_COUNT: '4' })));
    for (const t of tasks) assert.equal(t.code, 0, t.stderr);
    const merged = await sh(`bash ${path.join(repo, 'tools/cluster/slurm-merge.sbatch')}`, { RUNS: slurmRuns });
    assert.equal(merged.code, 0, merged.stderr);
    assertSameRun(path.join(slurmRuns, 'merged'), single);

    // Kubernetes: the container's command exactly as the manifests give it, with the completion index.
    const k8sRuns = path.join(root, 'k8s');
    const pods = await Promise.all([0, 1, 2, 3].map((i) => sh(containerScript('k8s-audit-indexed-job.yaml'), { RUNS: k8sRuns, SHARDS: '4', JOB_COMPLETION_INDEX: String(i) }, '/bin/sh')));
    for (const p of pods) assert.equal(p.code, 0, p.stderr);
    const k8sMerge = await sh(containerScript('k8s-merge-job.yaml'), { RUNS: k8sRuns }, '/bin/sh');
    assert.equal(k8sMerge.code, 0, k8sMerge.stderr);
    assertSameRun(path.join(k8sRuns, 'merged'), single);
  });

  it('--backend openai through two serve --http processes: the same outputs and grades, no secret written', async () => {
    const secret = 'sk-test-7f3a9c1e-not-for-files';
    const servers = await Promise.all([0, 1].map(() => startServer(secret)));
    try {
      const out = path.join(root, 'remote');
      const r = run(
        ['audit', '--model', model, '--data', data, ...FLAGS, '--backend', 'openai', ...servers.flatMap((s) => ['--base-url', s.url]), '--api-key-env', 'RA_TEST_KEY', '--concurrency', '3', '--out', out],
        { RA_TEST_KEY: secret },
      );
      assert.equal(r.code, 0, r.stderr);
      const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
      assert.equal(manifest.backend.backend, 'openai');
      assert.deepEqual(manifest.backend.baseUrls, servers.map((s) => s.url));
      assert.equal(manifest.backend.layerAccess, true);
      assert.equal(manifest.backend.seedHonoured, true);
      assertSameRun(out, single);
      for (const file of fs.readdirSync(out)) {
        assert.ok(!fs.readFileSync(path.join(out, file), 'utf8').includes(secret), `${file} holds the API key`);
      }
      assert.ok(!r.stderr.includes(secret) && !r.stdout.includes(secret), 'the API key is not printed');
      // Without the key the servers refuse, and the error names the server.
      const denied = run(['audit', '--model', model, '--data', data, ...FLAGS, '--backend', 'openai', '--base-url', servers[0].url, '--out', path.join(root, 'denied')]);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /answered 401/);
      // compare refuses a local run against a remote one unless told.
      const cmp = run(['compare', '--base-run', single, '--tuned-run', out, '--out', path.join(root, 'cmp')]);
      assert.notEqual(cmp.code, 0);
      assert.match(cmp.stderr, /backend: the base run ran on local, the tuned run on openai \(pass --mixed-backends/);
    } finally {
      for (const s of servers) s.stop();
    }
  });
});

/** The `args: - |` shell script of a manifest's container, as the pod's /bin/sh -c receives it. */
function containerScript(file: string): string {
  const lines = fs.readFileSync(path.join(repo, 'tools/cluster', file), 'utf8').split('\n');
  const start = lines.findIndex((l) => /^\s+- \|\s*$/.test(l));
  assert.ok(start >= 0, `${file}: no args block`);
  const body: string[] = [];
  const indent = /^(\s*)/.exec(lines[start + 1])![1].length;
  for (const l of lines.slice(start + 1)) {
    if (l.trim() !== '' && /^(\s*)/.exec(l)![1].length < indent) break;
    body.push(l.slice(indent));
  }
  return body.join('\n');
}

function startServer(token: string): Promise<{ url: string; stop(): void }> {
  return startHttpServe(['--model', model, '--threads', '1', '--token-env', 'RA_SERVE_TOKEN'], { ...env, RA_SERVE_TOKEN: token });
}
