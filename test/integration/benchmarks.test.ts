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
import { summarize } from '../../src/audit/results/summary';
import { loadDataset } from '../../src/audit/dataset/dataset';
import type { QuestionRecord, RunSummary, RunManifest } from '../../src/contract';

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
        // A question longer than the demo model's context is recorded as skipped, with no outputs to read.
        if (rec.skipped) continue;
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
        const ran = records.filter((x) => !x.skipped);
        const attempts = ran.flatMap((x) => x.probes[p].attempts);
        assert.deepEqual(summary.truncated.probes[p], { truncated: attempts.filter((a) => a.truncated).length, outputs: 2 * ran.length });
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

  it('reach-audit grade reads outputs with the audit\'s code; bad lines are named', () => {
    const one = run(['grade', '--format', 'gsm8k', '--gold', '18', '--output', 'The answer is 18 dollars. She sold 9 eggs.', '--json']);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(JSON.parse(one.stdout), { answer: '18', rule: 'gsm8k-answer-phrase', match: { rule: 'rational' }, correct: true, truncated: false, read: { part: 'whole', from: 0 }, strict: { answer: null, correct: false }, flexible: { answer: '9', correct: false } });
    // A reasoning model's thought: cut while thinking is no answer; an answer inside the thought never counts.
    const cut = run(['grade', '--format', 'gsm8k', '--gold', '18', '--output', '<think>Let me see: 16 - 3 = 13, then 13 + 5 = 18', '--json']);
    assert.deepEqual(JSON.parse(cut.stdout), { answer: null, rule: 'none', match: null, correct: false, truncated: false, read: { part: 'nothing', from: 48 }, strict: { answer: null, correct: false }, flexible: { answer: null, correct: false } });
    const inside = run(['grade', '--format', 'boxed', '--gold', '18', '--output', '<think>so \\boxed{17}? no</think> Final: \\boxed{18}']);
    assert.match(inside.stdout, /^answer: +18$/m);
    assert.match(inside.stdout, /^read: +after the thought \(from character 32\)$/m);
    assert.match(run(['grade', '--format', 'gsm8k', '--gold', '18', '--output', '16 - 3 = 13, then 13 + 5 = 18', '--starts-in-thought']).stdout, /^read: +nothing: cut while thinking/m);
    assert.match(run(['grade', '--format', 'gsm8k', '--gold', '18', '--output', '[T]17[/T] 18', '--thinking-markers', '[T],[/T]']).stdout, /^answer: +18$/m);
    const badMarkers = run(['grade', '--format', 'gsm8k', '--output', 'x', '--thinking-markers', '<think>']);
    assert.equal(badMarkers.code, 2);
    assert.match(badMarkers.stderr, /--thinking-markers <think>: expected two different markers, OPEN,CLOSE/);
    // The equality rule that matched, through the computer-algebra library bundled apart (dist/computeEngine.js).
    const cas = run(['grade', '--format', 'boxed', '--gold', '\\frac{\\sqrt{3}}{2}', '--output', 'so $\\sin 60^\\circ = \\boxed{\\sqrt{3}/2}$', '--json']);
    assert.equal(cas.code, 0, cas.stderr);
    const graded = JSON.parse(cas.stdout) as { match: unknown; correct: boolean };
    assert.deepEqual([graded.match, graded.correct], [{ rule: 'symbolic' }, true]);
    const text = run(['grade', '--format', 'boxed', '--gold', '10', '--output', '$\\boxed{10 cm}$']);
    assert.match(text.stdout, /^match: +units-stripped$/m);
    const noGold = run(['grade', '--format', 'boxed', '--output', '$\\boxed{10}$', '--json']);
    assert.equal((JSON.parse(noGold.stdout) as { match: unknown }).match, null);
    const file = path.join(root, 'outputs.jsonl');
    const lines = [
      { gold: '1', output: 'dollars dollars 111111 - - 1', truncated: true },
      { gold: '\\frac{\\pi}{2}', output: 'so $\\boxed{\\pi/2}$' },
      { gold: '9\\text{ a.m.}', output: '$\\boxed{9\\text{ p.m.}}$' },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const many = run(['grade', '--format', 'boxed', '--outputs', file]);
    assert.equal(many.code, 0, many.stderr);
    assert.deepEqual(many.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { correct: boolean }).correct), [false, true, false]);
    const choice = run(['grade', '--format', 'choice', '--gold', 'C', '--choices', JSON.stringify(['a', 'b', 'Planetary days will become shorter.', 'd']), '--output', 'Answer: Planetary days will become shorter.', '--json']);
    assert.equal((JSON.parse(choice.stdout) as { answer: string }).answer, 'C');
    fs.appendFileSync(file, '{"gold": 3}\n');
    const bad = run(['grade', '--format', 'boxed', '--outputs', file]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /outputs\.jsonl:4: field "output" must be a string/);
  });

  it('reach-audit regrade writes a new run and counts the changed verdicts', () => {
    const source = path.join(root, 'gsm8k-test-sample.jsonl');
    const out = path.join(root, 'regraded');
    const r = run(['regrade', source, '--grade-truncated', 'lenient', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    const before = readRecords(source);
    const after = readRecords(out);
    const verdicts = (rs: QuestionRecord[]) => rs.flatMap((x) => [x.realized.correct, ...Object.values(x.probes).flatMap((p) => p.correct), ...(x.globalRoutes?.attempts.map((a) => a.correct) ?? [])]);
    const changed = verdicts(before).filter((v, i) => v !== verdicts(after)[i]).length;
    assert.match(r.stderr, new RegExp(`: ${changed} verdicts changed;`));
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
    assert.deepEqual(manifest.grading, { correctBy: 'stated', truncated: 'lenient' });
    assert.equal(manifest.regradedFrom, source);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as RunSummary;
    assert.deepEqual(JSON.parse(JSON.stringify(summarize(after))), summary);
    // Under the same rules nothing changes.
    const again = run(['regrade', source, '--out', path.join(root, 'regraded-same')]);
    assert.match(again.stderr, /: 0 verdicts changed;/);
  });

  it('reach-audit regrade recomputes the failure set and marks the repair scan stale', () => {
    const source = path.join(root, 'with-repair');
    const audited = run(['audit', '--model', model, '--data', path.join(benchmarks, 'gsm8k-test-sample.jsonl'), '--limit', '3', '--probe', 'sample:2', '--select', 'majority', '--repair', '--max-new-tokens', '6', '--threads', '1', '--out', source]);
    assert.equal(audited.code, 0, audited.stderr);
    const out = path.join(root, 'with-repair-regraded');
    const r = run(['regrade', source, '--grade-truncated', 'lenient', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /failure set recomputed: \d+ -> \d+ questions \(\d+ joined, \d+ left\)\. The repair scan is STALE/);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as RunSummary;
    assert.ok(summary.repair?.stale, 'summary.json says the scan is stale');
    assert.match(r.stdout, /STALE: the scan was measured for the failure set before regrading/);
    const members = fs.readFileSync(path.join(out, 'failure-set.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
    assert.equal(members.length, summary.repair!.stale!.failureSetSize);
    const report = run(['report', out]);
    assert.match(report.stdout, /STALE/);
  });
});

