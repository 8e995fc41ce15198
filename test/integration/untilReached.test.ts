/**
 * `audit --until-reached` with the built CLI on the bundled demo model: the same reachable sets as
 * the full audit with fewer generations, each probe's attempts the full run's up to its first
 * correct one; a question audited alone, and shards (one killed and resumed) merged, give the
 * single run's files byte for byte; resume, merge and compare refuse a mismatch naming the flag;
 * the summary says what is not computed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli, runCliUntilRecorded } from '../support/cliRun';
import type { QuestionRecord, RunManifest, RunSummary } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-until-reached-'));
const model = path.join(repoRoot, 'media/demo/base');
const tuned = path.join(repoRoot, 'media/demo/tuned');
const data = path.join(repoRoot, 'media/demo/data/arith-test.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const FLAGS = ['--limit', '10', '--probe', 'sample:6', '--probe', 'routes:6', '--probe', 'search:6', '--repair', '--max-new-tokens', '24', '--threads', '1'];
const present = fs.existsSync(path.join(model, 'config.json'));

const run = (args: string[]) => runCli(args, { cwd: root, env });
const records = (folder: string) =>
  fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as QuestionRecord);
const json = <T>(file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

describe('audit --until-reached', { skip: !present && 'demo model not present' }, () => {
  const full = path.join(root, 'full');
  const cut = path.join(root, 'cut');
  before(() => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    for (const [out, extra] of [[full, []], [cut, ['--until-reached']]] as const) {
      const r = run(['audit', '--model', model, '--data', data, ...FLAGS, ...extra, '--out', out]);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reaches the same questions as the full audit with fewer generations, each probe stopping at its first hit', () => {
    const f = records(full);
    const c = records(cut);
    assert.deepEqual(c.map((r) => [r.id, r.reachable]), f.map((r) => [r.id, r.reachable]));
    let hits = 0;
    for (const [i, r] of c.entries()) {
      for (const [p, result] of Object.entries(r.probes)) {
        const whole = f[i].probes[p];
        const first = whole.correct.indexOf(true);
        if (first >= 0) hits++;
        assert.equal(result.untilReached, true);
        assert.deepEqual(result.attempts, whole.attempts.slice(0, first < 0 ? whole.attempts.length : first + 1), `${r.id} ${p}`);
      }
    }
    assert.ok(hits > 0, 'the demo model reaches some questions');
    assert.equal(json<RunManifest>(path.join(cut, 'manifest.json')).untilReached, true);
    assert.equal(json<RunManifest>(path.join(full, 'manifest.json')).untilReached, undefined);
    const fs1 = json<RunSummary>(path.join(full, 'summary.json'));
    const cs = json<RunSummary>(path.join(cut, 'summary.json'));
    assert.deepEqual(cs.reachable, fs1.reachable);
    assert.deepEqual(cs.untilReached, ['sample', 'routes', 'search']);
    const gens = (s: RunSummary) => Object.values(s.budget).reduce((a, b) => a + b.generations, 0);
    assert.ok(gens(cs) < gens(fs1), `${gens(cs)} vs ${gens(fs1)} probe generations`);
    const report = run(['report', cut]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /pass@k and answer-blind picks of sample, routes, search: not computed — --until-reached/);
  });

  it('a question audited alone, and shards (one killed and resumed) merged, give the single run byte for byte', async () => {
    const alone = path.join(root, 'alone');
    const one = records(cut)[3];
    const a = run(['audit', '--model', model, '--data', data, ...FLAGS.filter((x, i, all) => x !== '--limit' && all[i - 1] !== '--limit'), '--ids', one.id, '--until-reached', '--out', alone]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(JSON.stringify(records(alone)[0]), JSON.stringify(one));
    const shard = (i: number) => ['audit', '--model', model, '--data', data, ...FLAGS, '--until-reached', '--shard', `${i}/2`, '--out', path.join(root, 'shards', `s${i}`)];
    await runCliUntilRecorded([...shard(0), '--batch', '1'], path.join(root, 'shards', 's0', 'records.jsonl'), { cwd: root, env });
    for (const args of [[...shard(0), '--resume'], shard(1)]) {
      const r = run(args);
      assert.equal(r.code, 0, r.stderr);
    }
    const merged = path.join(root, 'merged');
    const m = run(['merge', path.join(root, 'shards', 's0'), path.join(root, 'shards', 's1'), '--out', merged]);
    assert.equal(m.code, 0, m.stderr);
    for (const file of ['records.jsonl', 'summary.json', 'failure-set.jsonl']) {
      assert.equal(fs.readFileSync(path.join(merged, file), 'utf8'), fs.readFileSync(path.join(cut, file), 'utf8'), file);
    }
  });

  it('resume, merge and compare refuse a ceiling-only run beside a full one, naming --until-reached', () => {
    const resumed = run(['audit', '--model', model, '--data', data, ...FLAGS, '--out', cut, '--resume']);
    assert.notEqual(resumed.code, 0);
    assert.match(resumed.stderr, /cannot resume .*--until-reached \(probes stop at the first correct attempt\): the run has true, this command gives false/s);
    const fullShard = path.join(root, 'full-shard');
    const r = run(['audit', '--model', model, '--data', data, ...FLAGS, '--shard', '1/2', '--out', fullShard]);
    assert.equal(r.code, 0, r.stderr);
    const m = run(['merge', path.join(root, 'shards', 's0'), fullShard, '--out', path.join(root, 'mixed')]);
    assert.notEqual(m.code, 0);
    assert.match(m.stderr, /--until-reached/);
    const tunedRun = path.join(root, 'tuned');
    const t = run(['audit', '--model', tuned, '--data', data, ...FLAGS, '--out', tunedRun]);
    assert.equal(t.code, 0, t.stderr);
    const c = run(['compare', '--base-run', cut, '--tuned-run', tunedRun]);
    assert.notEqual(c.code, 0);
    assert.match(c.stderr, /--until-reached/);
    assert.doesNotMatch(c.stderr, /\n\s+at /, 'no stack trace');
  });
});
