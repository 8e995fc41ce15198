/**
 * `reach-audit verify RUN` through the real CLI on the demo model: a run audited again from its
 * manifest reproduces; a record edited by hand is named by id and field; a run whose manifest says
 * another numerics platform is said to be from one, with how much its numbers differ; a moved or
 * changed model and an imported run are bad input (exit 2) that say what to pass; the run folder
 * is left byte for byte as it was. And the date of a chat template that calls strftime_now: a run
 * records the day it rendered with, and a resume or a verify on a later day (REACH_AUDIT_TEST_NOW,
 * a clock only tests set) renders the same prompts, so gives the same records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtCli, repoRoot, runCli } from '../support/cliRun';
import type { RunManifest } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-verify-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '', REACH_AUDIT_TEST_NOW: '' };
const demoModel = path.join(repoRoot, 'media/demo/tuned');
const data = path.join(repoRoot, 'media/demo/data/arith-test.jsonl');
const AUDIT = ['--data', data, '--probe', 'sample:2', '--select', 'majority', '--max-new-tokens', '24', '--threads', '1'];

const run = (args: string[], on?: string) => runCli(args, { cwd: root, env: { ...env, ...(on ? { REACH_AUDIT_TEST_NOW: `${on}T15:00:00Z` } : {}) } });
const manifestOf = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
const writeManifest = (folder: string, m: RunManifest) => fs.writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify(m, null, 2) + '\n');
const copyRun = (from: string, name: string) => {
  const to = path.join(root, name);
  fs.cpSync(from, to, { recursive: true });
  return to;
};
/** Every file of a folder with its bytes, to tell that nothing was written. */
const snapshot = (folder: string) => new Map(fs.readdirSync(folder).map((f) => [f, fs.readFileSync(path.join(folder, f)).toString('base64')]));

