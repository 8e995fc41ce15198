/**
 * `compare --base-model/--tuned-model` audits both models at once, each in its own engine process:
 * with the built CLI on the bundled demo pair, the runs and the comparison equal those made one
 * after the other (byte for byte), and a Ctrl-C sent as a terminal sends it (to the whole process
 * group) stops both after their current batch, keeping finished questions; --resume then ends with
 * the same files.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-side-by-side-'));
const demo = path.join(repoRoot, 'media/demo');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const ARGS = [
  'compare', '--base-model', path.join(demo, 'base'), '--tuned-model', path.join(demo, 'tuned'), '--data', path.join(demo, 'data/arith-test.jsonl'),
  '--limit', '24', '--probe', 'sample:4', '--probe', 'routes:4', '--probe', 'search:4', '--repair', '--max-new-tokens', '32', '--threads', '2',
];
const FILES = ['records.jsonl', 'summary.json', 'failure-set.jsonl'];
const present = fs.existsSync(path.join(demo, 'base/config.json')) && fs.existsSync(path.join(demo, 'tuned/config.json'));

function comparisonNumbers(folder: string): unknown {
  return (JSON.parse(fs.readFileSync(path.join(folder, 'comparison.json'), 'utf8')) as { comparison: unknown }).comparison;
}

function assertSameRuns(folder: string, reference: string): void {
  for (const side of ['base', 'tuned']) {
    for (const file of FILES) assert.equal(fs.readFileSync(path.join(folder, side, file), 'utf8'), fs.readFileSync(path.join(reference, side, file), 'utf8'), `${side}/${file}`);
  }
  assert.deepEqual(comparisonNumbers(folder), comparisonNumbers(reference));
}

describe('compare: both models at once', { skip: !present && 'demo models not present' }, () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const oneByOne = path.join(root, 'one-by-one');
  const atOnce = path.join(root, 'at-once');

  it('gives the runs and the comparison of auditing one model after the other, byte for byte', () => {
    const a = runCli([...ARGS, '--one-at-a-time', '--out', oneByOne], { cwd: root, env });
    assert.equal(a.code, 0, a.stderr);
    assert.doesNotMatch(a.stderr, /both models at once/);
    const b = runCli([...ARGS, '--out', atOnce], { cwd: root, env });
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stderr, /auditing both models at once, 1 and 1 engine threads/);
    assert.match(b.stderr, /^base: run folder .*base$/m);
    assert.match(b.stderr, /^tuned: plan: 24 questions/m);
    assertSameRuns(atOnce, oneByOne);
  });

  it('a Ctrl-C to the process group stops both audits with their finished questions kept; --resume completes them alike', async () => {
    const stopped = path.join(root, 'stopped');
    // detached: the test plays the terminal, which signals the whole foreground process group.
    const child = spawn(process.execPath, [builtCli, ...ARGS, '--out', stopped], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const records = (side: string) => {
      try {
        return fs.readFileSync(path.join(stopped, side, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').length;
      } catch {
        return 0;
      }
    };
    const code = await new Promise<number | null>((resolve) => {
      const timer = setInterval(() => {
        if (records('base') >= 1 && records('tuned') >= 1) {
          clearInterval(timer);
          process.kill(-child.pid!, 'SIGINT');
        }
      }, 10);
      child.on('close', (c) => {
        clearInterval(timer);
        resolve(c);
      });
    });
    if (code === 130) {
      assert.match(stderr, /stopping — finished questions are kept/);
      assert.match(stderr, /reach-audit: continue with the same command and --resume\./);
      assert.ok(records('base') >= 1 && records('tuned') >= 1);
      assert.ok(!fs.existsSync(path.join(stopped, 'comparison.json')));
    } else assert.equal(code, 0, stderr); // both finished before the signal landed: still consistent
    const resumed = runCli([...ARGS, '--out', stopped, '--resume'], { cwd: root, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assertSameRuns(stopped, oneByOne);
  });
});
