/**
 * The built CLI on real benchmark samples (test/fixtures/benchmarks, provenance in its README) with
 * the bundled demo model, each answer format: every gold parses, every output carries its
 * truncation flag and both readings, the truncation counts are in summary.json, and summary.json
 * is recomputed exactly from records.jsonl alone. Small limits keep it quick.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { summarize, type RunSummary } from '../../src/audit/results/summary';
import { loadDataset } from '../../src/audit/dataset/dataset';
import type { QuestionRecord } from '../../src/audit/run/record';
import type { RunManifest } from '../../src/audit/run/manifest';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const model = path.join(repo, 'media/demo/base');
const benchmarks = path.join(repo, 'test/fixtures/benchmarks');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-benchmarks-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const LIMIT = 4;

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function readRecords(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

const FILES: [string, string][] = [
  ['gsm8k-test-sample.jsonl', 'gsm8k'],
  ['math500-test-sample.jsonl', 'boxed'],
  ['math-hendrycks-test-sample.jsonl', 'boxed'],
  ['arc-challenge-test-sample.jsonl', 'choice'],
  ['mmlu-test-sample.jsonl', 'choice'],
  ['mmlu-pro-sample.jsonl', 'choice'],
];

describe('audits of real benchmark samples with the demo model', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));

  for (const [file, format] of FILES) {
    it(`${file} (${format})`, () => {
      const out = path.join(root, file);
      const data = path.join(benchmarks, file);
      const r = run(['audit', '--model', model, '--data', data, '--limit', String(LIMIT), '--probe', 'sample:2', '--probe', 'routes:2', '--select', 'majority', '--max-new-tokens', '6', '--threads', '1', '--out', out]);
      assert.equal(r.code, 0, r.stderr);

      const dataset = loadDataset(data);
      assert.equal(dataset.format, format);
      assert.deepEqual(dataset.issues, [], 'every line of the sample parses');
      const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
      assert.deepEqual(manifest.grading, { correctBy: 'stated', truncated: 'strict' });

      const records = readRecords(out);
      assert.equal(records.length, LIMIT);
      for (const rec of records) {
        const q = dataset.questions.find((x) => x.id === rec.id)!;
        assert.equal(rec.gold, q.gold, `${rec.id}: the gold as read`);
        for (const o of [rec.realized, ...Object.values(rec.probes).flatMap((p) => p.attempts)]) {
          assert.equal(typeof o.truncated, 'boolean');
          assert.ok(o.strict && o.flexible, 'both readings recorded');
          if (o.truncated && o.correct) assert.notEqual(o.strict.answer, null, 'a truncated output counts only with its marker');
        }
      }

      // summary.json is a function of records.jsonl alone.
      const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as RunSummary;
      assert.deepEqual(JSON.parse(JSON.stringify(summarize(records))), summary);
      // Six new tokens cut nearly every output: the counts are there and match the records.
      assert.equal(summary.truncated.realized, records.filter((x) => x.realized.truncated).length);
      for (const p of ['sample', 'routes']) {
        const attempts = records.flatMap((x) => x.probes[p].attempts);
        assert.deepEqual(summary.truncated.probes[p], { truncated: attempts.filter((a) => a.truncated).length, outputs: 2 * LIMIT });
      }
      assert.ok(summary.truncated.probes.sample.truncated > 0);
      assert.ok(summary.readings, 'strict and flexible readings summarized');
    });
  }

  it('--grade-truncated lenient is recorded, and a run is not resumed under other grading', () => {
    const out = path.join(root, 'lenient');
    const args = ['audit', '--model', model, '--data', path.join(benchmarks, 'gsm8k-test-sample.jsonl'), '--limit', '2', '--probe', 'sample:2', '--select', 'majority', '--max-new-tokens', '6', '--threads', '1', '--out', out];
    const r = run([...args, '--grade-truncated', 'lenient', '--correct-by', 'flexible']);
    assert.equal(r.code, 0, r.stderr);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
    assert.deepEqual(manifest.grading, { correctBy: 'flexible', truncated: 'lenient' });
    const resumed = run([...args, '--resume']);
    assert.notEqual(resumed.code, 0);
    assert.match(resumed.stderr, /grading/);
    const bad = run([...args, '--grade-truncated', 'sometimes']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--grade-truncated sometimes: expected one of strict, lenient/);
  });
});