describe('reach-audit verify', () => {
  const demoRun = path.join(root, 'demo-run');
  before(() => {
    assert.ok(fs.existsSync(builtCli), 'dist/cli.js is missing: run npm run build first');
    const r = run(['audit', '--model', demoModel, ...AUDIT, '--limit', '6', '--out', demoRun]);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('the demo run audited again from its manifest reproduces, and its folder is left as it was', () => {
    const before = snapshot(demoRun);
    const r = run(['verify', demoRun, '--questions', '3']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^reproduced: 3 questions of 6 \(seed 1\) audited again give byte-identical records, on the same numerics platform/);
    assert.deepEqual(snapshot(demoRun), before);
    const json = run(['verify', demoRun, '--questions', '2', '--seed', '7', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const outcome = JSON.parse(json.stdout) as { reproduced: boolean; ids: string[]; platform: { same: unknown } };
    assert.equal(outcome.reproduced, true);
    assert.equal(outcome.ids.length, 2);
    assert.equal(outcome.platform.same, true);
  });

  test('a record edited by hand is named by its id and field, exit 1', () => {
    const edited = copyRun(demoRun, 'edited');
    const file = path.join(edited, 'records.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const record = JSON.parse(lines[2]) as { id: string; realized: { output: string } };
    record.realized.output += ' (edited)';
    lines[2] = JSON.stringify(record);
    fs.writeFileSync(file, lines.join('\n'));
    const r = run(['verify', edited, '--questions', '6']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^not reproduced: 1 of the 6 questions of 6/);
    assert.match(r.stdout, /the platform is the same, so the run itself does not reproduce/);
    assert.ok(r.stdout.includes(`${record.id}: realized.output: the run has `), r.stdout);
    assert.match(r.stdout, /outputs: 1 field in 1 record/);
  });

  test('a run from another numerics platform is said to be, with which fields differ and by how much', () => {
    const other = copyRun(demoRun, 'other-platform');
    const m = manifestOf(other);
    assert.ok(m.engine.numerics, 'the demo run records its numerics platform');
    writeManifest(other, { ...m, engine: { ...m.engine, numerics: { ...m.engine.numerics, f32Kernels: 'avx512f', onnxruntime: '1.29.0' } } });
    const same = run(['verify', other, '--questions', '6']);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /^reproduced: .* on another numerics platform: onnxruntime 1\.29\.0 vs [\d.]+, float32 kernels avx512f vs \w+/);
    // A log-probability as another platform's kernels would have it.
    const file = path.join(other, 'records.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const record = JSON.parse(lines[0]) as { id: string; realized: { logprob: number } };
    record.realized.logprob += 3e-7;
    lines[0] = JSON.stringify(record);
    fs.writeFileSync(file, lines.join('\n'));
    const r = run(['verify', other, '--questions', '6']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^not reproduced: 1 of the 6 questions .* on another numerics platform: onnxruntime 1\.29\.0 vs/);
    assert.match(r.stdout, /other kernels accumulate in another order/);
    assert.match(r.stdout, /log-probabilities: 1 field in 1 record, largest difference 3\.0\de-7/);
    assert.ok(r.stdout.includes(`${record.id}: realized.logprob:`), r.stdout);
  });

  test('a moved model says to pass --model, which is checked by content hash; a changed one and an imported run are refused (exit 2)', () => {
    const moved = copyRun(demoRun, 'moved-model');
    const m = manifestOf(moved);
    writeManifest(moved, { ...m, model: { ...m.model, path: path.join(root, 'gone', 'tuned') } });
    const missing = run(['verify', moved]);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /manifest\.json: the run's model folder .*gone\/tuned no longer exists; if it moved, pass --model DIR/);
    assert.equal(run(['verify', moved, '--questions', '1', '--model', demoModel]).code, 0);
    const other = run(['verify', moved, '--model', path.join(repoRoot, 'media/demo/base')]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /--model .*media\/demo\/base holds other weights or files than the run's \(content hash/);
    const otherData = path.join(root, 'other-data.jsonl');
    fs.writeFileSync(otherData, fs.readFileSync(data, 'utf8').split('\n').slice(0, 10).join('\n') + '\n');
    const changed = run(['verify', demoRun, '--data', otherData]);
    assert.equal(changed.code, 2);
    assert.match(changed.stderr, /other-data\.jsonl is not the run's dataset: its content hash .* differs .*; pass --data FILE/);

    const imported = copyRun(demoRun, 'imported');
    writeManifest(imported, { ...m, model: { ...m.model, numBlocks: 0 }, imported: { sources: [{ file: path.join(root, 'samples.jsonl'), sha256: 'ab' }], tool: 'lm-evaluation-harness', toolVersion: null, task: 'gsm8k', model: null, generation: {}, unknown: [] } });
    const r = run(['verify', imported]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /was imported from a lm-evaluation-harness log .*no model of this tool ran, so there is nothing to re-run/);
  });
});

describe("a chat template that calls strftime_now renders every prompt of a run with the run's day", () => {
  const model = path.join(root, 'dated-model');
  before(() => {
    fs.cpSync(demoModel, model, { recursive: true });
    const file = path.join(model, 'tokenizer_config.json');
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as { chat_template: string };
    // Llama 3.2's own opening: the day as strftime_now gives it, a fixed day when it is not defined.
    const dated = '{%- if strftime_now is defined %}{%- set date_string = strftime_now("%d %b %Y") %}{%- else %}{%- set date_string = "26 Jul 2024" %}{%- endif %}';
    config.chat_template = `${dated}{{ bos_token }}{{ '<|system|>\\nToday Date: ' + date_string + '\\n' }}${config.chat_template.replace('{{ bos_token }}', '')}`;
    fs.writeFileSync(file, JSON.stringify(config, null, 2));
  });

  test('the day is recorded; a resume and a verify on a later day give the records of that day', () => {
    const whole = path.join(root, 'dated-whole');
    const a = run(['audit', '--model', model, ...AUDIT, '--limit', '4', '--out', whole], '2026-03-01');
    assert.equal(a.code, 0, a.stderr);
    assert.equal(manifestOf(whole).deployment.templateDate, '2026-03-01');
    // The demo model's outputs depend on the date line: a run on another day has other records.
    const later = path.join(root, 'dated-later');
    assert.equal(run(['audit', '--model', model, ...AUDIT, '--limit', '4', '--out', later], '2026-11-23').code, 0);
    assert.equal(manifestOf(later).deployment.templateDate, '2026-11-23');
    assert.notEqual(fs.readFileSync(path.join(later, 'records.jsonl'), 'utf8'), fs.readFileSync(path.join(whole, 'records.jsonl'), 'utf8'));

    // A run stopped after its first question, resumed months later.
    const stopped = copyRun(whole, 'dated-stopped');
    const records = path.join(stopped, 'records.jsonl');
    fs.writeFileSync(records, fs.readFileSync(records, 'utf8').split('\n')[0] + '\n');
    for (const f of ['summary.json', 'timings.json']) fs.rmSync(path.join(stopped, f), { force: true });
    const resumed = run(['audit', '--model', model, ...AUDIT, '--limit', '4', '--out', stopped, '--resume'], '2026-11-23');
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(fs.readFileSync(records, 'utf8'), fs.readFileSync(path.join(whole, 'records.jsonl'), 'utf8'));

    const verified = run(['verify', whole, '--questions', '4'], '2026-11-23');
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /^reproduced: 4 questions of 4/);
  });

  test('a resume with another --template-date is refused; --template-date pins a new run; shards of other days do not merge', () => {
    const pinned = path.join(root, 'dated-pinned');
    const r = run(['audit', '--model', model, ...AUDIT, '--limit', '2', '--template-date', '2026-03-01', '--out', pinned], '2027-01-09');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(manifestOf(pinned).deployment.templateDate, '2026-03-01');
    const refused = run(['audit', '--model', model, ...AUDIT, '--limit', '2', '--template-date', '2026-03-02', '--out', pinned, '--resume']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /cannot resume .*deployment: the run has .*"templateDate":"2026-03-01".*this command gives .*"templateDate":"2026-03-02"/s);
    const bad = run(['audit', '--model', model, ...AUDIT, '--limit', '2', '--template-date', '2026-02-30', '--out', path.join(root, 'bad-date')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--template-date: expected a calendar day as YYYY-MM-DD .*got '2026-02-30'/);

    const shard = (i: number, day: string) => {
      const out = path.join(root, `dated-shard-${i}`);
      assert.equal(run(['audit', '--model', model, ...AUDIT, '--limit', '2', '--shard', `${i}/2`, '--out', out], day).code, 0);
      return out;
    };
    const merged = run(['merge', shard(0, '2026-03-01'), shard(1, '2026-03-02'), '--out', path.join(root, 'dated-merged')]);
    assert.equal(merged.code, 2, merged.stderr);
    assert.match(merged.stderr, /dated-shard-1 differs from .*dated-shard-0: deployment: .*"templateDate":"2026-03-01".*"templateDate":"2026-03-02"/s);
  });

  test("a template that reads no date records none (the demo's manifest is as it was)", () => {
    const plain = path.join(root, 'plain');
    assert.equal(run(['audit', '--model', demoModel, ...AUDIT, '--limit', '1', '--out', plain], '2026-03-01').code, 0);
    assert.equal(manifestOf(plain).deployment.templateDate, undefined);
  });
});
