/**
 * `reach-audit regrade` on imported runs: the outputs are the log's and the grading is ours, so an
 * imported run regrades like an audited one. A GSM8K import regraded under strict reading moves
 * realized where the strict marker is missing and keeps the harness's readings beside ours; a choice
 * import (Inspect's MMLU log) reads its questions' choices from the log again (a log that moved is
 * given with --data, another log is refused).
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { QuestionRecord, RunManifest, RunSummary } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const GSM8K = path.join(repo, 'test/fixtures/logs/lm-eval/samples_gsm8k_2026-12-01T10-00-00.000000.jsonl');
const MMLU = path.join(repo, 'test/fixtures/logs/inspect/mmlu-summary-choices.eval');
const OTHER = path.join(repo, 'test/fixtures/logs/inspect/log_read_sample.json');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-regrade-imported-'));

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, REACH_AUDIT_DEBUG: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const records = (folder: string) => fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as QuestionRecord);
const json = <T>(file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

describe('reach-audit regrade of imported runs', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));

  it('explain on an imported run says why there is nothing to explain and what to run, with or without --model (it used to ask for --model, then refuse it)', () => {
    const imported = path.join(root, 'gsm8k-explain');
    assert.equal(run(['import', GSM8K, '--out', imported]).code, 0);
    for (const extra of [[], ['--model', path.join(repo, 'media/demo/base')]]) {
      const r = run(['explain', imported, ...extra]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /an evaluation log \(lm-evaluation-harness\) imported as a run: no local model audited it, so it has no repair scan to explain, and --model cannot stand in for one\. Audit a model on the log's own outputs first \(reach-audit audit --model DIR --data FILE --realized-from .*gsm8k-explain --repair\), then explain that run/);
    }
  });

  it("an lm-eval import regraded under strict reading: realized moves, the harness's readings stay, the manifest still names the log", () => {
    const imported = path.join(root, 'gsm8k');
    assert.equal(run(['import', GSM8K, '--out', imported]).code, 0);
    const regraded = path.join(root, 'gsm8k-strict');
    const r = run(['regrade', imported, '--correct-by', 'strict', '--out', regraded]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /regraded 5 questions \(5 outputs\) into .*: 2 verdicts changed; realized changed on 2 questions/);
    const before = records(imported);
    const after = records(regraded);
    assert.deepEqual(before.map((x) => x.realized.correct), [true, true, true, false, true]);
    // Questions 2 and 5 state their answer without "#### N": strict reading, like the harness's strict-match, misses them.
    assert.deepEqual(after.map((x) => x.realized.correct), [true, false, true, false, false]);
    assert.deepEqual(after.map((x) => x.realized.output), before.map((x) => x.realized.output));
    assert.deepEqual(after.map((x) => x.harness), before.map((x) => x.harness));
    const summary = json<RunSummary>(path.join(regraded, 'summary.json'));
    assert.deepEqual(summary.interfaceFailures!['strict-match'].missed, [], 'our strict reading now agrees with the harness strict-match');
    assert.deepEqual(summary.interfaceFailures!['flexible-extract'].reverse.map((x) => x.id), ['2', '5']);
    const manifest = json<RunManifest>(path.join(regraded, 'manifest.json'));
    assert.equal(manifest.imported!.tool, 'lm-evaluation-harness');
    assert.equal(manifest.regradedFrom, imported);
    assert.equal(manifest.grading!.correctBy, 'strict');
    assert.equal(run(['report', regraded]).code, 0);
    // A log of other questions given as the run's is refused.
    const other = path.join(repo, 'test/fixtures/logs/lm-eval/samples_gsm8k_cot_self_consistency_2026-12-01T11-00-00.000000.jsonl');
    const refused = run(['regrade', imported, '--data', other, '--out', path.join(root, 'gsm8k-other')]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /samples_gsm8k_cot_self_consistency_2026-12-01T11-00-00\.000000\.jsonl: not the log this run imported \(its content hash differs/);
  });

  it("a choice import reads its questions' choices from the log again; a moved log is given with --data, another log is refused", () => {
    const imported = path.join(root, 'mmlu');
    assert.equal(run(['import', MMLU, '--out', imported]).code, 0);
    const regraded = path.join(root, 'mmlu-regraded');
    const r = run(['regrade', imported, '--out', regraded]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /0 verdicts changed/);
    assert.deepEqual(records(regraded).map((x) => [x.gold, x.realized.answer, x.realized.correct]), records(imported).map((x) => [x.gold, x.realized.answer, x.realized.correct]));

    // The log moved: the run names a path that is gone.
    const moved = path.join(root, 'moved');
    fs.cpSync(imported, moved, { recursive: true });
    const m = json<RunManifest>(path.join(moved, 'manifest.json'));
    const gone = path.join(root, 'gone', 'mmlu.eval');
    fs.writeFileSync(path.join(moved, 'manifest.json'), JSON.stringify({ ...m, dataset: { ...m.dataset, path: gone }, imported: { ...m.imported!, sources: [{ ...m.imported!.sources[0], file: gone }] } }, null, 2));
    const missing = run(['regrade', moved, '--out', path.join(root, 'moved-regraded')]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /gone\/mmlu\.eval: the run's log is not there; give it with --data LOG/);
    const copy = path.join(root, 'mmlu-copy.eval');
    fs.copyFileSync(MMLU, copy);
    const given = run(['regrade', moved, '--data', copy, '--out', path.join(root, 'moved-regraded')]);
    assert.equal(given.code, 0, given.stderr);
    const other = run(['regrade', imported, '--data', OTHER, '--out', path.join(root, 'other-regraded')]);
    assert.notEqual(other.code, 0);
    // Another log (a free-text task) is refused naming it: its rows are no choice questions.
    assert.match(other.stderr, /log_read_sample\.json: no gold answer could be read in format choice/);
    assert.doesNotMatch(other.stderr + missing.stderr, /\n\s+at /, 'no stack trace');
  });
});
