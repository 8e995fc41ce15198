/**
 * The built CLI with few-shot presets and probe decoding settings, on the real benchmark samples
 * (test/fixtures/benchmarks) with the bundled demo model: the manifest records the preset (its
 * examples with their provenance and origin, template, stop strings) and the probes' decoding; a
 * question that is one of the examples (or a near-duplicate of one) is skipped; test-split examples
 * are flagged; MMLU with a dev split is asked per subject; a model without a chat template is told which flags to
 * use; --resume refuses other sample settings and names them.
 */
import { describe, it, before } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { summarize } from '../../src/audit/results/summary';
import type { QuestionRecord, RunSummary, RunManifest } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const model = path.join(repo, 'media/demo/base');
const benchmarks = path.join(repo, 'test/fixtures/benchmarks');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-presets-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function readRecords(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

// The published GSM8K and MATH exemplars are not test lines: each of those files is two sample lines
// and a constructed near-duplicate (case, punctuation) of one of the preset's exemplars, which the
// normalized-text hash must recognise.
function withNearDuplicate(file: string, line: Record<string, unknown>): string {
  const lines = fs.readFileSync(path.join(benchmarks, file), 'utf8').split('\n').slice(0, 2);
  const out = path.join(root, `near-duplicate-${file}`);
  fs.writeFileSync(out, [...lines, JSON.stringify(line)].join('\n') + '\n');
  return out;
}
const gsm8kFile = () => withNearDuplicate('gsm8k-test-sample.jsonl', { question: 'if there are 3 cars in the parking lot, and 2 more cars arrive: how many cars are in the parking lot', answer: '3 + 2 = 5\n#### 5' });
const mathFile = () => withNearDuplicate('math500-test-sample.jsonl', { problem: 'If $\\det \\mathbf{A} = 2$ and $\\det \\mathbf{B} = 12$, then find $\\det (\\mathbf{A} \\mathbf{B})$', solution: '$\\boxed{24}$', answer: '24', subject: 'Precalculus', level: 1 });
const HARNESS = 'github.com/EleutherAI/lm-evaluation-harness@4e7e0d47f33b:lm_eval/tasks/';

// Each preset on its benchmark: two questions to ask and one that is among the preset's examples.
const CASES: { preset: string; file: () => string; ids: string[]; example: string; stop: string[]; shots: number; source: string; exemplars: string }[] = [
  { preset: 'gsm8k-cot-8shot', file: gsm8kFile, ids: ['1', '2', '3'], example: '3', stop: ['Q:', '</s>', '<|im_end|>'], shots: 8, source: `${HARNESS}gsm8k/gsm8k-cot.yaml #`, exemplars: 'published' },
  { preset: 'math-minerva-4shot', file: mathFile, ids: ['1', '2', '3'], example: '3', stop: ['Problem:'], shots: 4, source: `${HARNESS}minerva_math/utils.py #`, exemplars: 'published' },
  { preset: 'arc-5shot', file: () => path.join(benchmarks, 'arc-challenge-test-sample.jsonl'), ids: ['Mercury_7175875', 'Mercury_SC_409171', 'Mercury_7012740'], example: 'Mercury_7012740', stop: ['\n', 'Question:'], shots: 5, source: 'arc-challenge-test-sample.jsonl:', exemplars: 'test-split' },
  { preset: 'mmlu-5shot', file: () => path.join(benchmarks, 'mmlu-test-sample.jsonl'), ids: ['1', '2', '10'], example: '10', stop: ['\n'], shots: 5, source: 'mmlu-test-sample.jsonl:', exemplars: 'test-split' },
];

describe('few-shot presets and probe decoding through the CLI, with the demo model', () => {
  before(() => assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`));

  for (const c of CASES) {
    it(`--preset ${c.preset}`, () => {
      const out = path.join(root, c.preset);
      const data = c.file();
      const r = run([
        'audit', '--model', model, '--data', data, '--preset', c.preset, '--ids', c.ids.join(','),
        '--probe', 'sample:2', '--probe', 'routes:2', '--select', 'majority', '--max-new-tokens', '12',
        '--sample-temperature', '0.8', '--sample-top-p', '0.9',
        // The demo model's context is 512 positions; the examples do not fit whole.
        '--truncate-prompt', 'left', '--threads', '1', '--out', out,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
      assert.equal(manifest.deployment.preset, c.preset);
      assert.equal(manifest.deployment.prompt, 'raw');
      assert.deepEqual(manifest.deployment.stop, c.stop);
      assert.equal(manifest.deployment.fewShot.length, c.shots);
      for (const ex of manifest.deployment.fewShot) assert.ok(ex.source?.startsWith(c.source), `provenance of each example: ${ex.source}`);
      // Examples that are test-split lines are flagged, in the manifest and in a warning line.
      assert.equal(manifest.deployment.exemplars, c.exemplars);
      assert.equal(/the examples are not the published ones/.test(r.stderr), c.exemplars === 'test-split', r.stderr);
      assert.deepEqual(manifest.probeDecoding, { sample: { temperature: 0.8, topP: 0.9 }, routes: 'deployment' });

      const records = readRecords(out);
      assert.deepEqual(records.map((x) => x.id).sort(), [...c.ids].sort());
      const example = records.find((x) => x.id === c.example)!;
      assert.equal(example.skipped?.reason, 'exemplar');
      assert.deepEqual(example.probes, {});
      for (const rec of records.filter((x) => x.id !== c.example)) {
        assert.equal(rec.skipped, undefined, `${rec.id} is asked`);
        assert.ok(rec.promptTruncated, `${rec.id}: the few-shot prompt was cut from the left to fit 512 positions`);
        for (const o of [rec.realized, ...Object.values(rec.probes).flatMap((p) => p.attempts)]) {
          for (const s of c.stop) assert.ok(!o.output.includes(s), `${rec.id}: output cut before ${JSON.stringify(s)}: ${JSON.stringify(o.output)}`);
        }
        assert.ok(rec.probes.sample.attempts.every((a) => typeof a.seed === 'number'));
      }
      const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as RunSummary;
      assert.deepEqual(JSON.parse(JSON.stringify(summarize(records))), summary, 'summary.json is recomputable from records.jsonl');
      assert.equal(summary.n, 2);
      assert.equal(summary.skipped.n, 1);
      assert.deepEqual(summary.skipped.fewShotExamples?.map((x) => x.id), [c.example]);

      // The run files pass the contract's checks where they are read: the report shows the skipped example.
      const report = run(['report', out]);
      assert.equal(report.code, 0, report.stderr);
      assert.match(report.stdout, /skipped, not in n: 1 question shown with its answer as few-shot examples in the prompt \(/);

      // Resuming with another sample temperature is refused, naming the setting; the records stay.
      const again = run(['audit', '--model', model, '--data', data, '--preset', c.preset, '--ids', c.ids.join(','),
        '--probe', 'sample:2', '--probe', 'routes:2', '--select', 'majority', '--max-new-tokens', '12', '--sample-temperature', '1', '--sample-top-p', '0.9',
        '--truncate-prompt', 'left', '--threads', '1', '--out', out, '--resume']);
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /sample probe decoding \(--sample-temperature, --sample-top-p\): the run has \{"temperature":0\.8,"topP":0\.9\}, this command gives \{"temperature":1,"topP":0\.9\}/);
      assert.equal(readRecords(out).length, 3);
    });
  }

  it('--preset mmlu-5shot --fewshot-file: the subject is asked with its dev examples under its header, recorded per subject, no warning', () => {
    const dev = path.join(root, 'mmlu-dev.jsonl');
    const devLines = [1, 2, 3, 4, 5, 6].map((i) => JSON.stringify({ question: `What is ${i} + ${i}?`, choices: [`${2 * i}`, `${i}`, `${3 * i}`, '0'], answer: 0, subject: 'high_school_mathematics' }));
    fs.writeFileSync(dev, devLines.join('\n') + '\n');
    const out = path.join(root, 'mmlu-dev');
    const r = run(['audit', '--model', model, '--data', path.join(benchmarks, 'mmlu-test-sample.jsonl'), '--preset', 'mmlu-5shot', '--fewshot-file', dev, '--ids', '1,10',
      '--probe', 'sample:1', '--select', 'majority', '--max-new-tokens', '4', '--truncate-prompt', 'left', '--threads', '1', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /not the published ones|--fewshot-file:/);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
    assert.equal(manifest.deployment.exemplars, 'dev-split');
    const subject = manifest.deployment.bySubject?.high_school_mathematics;
    assert.equal(subject?.preamble, 'The following are multiple choice questions (with answers) about high school mathematics.');
    assert.deepEqual(subject?.fewShot.map((ex) => ex.source), [1, 2, 3, 4, 5].map((i) => `mmlu-dev.jsonl:${i} (dev split, subject high_school_mathematics)`));
    // Line 10 is one of the generic set's examples, not of the dev split's: it is asked.
    assert.ok(readRecords(out).every((x) => x.skipped === undefined));
  });

  it('a preset on a benchmark of another format, and alongside a prompt of its own, is refused before the model loads', () => {
    const r = run(['audit', '--model', model, '--data', path.join(benchmarks, 'gsm8k-test-sample.jsonl'), '--preset', 'arc-5shot', '--limit', '1', '--out', path.join(root, 'wrong')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--preset arc-5shot is for choice-format benchmarks; this dataset's answer format is gsm8k \(choose a preset for it: gsm8k-cot-8shot, deepseek-r1\)/);
    const both = run(['audit', '--model', model, '--data', path.join(benchmarks, 'gsm8k-test-sample.jsonl'), '--preset', 'gsm8k-cot-8shot', '--prompt', 'chat', '--limit', '1']);
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /--preset/);
    assert.match(both.stderr, /--prompt chat/);
    const cold = run(['audit', '--model', model, '--data', path.join(benchmarks, 'gsm8k-test-sample.jsonl'), '--sample-temperature', '0', '--limit', '1']);
    assert.notEqual(cold.code, 0);
    assert.match(cold.stderr, /--sample-temperature/);
  });

  it('a model without a chat template: the error names --preset and --prompt raw; with --preset it runs', () => {
    const base = path.join(root, 'no-template-model');
    fs.cpSync(model, base, { recursive: true });
    const configFile = path.join(base, 'tokenizer_config.json');
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    delete config.chat_template;
    fs.writeFileSync(configFile, JSON.stringify(config));
    const data = path.join(benchmarks, 'gsm8k-test-sample.jsonl');
    const r = run(['audit', '--model', base, '--data', data, '--limit', '1', '--probe', 'sample:1', '--select', 'majority', '--max-new-tokens', '4', '--threads', '1', '--out', path.join(root, 'chat')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /has no chat_template/);
    assert.match(r.stderr, /--preset NAME \(gsm8k-cot-8shot, math-minerva-4shot, arc-5shot, mmlu-5shot\)/);
    assert.match(r.stderr, /--prompt raw/);
    assert.doesNotMatch(r.stderr, /--raw\b/);
    const ok = run(['audit', '--model', base, '--data', data, '--limit', '1', '--preset', 'gsm8k-cot-8shot', '--truncate-prompt', 'left', '--probe', 'sample:1', '--select', 'majority', '--max-new-tokens', '4', '--threads', '1', '--out', path.join(root, 'preset')]);
    assert.equal(ok.code, 0, ok.stderr);
  });
});
