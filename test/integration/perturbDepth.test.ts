/**
 * The perturbation probe and depth of loss on the bundled demo pair, with the built CLI: both in
 * `audit` (records, summary, text), `compare` and `table`; a question audited alone gets the record
 * it gets in the full run; two shards merged equal the single run byte for byte; the records of the
 * other probes are byte for byte those of a run without the two; `audit --backend openai` through
 * `serve --http` gives the in-process records.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli, runCliAsync, startHttpServe } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-perturb-depth-'));
const demo = path.join(repoRoot, 'media/demo');
const data = path.join(demo, 'data/arith-test.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const BASE_FLAGS = ['--limit', '10', '--probe', 'sample:3', '--probe', 'routes:3', '--max-new-tokens', '24', '--threads', '1'];
const FLAGS = [...BASE_FLAGS, '--probe', 'perturb:3', '--depth-probe', '2'];

const run = (args: string[]) => runCli(args, { cwd: root, env });
const lines = (folder: string) => fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter(Boolean);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads records as JSON
const records = (folder: string): any[] => lines(folder).map((l) => JSON.parse(l));

describe('perturbation probe and depth of loss on the demo pair', () => {
  const base = path.join(root, 'base');
  const tuned = path.join(root, 'tuned');
  let auditText = '';
  before(async () => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    const [b, t] = await Promise.all([
      runCliAsync(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--out', base], { cwd: root, env }),
      runCliAsync(['audit', '--model', path.join(demo, 'tuned'), '--data', data, ...FLAGS, '--out', tuned], { cwd: root, env }),
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(t.code, 0, t.stderr);
    auditText = run(['report', base]).stdout;
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('records each perturbation attempt with its draw, and depth results on the failure set only', () => {
    const rs = records(base);
    for (const r of rs) {
      assert.equal(r.probes.perturb.attempts.length, 3);
      for (const a of r.probes.perturb.attempts) {
        assert.ok(Number.isInteger(a.perturbation.afterBlock) && a.perturbation.afterBlock >= 0 && a.perturbation.afterBlock < 8);
        assert.ok(['all', 'prompt', 'continuation'].includes(a.perturbation.positions));
        assert.ok(a.perturbation.scale >= 0.05 && a.perturbation.scale <= 0.5);
      }
      assert.ok(r.blind.perturb.majority, 'answer-blind selection over the perturbation candidates');
      const inF = !r.realized.correct && (r.reachable.sample || r.reachable.routes || r.reachable.perturb);
      assert.equal(r.depth !== undefined, inF, `${r.id}: depth results exactly for the failure set`);
      if (r.depth) {
        assert.deepEqual(r.depth.points.slice(0, 2).map((p: { at: string }) => p.at), ['0', '1/4']);
        for (const p of r.depth.points) assert.equal(p.correct.length, 2);
      }
    }
    assert.ok(rs.some((r) => r.depth), 'the demo base model has failures reachable by some probe');
    const summary = JSON.parse(fs.readFileSync(path.join(base, 'summary.json'), 'utf8'));
    assert.equal(summary.depth.n, rs.filter((r) => r.depth).length);
    assert.match(auditText, /pass@k perturb \(unbiased\)/);
    assert.match(auditText, /depth of loss \(\d+ failure-set questions?, 2 samples per prefix/);
    assert.match(auditText, /early \(first quarter\) .* vs late/);
  });

  it('leaves the other probes\' records byte for byte as a run without the two gives them', () => {
    const plain = path.join(root, 'plain');
    const r = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...BASE_FLAGS, '--out', plain]);
    assert.equal(r.code, 0, r.stderr);
    const without = lines(plain);
    records(base).forEach((rec, i) => {
      delete rec.probes.perturb;
      delete rec.reachable.perturb;
      delete rec.blind.perturb;
      delete rec.depth;
      assert.equal(JSON.stringify(rec), without[i], `record ${i}`);
    });
  });

  it('gives a question audited alone its record from the full run, and two merged shards the single run', async () => {
    const rs = records(base);
    const target = rs.find((r) => r.depth) ?? rs[0];
    const alone = path.join(root, 'alone');
    const a = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS.filter((f, i, all) => f !== '--limit' && all[i - 1] !== '--limit'), '--ids', target.id, '--out', alone]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(lines(alone)[0], lines(base)[rs.indexOf(target)]);
    const shards = await Promise.all([0, 1].map((i) => runCliAsync(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--shard', `${i}/2`, '--out', path.join(root, `s${i}`)], { cwd: root, env })));
    for (const s of shards) assert.equal(s.code, 0, s.stderr);
    const merged = path.join(root, 'merged');
    const m = run(['merge', path.join(root, 's1'), path.join(root, 's0'), '--out', merged]);
    assert.equal(m.code, 0, m.stderr);
    for (const file of ['records.jsonl', 'summary.json', 'failure-set.jsonl']) {
      if (!fs.existsSync(path.join(base, file))) continue;
      assert.equal(fs.readFileSync(path.join(merged, file), 'utf8'), fs.readFileSync(path.join(base, file), 'utf8'), file);
    }
    // A resumed run with another depth budget is refused, naming the setting.
    const other = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...BASE_FLAGS, '--probe', 'perturb:3', '--depth-probe', '3', '--out', base, '--resume']);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /--depth-probe/);
  });

  it('shows both in compare and in table', () => {
    const cmp = path.join(root, 'cmp');
    const c = run(['compare', '--base-run', base, '--tuned-run', tuned, '--out', cmp]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /Base —[\s\S]*reachable by perturb[\s\S]*depth of loss[\s\S]*Tuned —[\s\S]*reachable by perturb/);
    const t = run(['table', cmp, '--csv', path.join(root, 't.csv')]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /Residual perturbation vs sampling and random routes on the gain set/);
    assert.match(t.stdout, /overlap perturb · sample/);
    assert.match(t.stdout, /Depth of loss: where the deployed output loses a reachable answer/);
    const json = JSON.parse(run(['table', cmp, '--kind', 'perturbation', '--json']).stdout);
    assert.equal(json.perturbation.rows.length, 2);
    for (const row of json.perturbation.rows) {
      assert.equal(row.attempts, 3);
      assert.deepEqual(row.probes.map((p: { probe: string }) => p.probe), ['perturb', 'sample', 'routes']);
      assert.equal(row.overlaps.length, 3);
    }
    const depth = JSON.parse(run(['table', cmp, '--kind', 'depth', '--json']).stdout);
    assert.ok(depth.depth.rows.length >= 1);
  });

  it('runs through serve --http with the same records as in process', async () => {
    const server = await startHttpServe(['--model', path.join(demo, 'base'), '--threads', '1'], env);
    try {
      const out = path.join(root, 'remote');
      const r = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--backend', 'openai', '--base-url', server.url, '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')).backend.perturbation, true);
      assert.deepEqual(lines(out), lines(base));
    } finally {
      server.stop();
    }
  });
});
