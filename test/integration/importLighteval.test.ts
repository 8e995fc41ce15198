/**
 * The built CLI's `import` on lighteval details files, written in lighteval's layout by
 * test/support/lightevalDetailsFile.ts (which cites the lighteval commit the layout is read from):
 * realized is our grading of `model_response.text`, the metric and its extraction are kept as the
 * harness's reading, several samples per doc are the sample probe, the results file beside details/
 * gives the model and sampling settings, and bad files fail with the file, row and column named.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadDataset } from '../../src/audit/dataset';
import { grade } from '../../src/audit/answers';
import type { QuestionRecord, RunManifest, RunSummary } from '../../src/contract';
import { lightevalDetailsFile, type DetailSample } from '../support/lightevalDetailsFile';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-lighteval-'));
const DATE = '2026-12-03T09-30-00.123456';
const gsm8kRows = fs
  .readFileSync(path.join(repo, 'test/fixtures/benchmarks/gsm8k-test-sample.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .slice(0, 4)
  .map((l) => JSON.parse(l) as { question: string; answer: string });

/** Two samples per question; question 2's first output states its answer in words the harness's metric missed. */
const OUTPUTS = [
  [' She sells 16 - 3 - 4 = 9 eggs for 9 * 2 = $18.\n#### 18', ' 9 eggs, $18.\n#### 18'],
  [' It takes 2 / 2 = 1 bolt of white fiber, so 2 + 1 = 3 bolts.\nThe answer is 3.', ' #### 2'],
  [' The profit is $70,000.\n#### 70000', ' #### 65000'],
  [' He runs 3 sprints.\n#### 3', ' 9 * 60 = 540 meters.\n#### 540'],
];
const HARNESS = [
  { correct: 1, extracted: ['18'] },
  { correct: 0, extracted: [] },
  { correct: 1, extracted: ['70000'] },
  { correct: 0, extracted: ['3'] },
];

function gsm8kSamples(): DetailSample[] {
  return gsm8kRows.map((r, i) => ({
    query: `Question: ${r.question}\nAnswer:`,
    choices: [` ${r.answer}`],
    goldIndex: 0,
    input: `Question: ${r.question}\nAnswer:`,
    text: OUTPUTS[i],
    metric: { extractive_match: HARNESS[i].correct },
    extracted: HARNESS[i].extracted,
    generationSize: 256,
    stopSequences: ['Question:'],
  }));
}

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, REACH_AUDIT_DEBUG: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function records(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

/** Writes a details file where lighteval puts it: OUT/details/<org>/<model>/<date>/details_<task>_<date>.parquet. */
function detailsFile(out: string, task: string, bytes: Uint8Array): string {
  const folder = path.join(out, 'details', 'org', 'tiny-model', DATE);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `details_${task}_${DATE}.parquet`);
  fs.writeFileSync(file, bytes);
  return file;
}

