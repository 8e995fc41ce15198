/**
 * The built CLI's `explain` on a real audit of the bundled demo model: `audit --explain` writes
 * mechanism.jsonl for the failure set and prints the run table; `explain` again writes nothing new;
 * a stopped explain (a cut file) resumes to the same lines; --json, --ids; a damaged line gives
 * one clear error naming the file, the line and the field.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtCli, repoRoot, runCli } from '../support/cliRun';
import { readMechanism } from '../../src/audit/mechanism/mechanismStore';
import type { MechanismSummary, QuestionRecord } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-explain-cli-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const run = (args: string[]) => runCli(args, { cwd: root, env });
const folder = path.join(root, 'run');
const mechanism = path.join(folder, 'mechanism.jsonl');

describe('reach-audit explain on the demo model', () => {
  let failureIds: string[] = [];
  let firstRun = '';
  before(() => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    const r = run([
      'audit', '--model', path.join(repoRoot, 'media/demo/base'), '--data', path.join(repoRoot, 'media/demo/data/arith-test.jsonl'),
      '--limit', '16', '--probe', 'sample:6', '--repair', '--max-new-tokens', '48', '--threads', '1', '--out', folder, '--explain',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Suppressing MLP over the failure set: \d+ explained of \d+/);
    assert.match(r.stdout, /identified block \d+, on the questions it repairs: \d+\/\d+ = .*\((exact|[\d,]+ seeded permutations)\)/);
    assert.match(r.stdout, /null: the same suppressors shuffled across the questions/);
    const records = fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as QuestionRecord);
    failureIds = records.filter((q) => q.repair?.inFailureSet).map((q) => q.id);
    firstRun = fs.readFileSync(mechanism, 'utf8');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes one valid account per failure-set question, its last lens the deployed top token', () => {
    assert.ok(failureIds.length > 0, 'the demo audit has a failure set');
    const { values } = readMechanism(folder);
    assert.deepEqual(values.map((a) => a.id), failureIds);
    for (const a of values) {
      if (a.skipped) continue;
      assert.equal(a.blocks?.length, 8);
      const last = a.blocks![7];
      // d is the top token at the context, so g is below it in the last lens.
      if (a.top?.id === a.deployed?.id) assert.ok(last.lens <= 0 && last.rankD === 1, `${a.id}: ${JSON.stringify(last)}`);
      const sum = (a.embedding ?? 0) + a.blocks!.reduce((s, b) => s + b.attention + b.mlp, 0);
      assert.ok(Math.abs(sum - last.lens) < 1e-3 * Math.max(1, Math.abs(last.lens)), `${a.id}: contributions ${sum} vs lens ${last.lens}`);
    }
  });

  it('writes nothing new when run again, and resumes a stopped explain to the same lines', () => {
    const again = run(['explain', folder, '--quiet']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /0 new accounts/);
    assert.doesNotMatch(again.stderr, /was edited after this account was written/);
    assert.equal(fs.readFileSync(mechanism, 'utf8'), firstRun);
    const lines = firstRun.split('\n');
    fs.writeFileSync(mechanism, lines[0] + '\n' + lines[1].slice(0, 20));
    const resumed = run(['explain', folder, '--quiet']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /torn last line/);
    assert.equal(fs.readFileSync(mechanism, 'utf8'), firstRun);
  });

  it('prints JSON with the summary, and a strip per question with --ids', () => {
    const json = run(['explain', folder, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as { summary: MechanismSummary; accounts: unknown[] };
    assert.equal(parsed.summary.failureSetSize, failureIds.length);
    assert.equal(parsed.summary.suppressorCounts.length, 8);
    const one = run(['explain', folder, '--ids', failureIds[0]]);
    assert.equal(one.code, 0, one.stderr);
    assert.ok(one.stdout.startsWith(`${failureIds[0]}: `), one.stdout);
    assert.match(one.stdout, /lens g−d/);
    assert.match(one.stdout, /repair scan: /);
  });

  it('names the file, the line and the field of a damaged line', () => {
    const lines = firstRun.split('\n');
    const bad = JSON.parse(lines[0]) as Record<string, unknown>;
    bad.suppressor = 'five';
    fs.writeFileSync(mechanism, JSON.stringify(bad) + '\n' + lines.slice(1).join('\n'));
    const r = run(['explain', folder]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /mechanism\.jsonl:1: field suppressor: /);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    fs.writeFileSync(mechanism, firstRun);
  });

  it('refuses a duplicated or unknown --ids, a stored account with more blocks than the model, and prints a huge context by its end (issue 39, weak cases)', () => {
    const twice = run(['explain', folder, '--ids', `${failureIds[0]},${failureIds[0]}`]);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, new RegExp(`--ids: "${failureIds[0]}" is given twice; expected each question once`));
    const unknown = run(['explain', folder, '--ids', `${failureIds[0]},no-such-question`]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--ids: "no-such-question" is not a question of this run \(\S*records\.jsonl\); expected ids it recorded/);
    const lines = firstRun.trimEnd().split('\n');
    const account = JSON.parse(lines[0]) as { id: string; blocks?: unknown[]; sharedTail?: string };
    assert.ok(account.blocks, 'the first account is not skipped');
    fs.writeFileSync(mechanism, [JSON.stringify({ ...account, blocks: Array.from({ length: 100_000 }, () => account.blocks![0]) }), ...lines.slice(1)].join('\n') + '\n');
    const many = run(['explain', folder, '--quiet']);
    assert.equal(many.code, 2);
    assert.match(many.stderr, /mechanism\.jsonl:1: field blocks holds 100000 block accounts, but the run's model has 8 blocks; the file was edited or damaged/);
    assert.doesNotMatch(many.stderr, /\n\s+at /);
    fs.writeFileSync(mechanism, [JSON.stringify({ ...account, sharedTail: 'x'.repeat(5_000_000) }), ...lines.slice(1)].join('\n') + '\n');
    const huge = run(['explain', folder, '--ids', account.id]);
    assert.equal(huge.code, 0, huge.stderr);
    assert.ok(huge.stdout.length < 10_000, `printed ${huge.stdout.length} characters`);
    assert.match(huge.stdout, /after …"x{200}" \(last 200 of 5000000 characters\)/);
    fs.writeFileSync(mechanism, firstRun);
  });

  it('warns, naming the file, the question and what differs, when records.jsonl\'s outputs were edited after the account was written (issue 39, weak case)', () => {
    const recordsFile = path.join(folder, 'records.jsonl');
    const original = fs.readFileSync(recordsFile, 'utf8');
    const account = readMechanism(folder).values.find((a) => !a.skipped);
    assert.ok(account, 'the demo has an account that is not skipped');
    const edited = original.trimEnd().split('\n').map((line) => {
      const r = JSON.parse(line) as QuestionRecord;
      return r.id === account.id ? JSON.stringify({ ...r, realized: { ...r.realized, output: `ZZZ ${r.realized.output}` } }) : line;
    });
    fs.writeFileSync(recordsFile, edited.join('\n') + '\n');
    try {
      const r = run(['explain', folder, '--quiet']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`mechanism\\.jsonl: question "${account.id}": records\\.jsonl was edited after this account was written: the account explains token ${account.position} against ${account.probe} attempt ${account.attempt}: deployed ${account.deployed!.id} .*; records\\.jsonl's outputs now give token 0 against .*deployed \\d+ "Z`));
      assert.match(r.stderr, /The stored account is shown; delete its line and run explain again to recompute it/);
      assert.equal(fs.readFileSync(mechanism, 'utf8'), firstRun, 'the stored accounts are kept as they are');
    } finally {
      fs.writeFileSync(recordsFile, original);
    }
  });
});
