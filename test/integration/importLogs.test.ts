/**
 * The built CLI's `import` on lm-evaluation-harness samples files (test/fixtures/logs/lm-eval; how
 * they were written is in its README): the imported realized set is our grading of the logged
 * outputs, the harness's own readings are kept beside ours, repeats become the sample probe with
 * pass@k, and report / compare / table read the imported folders. Bad logs fail cleanly and leave
 * no folder.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadDataset } from '../../src/audit/dataset';
import { grade } from '../../src/audit/answers';
import type { QuestionRecord, RunManifest, RunSummary } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const logs = path.join(repo, 'test/fixtures/logs/lm-eval');
const GSM8K = path.join(logs, 'samples_gsm8k_2026-12-01T10-00-00.000000.jsonl');
const BASE = path.join(logs, 'samples_gsm8k_cot_self_consistency_2026-12-01T11-00-00.000000.jsonl');
const TUNED = path.join(logs, 'tuned', 'samples_gsm8k_cot_self_consistency_2026-12-02T09-00-00.000000.jsonl');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-import-'));

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, REACH_AUDIT_DEBUG: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function records(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

function imported(log: string, out: string, ...more: string[]): string {
  const r = run(['import', log, '--out', out, ...more]);
  assert.equal(r.code, 0, r.stderr);
  return out;
}

describe('reach-audit import of lm-evaluation-harness samples', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));

  it('realized is our grading of the logged outputs; the harness readings are kept; the manifest names the log and what it cannot say', () => {
    const folder = imported(GSM8K, path.join(root, 'gsm8k'));
    const recs = records(folder);
    assert.equal(recs.length, 5);
    // The same rows as the JSONL benchmark sample: graded independently of the import.
    const questions = loadDataset(path.join(repo, 'test/fixtures/benchmarks/gsm8k-test-sample.jsonl')).questions;
    const lines = fs.readFileSync(GSM8K, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { doc_id: number; resps: string[][] });
    for (const r of recs) {
      const q = questions.find((x) => x.id === r.id)!;
      const output = lines.find((l) => String(l.doc_id + 1) === r.id)!.resps[0][0];
      assert.equal(r.realized.output, output);
      assert.equal(r.gold, q.gold);
      const g = grade(output, q);
      assert.equal(r.realized.correct, g.correct, `${r.id}: realized as our grader reads the output`);
      assert.equal(r.realized.answer, g.answer);
    }
    assert.deepEqual(recs.map((r) => r.realized.correct), [true, true, true, false, true]);
    // The harness's strict-match missed questions 2 and 5; its flexible-extract found them.
    assert.deepEqual(recs.map((r) => r.harness?.readings['strict-match'].correct), [true, false, true, false, false]);
    assert.deepEqual(recs.map((r) => r.harness?.readings['strict-match'].extracted), ['18', '[invalid]', '70,000', '180', '[invalid]']);
    assert.deepEqual(recs.map((r) => r.harness?.readings['flexible-extract'].correct), [true, true, true, false, true]);
    assert.match(recs[0].harness!.prompt, /^Question: Janet’s ducks/);

    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
    const imp = manifest.imported!;
    assert.equal(imp.tool, 'lm-evaluation-harness');
    assert.equal(imp.toolVersion, '0.4.9');
    assert.equal(imp.model, 'hand-written-outputs');
    assert.equal(imp.task, 'gsm8k');
    assert.deepEqual(imp.sources, [{ file: GSM8K, sha256: createHash('sha256').update(fs.readFileSync(GSM8K)).digest('hex') }]);
    assert.deepEqual(imp.generation, { until: ['Question:', '</s>', '<|im_end|>'], do_sample: false, temperature: 0 });
    assert.ok(imp.unknown.some((u) => /seed/.test(u)) && imp.unknown.some((u) => /token/.test(u)));
    assert.deepEqual(manifest.deployment.stop, ['Question:', '</s>', '<|im_end|>']);
    assert.equal(manifest.deployment.temperature, 0);
    assert.deepEqual(manifest.probes, []);
    assert.equal(manifest.dataset.format, 'gsm8k');

    // Interface failures: strict-match missed questions 2 and 5, whose answers our rules find.
    const summary = JSON.parse(fs.readFileSync(path.join(folder, 'summary.json'), 'utf8')) as RunSummary;
    const strict = summary.interfaceFailures!['strict-match'];
    assert.deepEqual(strict.missed, [
      { id: '2', harness: '[invalid]', ours: '3' },
      { id: '5', harness: '[invalid]', ours: '20' },
    ]);
    assert.deepEqual([strict.missedRate.successes, strict.missedRate.n, strict.reverse.length], [2, 3, 0]);
    assert.deepEqual(summary.interfaceFailures!['flexible-extract'].missed, []);

    const report = run(['report', folder]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /realized \(deployment\)\s+80\.0%/);
    assert.match(report.stdout, /interface failures, harness strict-match \(n = 5\): it missed 2 answers that are in the output by our rules, of the 3 it scored wrong/);
    assert.match(report.stdout, /question 2: harness "\[invalid\]", ours "3"; question 5: harness "\[invalid\]", ours "20"/);
    assert.match(report.stdout, /reach-audit import .*samples_gsm8k_2026-12-01T10-00-00\.000000\.jsonl --answer-format gsm8k/);
  });

  it('repeats become the sample probe with pass@k; compare of two imports (base → tuned) and table read them', () => {
    const base = imported(BASE, path.join(root, 'base'));
    const tuned = imported(TUNED, path.join(root, 'tuned'));
    const recs = records(base);
    assert.ok(recs.every((r) => r.probes.sample.budget === 4 && r.probes.sample.attempts.length === 4));
    assert.deepEqual(recs.map((r) => r.probes.sample.correct), [
      [true, true, true, true],
      [true, false, true, true],
      [false, true, true, false],
    ]);
    assert.equal(recs[2].realized.correct, false);
    assert.equal(recs[2].reachable.sample, true);
    const summary = JSON.parse(fs.readFileSync(path.join(base, 'summary.json'), 'utf8')) as RunSummary;
    // pass@1 over 12 attempts, 9 correct: the unbiased estimator's mean of c/n.
    assert.ok(Math.abs(summary.passAtK.sample[1] - (4 / 4 + 3 / 4 + 2 / 4) / 3) < 1e-12);

    const cmp = run(['compare', '--base-run', base, '--tuned-run', tuned, '--out', path.join(root, 'cmp')]);
    assert.equal(cmp.code, 0, cmp.stderr);
    assert.match(cmp.stdout, /realized\s+66\.7% → 100\.0%/);
    assert.match(cmp.stdout, /newly realized: 1; already reachable by base/);
    const table = run(['table', base, tuned, path.join(root, 'cmp'), '--csv', path.join(root, 'table.csv')]);
    assert.equal(table.code, 0, table.stderr);
    // The training table: the imported pair's realized and ceiling rows.
    const training = fs.readFileSync(path.join(root, 'table.training.csv'), 'utf8');
    assert.match(training, /,3,0\.6666666666666666,1,/);
  });

  it('bad logs: another format, a cut-off line, docs without their gold, a log-likelihood task — a clear error, nothing written', () => {
    const bad = path.join(root, 'bad');
    fs.mkdirSync(bad);
    const lines = fs.readFileSync(GSM8K, 'utf8').split('\n').filter((l) => l !== '');
    const cut = path.join(bad, 'samples_gsm8k_cut.jsonl');
    fs.writeFileSync(cut, lines.slice(0, 3).join('\n') + '\n' + lines[3].slice(0, 200));
    const noGold = path.join(bad, 'samples_gsm8k_nogold.jsonl');
    fs.writeFileSync(noGold, lines.map((l) => { const o = JSON.parse(l) as { doc: Record<string, unknown> }; delete o.doc.answer; return JSON.stringify(o); }).join('\n') + '\n');
    const loglik = path.join(bad, 'samples_arc_easy.jsonl');
    fs.writeFileSync(loglik, JSON.stringify({ doc_id: 0, doc: { question: 'Q?', choices: { text: ['a', 'b'], label: ['A', 'B'] }, answerKey: 'A' }, arguments: { gen_args_0: { arg_0: 'Question: Q?\nAnswer:', arg_1: ' a' } }, resps: [[[-1.5, false]]], filtered_resps: [[-1.5, false]], acc: 1.0 }) + '\n');
    const inspectJson = path.join(bad, 'inspect-log.json');
    fs.writeFileSync(inspectJson, JSON.stringify({ version: 2, status: 'success', eval: { task: 'x' }, samples: [] }, null, 2));
    const csv = path.join(bad, 'predictions.csv');
    fs.writeFileSync(csv, 'id,prediction\n1,18\n');
    const zip = path.join(bad, 'log.eval');
    fs.writeFileSync(zip, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]));
    for (const [log, pattern] of [
      [cut, /samples_gsm8k_cut\.jsonl:4: /],
      [noGold, /the logged benchmark rows cannot be graded \(every question needs its gold answer in the row the harness logged\): .*samples_gsm8k_nogold\.jsonl: no usable question; line 1 has fields \{question\}.*GSM8K .*field "answer" is missing/],
      [loglik, /samples_arc_easy\.jsonl:1: field "resps" holds \[log-probability, is-greedy\] pairs: this task is scored by log-likelihood/],
      [inspectJson, /inspect-log\.json: the log has no samples/],
      [zip, /log\.eval: not a complete zip archive/],
      [csv, /predictions\.csv: not a log this version imports; expected lm-evaluation-harness samples .* or an Inspect log/],
    ] as const) {
      const out = path.join(root, `out-${path.basename(log)}`);
      const r = run(['import', log, '--out', out]);
      assert.notEqual(r.code, 0, path.basename(log));
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.ok(!fs.existsSync(out), 'nothing written');
    }
    assert.deepEqual(fs.readdirSync(root).filter((n) => n.includes('.importing-')), [], 'no staging folder left');
    // A folder that already holds a run is not overwritten.
    const again = run(['import', GSM8K, '--out', path.join(root, 'gsm8k-again')]);
    assert.equal(again.code, 0, again.stderr);
    const twice = run(['import', GSM8K, '--out', path.join(root, 'gsm8k-again')]);
    assert.notEqual(twice.code, 0);
    assert.match(twice.stderr, /already holds a run/);
  });
});
