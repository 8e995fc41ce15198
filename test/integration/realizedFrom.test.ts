/**
 * The built CLI's `audit --realized-from LOG` on a small random model: the deployment's outputs are
 * the lm-eval log's (test/fixtures/logs/lm-eval), graded by our rules, while the sample probe runs
 * on the model; the log file and the folder `import` made from it give the same records; the
 * manifest names the log; prompts that differ, questions the log lacks, outputs longer than
 * --max-new-tokens and --depth-probe are refused before anything is written; a stopped run resumes to the records of an uninterrupted
 * one, and a resume without the log (or with another) is refused.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { runCli, runCliUntilRecorded } from '../support/cliRun';
import { loadDataset } from '../../src/audit/dataset';
import { grade } from '../../src/audit/answers';
import type { QuestionRecord, RunManifest } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-realized-from-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const model = path.join(root, 'model');
const data = path.join(repo, 'test/fixtures/benchmarks/gsm8k-test-sample.jsonl');
const LOG = path.join(repo, 'test/fixtures/logs/lm-eval/samples_gsm8k_2026-12-01T10-00-00.000000.jsonl');
const OTHER_LOG = path.join(repo, 'test/fixtures/logs/lm-eval/samples_gsm8k_cot_self_consistency_2026-12-01T11-00-00.000000.jsonl');
const template = path.join(root, 'template.txt');
/** Room for the longest of the five logged outputs (149 tokens under the random model's tokenizer): a shorter budget is refused. */
const MAX_NEW_TOKENS = 160;
/** The harness's prompt as a raw template: "Question: …\nAnswer:". */
const ARGS = () => ['audit', '--model', model, '--data', data, '--limit', '5', '--prompt', 'raw', '--template', template, '--probe', 'sample:2', '--select', 'majority', '--max-new-tokens', String(MAX_NEW_TOKENS), '--threads', '1', '--batch', '1'];

const run = (args: string[]) => runCli(args, { cwd: root, env });
function records(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as QuestionRecord);
}
const sortedLines = (folder: string) => fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').sort();

