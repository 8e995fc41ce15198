/**
 * The built CLI's `import` on Inspect AI logs (test/fixtures/logs/inspect; source and commit in its
 * README): a real .eval (flat samples) and a real .json log, the chunked layout with two epochs (the
 * sample probe), and a cut-off zip that fails cleanly.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { QuestionRecord, RunManifest } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const logs = path.join(repo, 'test/fixtures/logs/inspect');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-inspect-'));

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, REACH_AUDIT_DEBUG: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function importedRecords(log: string, out: string): { records: QuestionRecord[]; manifest: RunManifest } {
  const r = run(['import', path.join(logs, log), '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  const records = fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as QuestionRecord);
  return { records, manifest: JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest };
}

describe('reach-audit import of Inspect AI logs', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));

  it('a real .eval log (MMLU, gpt-4o): the sample is a choice question graded by our rules beside the choice scorer', () => {
    const { records, manifest } = importedRecords('mmlu-summary-choices.eval', path.join(root, 'mmlu'));
    assert.equal(records.length, 1);
    const [r] = records;
    assert.equal(r.gold, 'A');
    assert.equal(r.options, 4);
    assert.equal(r.realized.output, 'ANSWER: C');
    assert.equal(r.realized.answer, 'C');
    assert.equal(r.realized.correct, false);
    assert.deepEqual(r.harness!.readings.choice, { extracted: 'C', correct: false, scores: { value: 0 } });
    assert.match(r.harness!.prompt, /^Answer the following multiple choice question\./);
    assert.equal(manifest.imported!.tool, 'inspect_ai');
    assert.equal(manifest.imported!.toolVersion, '0.3.154.dev44+g32a84c8fe.d20251213');
    assert.equal(manifest.imported!.model, 'openai/gpt-4o');
    assert.equal(manifest.imported!.task, 'inspect_evals/mmlu_0_shot');
    assert.ok(manifest.imported!.unknown.some((u) => /temperature/.test(u)), 'the unstated temperature is named');
    assert.equal(manifest.dataset.format, 'choice');
    const report = run(['report', path.join(root, 'mmlu')]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /interface failures, harness choice \(n = 1\): it missed 0 answers/);
  });

  it('a real .json log (popularity, gemma3): exact-answer question, match scorer kept', () => {
    const { records } = importedRecords('log_read_sample.json', path.join(root, 'popularity'));
    assert.equal(records.length, 1);
    assert.equal(records[0].realized.output, 'Yes\n');
    assert.equal(records[0].realized.correct, true);
    assert.deepEqual(records[0].harness!.readings.match, { extracted: 'Yes', correct: true, scores: { value: 1 } });
  });

  it('the chunked layout with two epochs: attachments resolved, epochs become the sample probe', () => {
    const { records, manifest } = importedRecords('mmlu-chunked-two-epochs.eval', path.join(root, 'chunked'));
    const [r] = records;
    assert.equal(r.realized.output, 'ANSWER: C');
    assert.deepEqual(r.probes.sample.attempts.map((a) => a.output), ['ANSWER: C', 'ANSWER: A']);
    assert.deepEqual(r.probes.sample.correct, [false, true]);
    assert.equal(r.reachable.sample, true);
    assert.deepEqual(manifest.probes, [{ name: 'sample', budget: 2 }]);
  });

  it('a cut-off .eval: a clear error naming the file, nothing written', () => {
    const cut = path.join(root, 'cut.eval');
    const bytes = fs.readFileSync(path.join(logs, 'mmlu-summary-choices.eval'));
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const out = path.join(root, 'cut-run');
    const r = run(['import', cut, '--out', out]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /cut\.eval: not a complete zip archive \(.*\); an Inspect \.eval log is a zip of header\.json and samples\/, and this one may be cut short/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.ok(!fs.existsSync(out));
  });
});