describe('reach-audit import of lighteval details', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));

  it('realized is our grading of model_response.text; the metric and its extraction are kept; samples are the sample probe; the results file names the model', () => {
    const out = path.join(root, 'lighteval-out');
    const file = detailsFile(out, 'lighteval|gsm8k|0', lightevalDetailsFile(gsm8kSamples(), ['extractive_match'], 3));
    fs.mkdirSync(path.join(out, 'results', 'org', 'tiny-model'), { recursive: true });
    const generation = { temperature: 0.7, top_p: 0.95, max_new_tokens: null, seed: 1234 };
    fs.writeFileSync(
      path.join(out, 'results', 'org', 'tiny-model', `results_${DATE}.json`),
      JSON.stringify({ config_general: { lighteval_sha: 'abc123', model_name: 'org/tiny-model', model_config: { generation_parameters: generation } }, results: {} }),
    );
    const folder = path.join(root, 'run');
    const r = run(['import', file, '--out', folder]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /imported 4 questions from 1 lighteval log into/);

    const recs = records(folder);
    const questions = loadDataset(path.join(repo, 'test/fixtures/benchmarks/gsm8k-test-sample.jsonl')).questions;
    recs.forEach((rec, i) => {
      assert.equal(rec.realized.output, OUTPUTS[i][0]);
      assert.equal(rec.gold, questions[i].gold);
      const g = grade(OUTPUTS[i][0], questions[i]);
      assert.equal(rec.realized.correct, g.correct, `question ${i + 1}: realized as our grader reads the output`);
      assert.equal(rec.realized.answer, g.answer);
      assert.equal(rec.probes.sample.budget, 2);
      assert.deepEqual(rec.probes.sample.attempts.map((a) => a.output), OUTPUTS[i]);
      assert.equal(rec.harness!.prompt, `Question: ${gsm8kRows[i].question}\nAnswer:`);
    });
    assert.deepEqual(recs.map((x) => x.realized.correct), [true, true, true, false]);
    assert.deepEqual(recs.map((x) => x.reachable.sample), [true, true, true, true]);
    assert.deepEqual(recs.map((x) => x.harness!.readings.extractive_match), HARNESS.map((h) => ({ extracted: h.extracted[0] ?? null, correct: h.correct === 1, scores: { extractive_match: h.correct } })));

    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
    const imp = manifest.imported!;
    assert.equal(imp.tool, 'lighteval');
    assert.equal(imp.toolVersion, 'commit abc123');
    assert.equal(imp.model, 'org/tiny-model');
    assert.equal(imp.task, 'lighteval|gsm8k|0');
    assert.deepEqual(imp.generation, { temperature: 0.7, top_p: 0.95, seed: 1234, max_new_tokens: 256, stop_seqs: ['Question:'], num_samples: 2 });
    assert.deepEqual([manifest.deployment.temperature, manifest.deployment.topP, manifest.deployment.maxNewTokens, manifest.deployment.stop], [0.7, 0.95, 256, ['Question:']]);
    assert.deepEqual(manifest.probes, [{ name: 'sample', budget: 2 }]);
    assert.equal(manifest.dataset.format, 'gsm8k');

    // The harness's extractive match missed question 2's answer, which our rules find.
    const summary = JSON.parse(fs.readFileSync(path.join(folder, 'summary.json'), 'utf8')) as RunSummary;
    assert.deepEqual(summary.interfaceFailures!.extractive_match.missed, [{ id: '2', harness: null, ours: '3' }]);
    const report = run(['report', folder]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /interface failures, harness extractive_match \(n = 4\): it missed 1 answer/);
  });

  it('a choice task (lighteval MMLU: choices " A"… and gold_index) grades by letter; the prompt missing from model_response.input is said', () => {
    const samples: DetailSample[] = [
      { query: 'Question: 2 + 2?\nA. 3\nB. 5\nC. 4\nD. 1\nAnswer:', choices: [' A', ' B', ' C', ' D'], goldIndex: 2, id: 'q-a', text: [' The answer is C.'], metric: { acc: 1 } },
      { query: 'Question: 3 + 3?\nA. 6\nB. 5\nC. 4\nD. 1\nAnswer:', choices: [' A', ' B', ' C', ' D'], goldIndex: [0, 1], id: 'q-b', text: [' B'], metric: { acc: 0 } },
    ];
    const file = detailsFile(path.join(root, 'mmlu-out'), 'mmlu_gen', lightevalDetailsFile(samples, ['acc']));
    const folder = path.join(root, 'mmlu-run');
    const r = run(['import', file, '--out', folder]);
    assert.equal(r.code, 0, r.stderr);
    const recs = records(folder);
    assert.deepEqual(recs.map((x) => [x.id, x.gold, x.realized.answer, x.realized.correct]), [
      ['q-a', 'C', 'C', true],
      ['q-b', 'A', 'B', false],
    ]);
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
    assert.equal(manifest.dataset.format, 'choice');
    assert.equal(manifest.imported!.model, null);
    const unknown = manifest.imported!.unknown.join('\n');
    assert.match(unknown, /the prompt as sent for 2 of 2 questions \(model_response\.input is empty/);
    assert.match(unknown, /1 questions list several gold answers/);
    assert.match(unknown, /no results_<date>\.json found/);
  });

  it('bad details files: a log-likelihood task, a missing column, a gold index out of range, a file cut short — the file, row and column named, nothing written', () => {
    const bad = path.join(root, 'bad');
    fs.mkdirSync(bad);
    const write = (name: string, bytes: Uint8Array) => (fs.writeFileSync(path.join(bad, name), bytes), path.join(bad, name));
    const good = lightevalDetailsFile(gsm8kSamples(), ['extractive_match']);
    const loglik = write('details_arc_2026-12-03T09-30-00.parquet', lightevalDetailsFile([{ query: 'Q?', choices: [' a', ' b'], goldIndex: 0, text: [], metric: { acc: 1 } }], ['acc']));
    const outOfRange = write('details_range_2026-12-03T09-30-00.parquet', lightevalDetailsFile([{ query: 'Q?', choices: [' 4'], goldIndex: 3, text: ['4'], metric: { em: 1 } }], ['em']));
    const cut = write('details_cut_2026-12-03T09-30-00.parquet', good.subarray(0, Math.floor(good.length / 2)));
    // A parquet file with other columns: a hub benchmark given to import by mistake.
    const benchmark = path.join(repo, 'test/fixtures/parquet/gsm8k-test.parquet');
    for (const [log, pattern] of [
      [loglik, /details_arc_2026-12-03T09-30-00\.parquet: row 0: column "model_response\.text" is empty: this task is scored by log-likelihood/],
      [outOfRange, /details_range_2026-12-03T09-30-00\.parquet: row 0: column "doc\.gold_index" is 3; expected an index \(or list of indices\) into doc\.choices \(1 entries\)/],
      [cut, /details_cut_2026-12-03T09-30-00\.parquet: not a readable parquet file .*expected a lighteval details file/],
      [benchmark, /gsm8k-test\.parquet: not a lighteval details file of the current layout: no column "doc", "metric", "model_response" \(it has question, answer\); expected the columns doc, metric, model_response/],
    ] as const) {
      const out = path.join(root, `out-${path.basename(log)}`);
      const r = run(['import', log, '--out', out]);
      assert.notEqual(r.code, 0, path.basename(log));
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.ok(!fs.existsSync(out), 'nothing written');
    }
  });
});