describe('reach-audit audit --realized-from', () => {
  before(() => {
    writeRandomModel(model, SMALL_SPECS.llama);
    fs.writeFileSync(template, 'Question: {question}\nAnswer:');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("realized is the log's output graded by our rules, the probes run on the model, the manifest names the log; the imported folder gives the same records", () => {
    const fromFile = path.join(root, 'from-file');
    const r = run([...ARGS(), '--realized-from', LOG, '--out', fromFile]);
    assert.equal(r.code, 0, r.stderr);
    const recs = records(fromFile);
    const questions = loadDataset(data).questions;
    const logged = fs.readFileSync(LOG, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { doc_id: number; resps: string[][] });
    assert.equal(recs.length, 5);
    for (const rec of recs) {
      const output = logged.find((l) => String(l.doc_id + 1) === rec.id)!.resps[0][0];
      assert.equal(rec.realized.output, output, `question ${rec.id}: the logged output`);
      const g = grade(output, questions.find((q) => q.id === rec.id)!);
      assert.equal(rec.realized.correct, g.correct);
      assert.equal(rec.realized.answer, g.answer);
      assert.deepEqual(rec.realized.cost, { generations: 0, tokens: 0, blockApplications: 0 }, 'no generation for the deployment');
      assert.equal(rec.probes.sample.attempts.length, 2, 'the sample probe ran on the model');
      assert.ok(rec.probes.sample.cost.generations === 2 && rec.probes.sample.cost.tokens > 0);
    }
    assert.deepEqual(recs.map((x) => x.realized.correct), [true, true, true, false, true]);
    const manifest = JSON.parse(fs.readFileSync(path.join(fromFile, 'manifest.json'), 'utf8')) as RunManifest;
    assert.deepEqual(manifest.realizedFrom, { source: LOG, sha256: createHash('sha256').update(fs.readFileSync(LOG)).digest('hex'), tool: 'lm-evaluation-harness' });
    const timings = JSON.parse(fs.readFileSync(path.join(fromFile, 'timings.json'), 'utf8')) as { stages: Record<string, unknown> };
    assert.ok(!('deployment' in (timings.stages ?? timings)), 'no deployment generations timed');
    // The command that makes the run again names the log.
    const report = run(['report', fromFile]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /--realized-from \S*samples_gsm8k_2026-12-01T10-00-00\.000000\.jsonl/);

    // The same outputs through the folder `import` made: the same records, byte for byte.
    const imported = path.join(root, 'imported');
    assert.equal(run(['import', LOG, '--out', imported]).code, 0);
    const fromFolder = path.join(root, 'from-folder');
    const f = run([...ARGS(), '--realized-from', imported, '--out', fromFolder]);
    assert.equal(f.code, 0, f.stderr);
    assert.deepEqual(sortedLines(fromFolder), sortedLines(fromFile));
    const folderManifest = JSON.parse(fs.readFileSync(path.join(fromFolder, 'manifest.json'), 'utf8')) as RunManifest;
    assert.equal(folderManifest.realizedFrom!.source, imported);
    assert.equal(folderManifest.realizedFrom!.tool, 'lm-evaluation-harness');

    // A question audited alone gets the record it got in the full run.
    const alone = path.join(root, 'alone');
    const a = run([...ARGS(), '--ids', '4', '--realized-from', LOG, '--out', alone]);
    assert.equal(a.code, 0, a.stderr);
    assert.deepEqual(records(alone)[0], recs.find((x) => x.id === '4'));
  });

  it('a prompt that differs, a question the log lacks, --depth-probe, outputs over --max-new-tokens: refused with the count and the first difference, nothing written', () => {
    const cases: [string[], RegExp][] = [
      [
        ['audit', '--model', model, '--data', data, '--limit', '5', '--prompt', 'raw', '--probe', 'sample:2', '--max-new-tokens', '4', '--threads', '1'],
        /--realized-from \S+: the logged prompt differs from this audit's deployment prompt for 5 of 5 questions; first, question 1: at character 0, the log has "Question: Janet’s ducks.*" where this audit has "Janet’s ducks.*"/,
      ],
      [[...ARGS().filter((x) => x !== '--limit' && x !== '5'), '--limit', '7'], /--realized-from \S+: 2 of 7 questions are not in the log; first: question 6 \(line 6\)\. Questions are matched by id .*the log holds 5: 1, 2, 3, 4, 5/],
      [[...ARGS(), '--depth-probe', '2'], /--depth-probe continues the deployed output's tokens, which a log does not hold/],
      [
        ARGS().map((x) => (x === String(MAX_NEW_TOKENS) ? '4' : x)),
        /--realized-from \S+: the logged output is longer than --max-new-tokens 4 lets the deployment write for 5 of 5 questions; first, question 1 \(line 1\): (at least )?\d+ tokens\. .*set --max-new-tokens to the harness's generation limit/,
      ],
    ];
    for (const [i, [args, pattern]] of cases.entries()) {
      const out = path.join(root, `refused-${i}`);
      const r = run([...args, '--realized-from', LOG, '--out', out]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.ok(!fs.existsSync(path.join(out, 'records.jsonl')), 'no records written');
    }
  });

  it('a stopped run resumes to the records of an uninterrupted one; a resume without the log, or with another, is refused', async () => {
    const whole = path.join(root, 'whole');
    assert.equal(run([...ARGS(), '--realized-from', LOG, '--out', whole]).code, 0);
    const stopped = path.join(root, 'stopped');
    await runCliUntilRecorded([...ARGS(), '--realized-from', LOG, '--out', stopped], path.join(stopped, 'records.jsonl'), { cwd: root, env });
    assert.ok(records(stopped).length < 5, 'stopped before the end');
    const without = run([...ARGS(), '--out', stopped, '--resume']);
    assert.notEqual(without.code, 0);
    assert.match(without.stderr, /realized outputs \(--realized-from\): the run has "lm-evaluation-harness log sha256 [0-9a-f]{64}", this command gives "generated"/);
    const other = run([...ARGS(), '--realized-from', OTHER_LOG, '--out', stopped, '--resume']);
    assert.notEqual(other.code, 0);
    const resumed = run([...ARGS(), '--realized-from', LOG, '--out', stopped, '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(sortedLines(stopped), sortedLines(whole));
    assert.equal(fs.readFileSync(path.join(stopped, 'summary.json'), 'utf8'), fs.readFileSync(path.join(whole, 'summary.json'), 'utf8'));
  });
});
