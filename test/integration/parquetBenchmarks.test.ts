/**
 * The built CLI on parquet benchmarks (test/fixtures/parquet, written from the JSONL samples; see its
 * README) with the bundled demo model: an audit of parquet rows gives the same records, byte for byte
 * apart from each question's place, and the same summary as the audit of the same rows in JSONL; bad
 * parquet fails cleanly and writes no run.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunManifest } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const model = path.join(repo, 'media/demo/base');
const samples = path.join(repo, 'test/fixtures/benchmarks');
const parquet = path.join(repo, 'test/fixtures/parquet');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-parquet-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const AUDIT = ['--probe', 'sample:2', '--probe', 'routes:2', '--select', 'majority', '--max-new-tokens', '6', '--threads', '1'];
/** The place key a parquet record has after its line, and nothing else. */
const PLACE = /,"place":\{"file":"[^"]*","row":\d+\}/;

function audit(data: string, out: string, selection: string[]): string {
  const r = run(['audit', '--model', model, '--data', data, ...selection, ...AUDIT, '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  return out;
}

function lines(folder: string, file: string): string[] {
  return fs.readFileSync(path.join(folder, file), 'utf8').split('\n').filter((l) => l !== '');
}

describe('parquet benchmarks audited by the CLI', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));

  it('a hub dataset folder (two shards): records equal to the JSONL audit apart from the place, file and row recorded', () => {
    // Questions from both shards: rows 2 and 19 of the first, 0 and 4 of the second.
    const jsonl = fs.readFileSync(path.join(samples, 'arc-challenge-test-sample.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
    const ids = [2, 19, 20, 24].map((i) => (JSON.parse(jsonl[i]) as { id: string }).id);
    const selection = ['--ids', ids.join(',')];
    const fromParquet = audit(path.join(parquet, 'arc-challenge'), path.join(root, 'arc-parquet'), selection);
    const fromJsonl = audit(path.join(samples, 'arc-challenge-test-sample.jsonl'), path.join(root, 'arc-jsonl'), selection);

    const p = lines(fromParquet, 'records.jsonl');
    const j = lines(fromJsonl, 'records.jsonl');
    assert.equal(p.length, 4);
    assert.deepEqual(p.map((l) => l.replace(PLACE, '')), j, 'byte-identical apart from the place');
    assert.deepEqual(
      p.map((l) => (JSON.parse(l) as { place: unknown }).place),
      [
        { file: 'data/test-00000-of-00002.parquet', row: 2 },
        { file: 'data/test-00000-of-00002.parquet', row: 19 },
        { file: 'data/test-00001-of-00002.parquet', row: 0 },
        { file: 'data/test-00001-of-00002.parquet', row: 4 },
      ].map((x) => ({ ...x, file: x.file.split('/').join(path.sep) })),
    );
    assert.ok(j.every((l) => !l.includes('"place"')), 'JSONL records have no place');
    assert.deepEqual(fs.readFileSync(path.join(fromParquet, 'summary.json'), 'utf8'), fs.readFileSync(path.join(fromJsonl, 'summary.json'), 'utf8'));
    const manifest = JSON.parse(fs.readFileSync(path.join(fromParquet, 'manifest.json'), 'utf8')) as RunManifest;
    assert.equal(manifest.dataset.path, path.join(parquet, 'arc-challenge'));
    assert.equal(manifest.dataset.split, 'test');
    assert.equal(manifest.dataset.schema, 'arc-flat');

    // A run of a parquet benchmark regrades against it (the dataset read again, its hash checked).
    const regraded = run(['regrade', fromParquet, '--correct-by', 'strict', '--out', path.join(root, 'arc-regraded')]);
    assert.equal(regraded.code, 0, regraded.stderr);
  });

  it('one .parquet file (MMLU, GSM8K): same records as the JSONL apart from the place', () => {
    for (const [file, sample] of [
      ['mmlu-test.parquet', 'mmlu-test-sample.jsonl'],
      ['gsm8k-test.parquet', 'gsm8k-test-sample.jsonl'],
    ]) {
      const selection = ['--limit', '3'];
      const p = lines(audit(path.join(parquet, file), path.join(root, `${file}-p`), selection), 'records.jsonl');
      const j = lines(audit(path.join(samples, sample), path.join(root, `${file}-j`), selection), 'records.jsonl');
      assert.deepEqual(p.map((l) => l.replace(PLACE, '')), j, file);
      assert.match(p[2], /"line":3,"place":\{"file":"[a-z0-9-]+\.parquet","row":2\}/);
    }
  });

  it('bad parquet: a clear error naming the file, no stack trace, no run folder', () => {
    for (const [data, pattern] of [
      [path.join(parquet, 'bad', 'gsm8k-truncated.parquet'), /gsm8k-truncated\.parquet: not a readable parquet file/],
      [path.join(parquet, 'bad', 'mmlu-choices-as-text.parquet'), /mmlu-choices-as-text\.parquet: no usable question; .*field "choices" is a string; expected an array of strings/],
      [path.join(parquet, 'arc-challenge'), /no train split; .*this folder has test, validation; choose one with --split/],
    ] as const) {
      const out = path.join(root, `bad-${path.basename(data)}`);
      const r = run(['audit', '--model', model, '--data', data, '--split', 'train', ...AUDIT, '--out', out]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.ok(!fs.existsSync(out), 'nothing written');
    }
  });
});
