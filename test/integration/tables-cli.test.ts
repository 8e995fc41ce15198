/**
 * `reach-audit trajectory` and `reach-audit table` with the built CLI on the demo pair: a trajectory
 * killed in the middle of its second checkpoint and run again ends with the result of an
 * uninterrupted one (the first checkpoint reused, not redone); the tables are written in every
 * format; a comparison whose runs no longer match is refused with the difference named.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli, runCliUntilRecorded } from '../support/cliRun';
import { validateStoredTrajectory } from '../../src/audit/store/runFileValidation';

const repo = repoRoot;
const cli = builtCli;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-tables-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const base = path.join(repo, 'media/demo/base');
const tuned = path.join(repo, 'media/demo/tuned');
const data = path.join(repo, 'media/demo/data/arith-test.jsonl');
const FLAGS = ['--data', data, '--limit', '10', '--probe', 'sample:2', '--probe', 'routes:2', '--probe', 'search:2', '--repair', '--max-new-tokens', '24', '--threads', '1', '--batch', '2'];

const run = (args: string[]) => runCli(args, { cwd: root, env });

const result = (out: string) => {
  const { createdAt: _createdAt, ...rest } = JSON.parse(fs.readFileSync(path.join(out, 'trajectory.json'), 'utf8'));
  // Folders differ between the two trajectories; everything else must not.
  return JSON.parse(JSON.stringify(rest, (k, v) => (k === 'folder' ? undefined : v)));
};

describe('reach-audit trajectory and table', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a trajectory stopped in its second checkpoint resumes to the uninterrupted result', async () => {
    const whole = path.join(root, 'whole');
    const ok = run(['trajectory', '--model', base, '--model', tuned, ...FLAGS, '--out', whole]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /base → tuned/);
    // trajectory.json is the contract's StoredTrajectory; pass@1 and pass@2 carry their n everywhere; over 10 questions
    // pass@2 (0/1 per question at a budget of 2) has its Wilson interval and pass@1 none (no bootstrap below 20 questions).
    const stored = validateStoredTrajectory(JSON.parse(fs.readFileSync(path.join(whole, 'trajectory.json'), 'utf8')), 'trajectory.json');
    for (const p of stored.points) {
      assert.equal(p.passAtKN, 10);
      assert.ok(p.passAt1Ci === null && p.passAtKCi && p.passAtKCi.lo <= p.passAtK! && p.passAtK! <= p.passAtKCi.hi, JSON.stringify(p));
    }
    assert.match(ok.stdout, /pass@1 · sample +pass@2 · sample/);
    assert.match(ok.stdout, /\d+\.\d% \(n = 10; no interval below 20 questions\)\s*\d+\.\d% \[\d+\.\d, \d+\.\d\] \(n = 10\)\n/, 'the last two cells of a checkpoint row: pass@1 and pass@2 with n, pass@2 with its interval');

    const cut = path.join(root, 'cut');
    const args = ['trajectory', '--model', base, '--model', tuned, ...FLAGS, '--out', cut];
    await runCliUntilRecorded(args, path.join(cut, '1-tuned', 'records.jsonl'), { cwd: root, env });
    const firstRecords = fs.readFileSync(path.join(cut, '0-base', 'records.jsonl'), 'utf8');
    const partial = fs.readFileSync(path.join(cut, '1-tuned', 'records.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    assert.ok(partial >= 1 && partial < 10, `killed after ${partial} questions of the second checkpoint`);
    assert.ok(!fs.existsSync(path.join(cut, 'trajectory.json')));
    const again = run(args);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(fs.readFileSync(path.join(cut, '0-base', 'records.jsonl'), 'utf8'), firstRecords, 'the finished checkpoint is reused, not redone');
    assert.deepEqual(result(cut), result(whole));
  });

  it('table writes CSV, Markdown and HTML, and refuses a comparison whose runs no longer match', () => {
    const runs = path.join(root, 'whole');
    const cmp = path.join(root, 'cmp');
    const c = run(['compare', '--base-run', path.join(runs, '0-base'), '--tuned-run', path.join(runs, '1-tuned'), '--out', cmp]);
    assert.equal(c.code, 0, c.stderr);
    const t = run(['table', cmp, '--csv', path.join(root, 't.csv'), '--md', path.join(root, 't.md'), '--html', path.join(root, 't.html')]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /Search at reward 0\/1 \(per question: generations [\d.,]+ routes \/ [\d.,]+ search, block applications [\d.,]+ \/ [\d.,]+\): random routes non-inferior to search \(gain set, Holm-adjusted over the 2 reward 0\/1 settings, margin ±5 pts; \"search better\" unadjusted\) in \d of 2 settings; search better in \d; \d inconclusive/);
    assert.match(t.stdout, /Realized up while the reachable ceiling does not rise \(Holm-adjusted; a realized fall or a ceiling rise vetoes, unadjusted; margin \+5 pts\) in \d of 1 comparisons; not so in \d; \d inconclusive/);
    assert.match(t.stdout, /Margin: ±5 pts\. Rule: /);
    for (const f of ['t.routes-vs-search.csv', 't.repair.csv', 't.training.csv', 't.md', 't.html']) assert.ok(fs.existsSync(path.join(root, f)), f);
    assert.match(fs.readFileSync(path.join(root, 't.training.csv'), 'utf8'), /^folder,base,tuned,dataset,finished,n,realized_base/);
    // The margin is the user's and is written with the table.
    const wide = run(['table', cmp, '--margin', '40', '--kind', 'training', '--json']);
    assert.equal(wide.code, 0, wide.stderr);
    assert.equal(JSON.parse(wide.stdout).training.margin, 0.4);
    const badMargin = run(['table', cmp, '--margin', '0']);
    assert.equal(badMargin.code, 2);
    assert.match(badMargin.stderr, /--margin: expected percentage points in \(0, 100\)/);
    // An unfinished run is refused unless asked for, and then marked.
    const unfinished = path.join(root, 'unfinished');
    fs.cpSync(path.join(runs, '0-base'), unfinished, { recursive: true });
    fs.rmSync(path.join(unfinished, 'summary.json'));
    const refusedUnfinished = run(['table', unfinished]);
    assert.notEqual(refusedUnfinished.code, 0);
    assert.match(refusedUnfinished.stderr, /has not finished .*--allow-unfinished/);
    const allowed = run(['table', unfinished, '--allow-unfinished', '--kind', 'repair']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /\(unfinished\)/);

    // The tuned run's seed edited after the comparison: the pair no longer matches.
    const manifestFile = path.join(runs, '1-tuned', 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, seeds: { run: 7 } }));
    const refused = run(['table', cmp]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /its runs do not match/);
    assert.match(refused.stderr, /seed: the base run has \{"run":0\}, the tuned run has \{"run":7\}/);
  });
});
