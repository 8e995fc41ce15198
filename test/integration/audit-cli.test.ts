/**
 * The built `reach-audit` CLI (dist/cli.js) running the audit protocol on real model folders:
 * run-folder files and the record/summary contracts, `--ids` reproducing a full run's record,
 * Ctrl-C + `--resume` ending with the same summary.json as an uninterrupted run, report/compare,
 * and bad input giving one clear line, a non-zero exit and no lost records. Uses small random
 * models (test/support/modelFolder.ts) and, when present, the bundled demo pair.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { summarize } from '../../src/audit/results/summary';
import type { QuestionRecord } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-audit-cli-'));
const cache = path.join(root, 'cache');
const baseModel = path.join(root, 'base');
const tunedModel = path.join(root, 'tuned');
const data = path.join(root, 'test.jsonl');

const env = { ...process.env, REACH_AUDIT_CACHE: cache, REACH_AUDIT_DEBUG: '' };

function run(args: string[], cwd = root): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const PROBES = ['--probe', 'sample:2', '--probe', 'routes:2', '--probe', 'search:2', '--repair', '--max-new-tokens', '4', '--batch', '2', '--threads', '1'];

function readRecords(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** One clear line on stderr, a non-zero exit, no stack trace. */
function assertCleanFailure(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

describe('reach-audit audit / compare / report', () => {
  const full = path.join(root, 'runs', 'full');
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(baseModel, SMALL_SPECS.llama);
    writeRandomModel(tunedModel, { ...SMALL_SPECS.llama, seed: 99 });
    const lines = [];
    for (let i = 0; i < 6; i++) lines.push(JSON.stringify({ id: `q${i}`, question: `What is ${i} + ${i}?`, answer: `${i} + ${i} = ${2 * i}\n#### ${2 * i}` }));
    lines.splice(3, 0, '{"question": "no answer field"}');
    fs.writeFileSync(data, lines.join('\n') + '\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes manifest, records and summary per the contract; the summary is recomputable from records.jsonl', () => {
    const r = run(['audit', '--model', baseModel, '--data', data, ...PROBES, '--out', full, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /test\.jsonl:4: .*skipped/, 'the malformed line is reported with its line number');
    assert.match(r.stderr, /6\/6 questions \(100%\)/);
    const out = JSON.parse(r.stdout) as { run: string; summary: Record<string, unknown> };
    assert.equal(path.resolve(out.run), path.resolve(full));
    const manifest = readJson(path.join(full, 'manifest.json')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads JSON
    assert.equal(manifest.model.path, baseModel);
    assert.match(manifest.model.contentHash, /^[0-9a-f]{64}$/);
    assert.match(manifest.dataset.contentHash, /^[0-9a-f]{64}$/);
    assert.deepEqual(manifest.probes, [{ name: 'sample', budget: 2 }, { name: 'routes', budget: 2 }, { name: 'search', budget: 2 }]);
    for (const key of ['deployment', 'seeds', 'engine', 'selectors', 'repair', 'globalRoutes']) assert.ok(key in manifest, key);

    const records = readRecords(full);
    assert.deepEqual(records.map((x) => x.id), ['q0', 'q1', 'q2', 'q3', 'q4', 'q5']);
    for (const rec of records) {
      for (const key of ['id', 'line', 'gold', 'realized', 'probes', 'reachable', 'blind', 'repair']) assert.ok(key in rec, key);
      for (const key of ['output', 'answer', 'correct', 'truncated']) assert.ok(key in rec.realized, key);
      for (const p of ['sample', 'routes', 'search']) {
        const probe = rec.probes[p];
        assert.equal(probe.budget, 2);
        assert.equal(probe.attempts.length, 2);
        for (const a of probe.attempts) for (const key of ['output', 'answer', 'correct', 'logprob']) assert.ok(key in a, key);
        assert.equal(typeof rec.reachable[p], 'boolean');
        // Answer-blind selection only over answer-independent probes: the search used the gold answer.
        if (p === 'search') assert.equal(rec.blind[p], undefined);
        else assert.deepEqual(Object.keys(rec.blind[p]), ['majority', 'confidence']);
      }
      assert.ok('inFailureSet' in rec.repair! && 'correctBySilencedBlock' in rec.repair!);
    }
    const summary = readJson(path.join(full, 'summary.json')) as Record<string, unknown>;
    for (const key of ['n', 'realized', 'reachable', 'passAtK', 'blind', 'repair', 'budget', 'reachableNotRealized', 'passAtKCi', 'blindRetention', 'routesVsSearch', 'exhausted']) assert.ok(key in summary, key);
    assert.deepEqual(summary, JSON.parse(JSON.stringify(summarize(records))));
    assert.deepEqual(out.summary, summary);
  });

  it('auditing one question alone (--ids) reproduces its record from the full run', () => {
    const alone = path.join(root, 'runs', 'alone');
    const r = run(['audit', '--model', baseModel, '--data', data, ...PROBES, '--ids', 'q4', '--out', alone]);
    assert.equal(r.code, 0, r.stderr);
    // One question cannot have a selection half and a held-out half: the pool is skipped, and said so.
    assert.match(r.stderr, /global-route selection skipped: .*this run has 1\)/);
    assert.match((readJson(path.join(alone, 'manifest.json')) as { globalRoutes: { skipped?: string } }).globalRoutes.skipped ?? '', /needs at least 20 questions/);
    const [record] = readRecords(alone);
    assert.deepEqual(record, readRecords(full).find((x) => x.id === 'q4'));
  });

  it('Ctrl-C keeps finished questions; --resume ends with the same summary.json as the uninterrupted run', async () => {
    const stopped = path.join(root, 'runs', 'stopped');
    const child = spawn(process.execPath, [cli, 'audit', '--model', baseModel, '--data', data, ...PROBES, '--out', stopped], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const records = path.join(stopped, 'records.jsonl');
    const code = await new Promise<number | null>((resolve) => {
      const timer = setInterval(() => {
        if (fs.existsSync(records) && fs.readFileSync(records, 'utf8').includes('\n')) {
          clearInterval(timer);
          child.kill('SIGINT');
        }
      }, 20);
      child.on('exit', (c) => {
        clearInterval(timer);
        resolve(c);
      });
    });
    const kept = readRecords(stopped);
    if (code === 130) {
      assert.match(stderr, /stopping/);
      // Records arrive one question at a time, each as soon as it is done.
      assert.ok(kept.length >= 1 && kept.length < 6, `kept ${kept.length}`);
      assert.ok(!fs.existsSync(path.join(stopped, 'summary.json')));
    } else assert.equal(code, 0, stderr); // finished before the signal landed: nothing to resume, still consistent
    const r = run(['audit', '--model', baseModel, '--data', data, ...PROBES, '--out', stopped, '--resume']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readJson(path.join(stopped, 'summary.json')), readJson(path.join(full, 'summary.json')));
    assert.deepEqual(readRecords(stopped), readRecords(full));
  });

  it('report prints every rate with n and an interval, and writes a self-contained HTML file', () => {
    const html = path.join(root, 'report.html');
    const r = run(['report', full, '--html', html]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /realized \(deployment\)\s+\S+%\s+\[\S+%, \S+%\]\s+\d+\/6/);
    assert.match(r.stdout, /reachable by routes\s+\S+%\s+\[/);
    const page = fs.readFileSync(html, 'utf8');
    assert.ok(!page.includes('<script'));
    assert.doesNotMatch(page, /(src|href)\s*=\s*["']?(https?:)?\/\//i);
    assert.match(page, /<svg /);
  });

  it('compare of two runs writes comparison.json with deltas, McNemar and transitions', () => {
    const tuned = path.join(root, 'runs', 'tuned');
    assert.equal(run(['audit', '--model', tunedModel, '--data', data, ...PROBES, '--out', tuned]).code, 0);
    const out = path.join(root, 'cmp');
    const r = run(['compare', '--base-run', full, '--tuned-run', tuned, '--out', out, '--html', path.join(root, 'cmp.html'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const stored = readJson(path.join(out, 'comparison.json')) as { comparison: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads JSON
    assert.equal(stored.comparison.n, 6);
    for (const key of ['realized', 'reachableCeiling', 'transitions', 'newlyRealized']) assert.ok(key in stored.comparison, key);
    assert.equal(typeof stored.comparison.realized.mcnemarP, 'number');
    assert.ok(fs.existsSync(path.join(root, 'cmp.html')));
    // Different settings cannot be compared.
    const other = path.join(root, 'runs', 'other');
    assert.equal(run(['audit', '--model', tunedModel, '--data', data, '--probe', 'sample:1', '--max-new-tokens', '2', '--limit', '1', '--out', other]).code, 0);
    assertCleanFailure(run(['compare', '--base-run', full, '--tuned-run', other]), /cannot compare .*probes/s);
  });

  it('bad input: one clear message each, non-zero exit, nothing already written lost', () => {
    const before = fs.readFileSync(path.join(full, 'records.jsonl'), 'utf8');
    const noFields = path.join(root, 'nofields.jsonl');
    fs.writeFileSync(noFields, '{"foo": 1}\n{"bar": 2}\n');
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', noFields]), /nofields\.jsonl: no usable question.*Tried/);
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', data, '--format', 'bogus']), /--format bogus: unknown answer format; expected auto, gsm8k, boxed, choice, exact/);
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', data, '--probe', 'routes:0']), /--probe routes:0: the budget must be a positive integer/);
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', data, '--probe', 'routes:many']), /--probe routes:many: the budget must be a positive integer/);
    const badGolds = path.join(root, 'badgolds.jsonl');
    fs.writeFileSync(badGolds, '{"question": "a?", "answer": "no marker"}\n{"question": "b?", "answer": "#### twelve"}\n');
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', badGolds, '--format', 'gsm8k']), /badgolds\.jsonl: no gold answer could be read in format gsm8k/);
    const blocker = path.join(root, 'blocker');
    fs.writeFileSync(blocker, '');
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', data, '--out', path.join(blocker, 'run')]), /cannot write the run folder/);
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', data, ...PROBES.slice(0, 4), '--out', full, '--resume']), /cannot resume .*probes/s);
    assertCleanFailure(run(['audit', '--model', tunedModel, '--data', data, ...PROBES, '--out', full, '--resume']), /cannot resume .*model content hash/s);
    assertCleanFailure(run(['audit', '--model', baseModel, '--data', data, ...PROBES, '--out', full]), /already holds an audit/);
    // compare checks both model folders before auditing either.
    const t0 = Date.now();
    assertCleanFailure(run(['compare', '--base-model', baseModel, '--tuned-model', path.join(root, 'missing'), '--data', data, '--out', path.join(root, 'nocmp')]), /missing.*config\.json/);
    assert.ok(!fs.existsSync(path.join(root, 'nocmp', 'base', 'records.jsonl')), 'the base model was not audited');
    assert.ok(Date.now() - t0 < 60000);
    assert.equal(fs.readFileSync(path.join(full, 'records.jsonl'), 'utf8'), before);
  });

  it('route search settings and length bounds: recorded in the manifest, every route within the bounds, a resume under other values refused', () => {
    const folder = path.join(root, 'runs', 'search-settings');
    const args = ['audit', '--model', baseModel, '--data', data, '--probe', 'routes:3', '--probe', 'search:3', '--select', 'majority', '--limit', '2', '--max-new-tokens', '2', '--threads', '1'];
    const settings = ['--search-c', '1.41', '--search-lambda', '5', '--search-random-child', '0', '--search-widening', 'off', '--min-route-length', '4', '--max-route-length', '5'];
    const r = run([...args, ...settings, '--out', folder]);
    assert.equal(r.code, 0, r.stderr);
    const manifest = readJson(path.join(folder, 'manifest.json')) as { search: unknown; routeSpace: unknown };
    assert.deepEqual(manifest.search, { c: 1.41, lambda: 5, exploration: 0, widening: 'off' });
    assert.deepEqual(manifest.routeSpace, { maxEdits: 4, minLength: 4, maxLength: 5 });
    const routes = readRecords(folder).flatMap((rec) => ['routes', 'search'].flatMap((p) => rec.probes[p].attempts.map((a) => a.route ?? [])));
    assert.ok(routes.length > 0 && routes.every((route) => route.length >= 4 && route.length <= 5), JSON.stringify(routes));
    assertCleanFailure(run([...args, ...settings.slice(0, 6), '--search-widening', '0.5', ...settings.slice(8), '--out', folder, '--resume']), /cannot resume .*search settings: the run has .*"widening":"off".*this command gives .*"widening":0\.5/s);
    // 4 blocks: the default bounds are [3, 5], so the run recorded the one bound that differs.
    assertCleanFailure(run([...args, ...settings.slice(0, 8), ...settings.slice(10), '--out', folder, '--resume']), /cannot resume .*route space: the run has \{"maxEdits":4,"minLength":4\}, this command gives \{"maxEdits":4\}/s);
    assertCleanFailure(run([...args, '--min-route-length', '6', '--out', path.join(root, 'runs', 'no-identity')]), /--min-route-length\/--max-route-length: the shortest route allowed \(6\) is longer than the model's 4 blocks/);
    assertCleanFailure(run([...args, '--search-widening', 'wide']), /--search-widening: expected a number from 0 to 1 \(the exponent α\) or off, got 'wide'/);
  });

  const demo = path.join(repo, 'media/demo');
  it('audits the bundled demo pair (first questions) and compares them', { skip: !(fs.existsSync(path.join(demo, 'base/config.json')) && fs.existsSync(path.join(demo, 'tuned/config.json'))) && 'demo models not present' }, () => {
    const out = path.join(root, 'demo');
    const r = run([
      'compare', '--base-model', path.join(demo, 'base'), '--tuned-model', path.join(demo, 'tuned'), '--data', path.join(demo, 'data/arith-test.jsonl'),
      '--limit', '4', '--probe', 'sample:2', '--probe', 'routes:2', '--probe', 'search:2', '--repair', '--out', out, '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const stored = JSON.parse(r.stdout) as { comparison: { n: number }; base: { summary: { n: number } } };
    assert.equal(stored.comparison.n, 4);
    assert.equal(stored.base.summary.n, 4);
  });
});

describe('reach-audit audit: prompts longer than the model context', () => {
  const demo = path.join(repo, 'media/demo');
  const present = fs.existsSync(path.join(demo, 'base/config.json'));
  it('skips a 20,000-token and a 1 MB question with the reason (counted apart from n), or cuts them with --truncate-prompt left', { skip: !present && 'demo model not present' }, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-context-'));
    const data = path.join(dir, 'long.jsonl');
    const lines = [
      { id: 'fits', question: 'What is 2 plus 3?', answer: '#### 5' },
      { id: 'twenty-thousand', question: `${'1 + '.repeat(10000)}1 = ?`, answer: '#### 10001' },
      { id: 'one-megabyte', question: `${'x'.repeat(1 << 20)} What is 1 plus 1?`, answer: '#### 2' },
    ];
    fs.writeFileSync(data, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const started = Date.now();
    const r = run(['audit', '--model', path.join(demo, 'base'), '--data', data, '--probe', 'sample:2', '--out', path.join(dir, 'skip'), '--json', '--max-new-tokens', '32'], dir);
    assert.equal(r.code, 0, r.stderr);
    const summary = (JSON.parse(r.stdout) as { summary: { n: number; skipped: { n: number; questions: { id: string; promptTokens: number; contextLimit: number }[] } } }).summary;
    assert.equal(summary.n, 1);
    assert.equal(summary.skipped.n, 2);
    assert.deepEqual(summary.skipped.questions.map((q) => q.id), ['twenty-thousand', 'one-megabyte']);
    assert.ok(summary.skipped.questions.every((q) => q.contextLimit === 512 && q.promptTokens > 512));
    const recs = fs.readFileSync(path.join(dir, 'skip', 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; skipped?: { message: string } });
    assert.match(recs[1].skipped!.message, /prompt tokens \+ 32 new tokens = \d+ positions exceed the model's context of 512 \(max_position_embeddings\)/);

    const cut = run(['audit', '--model', path.join(demo, 'base'), '--data', data, '--probe', 'sample:2', '--out', path.join(dir, 'cut'), '--json', '--max-new-tokens', '32', '--truncate-prompt', 'left'], dir);
    assert.equal(cut.code, 0, cut.stderr);
    const s2 = (JSON.parse(cut.stdout) as { summary: { n: number; skipped: { n: number }; promptTruncated: number } }).summary;
    assert.deepEqual([s2.n, s2.skipped.n, s2.promptTruncated], [3, 0, 2]);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'cut', 'manifest.json'), 'utf8')) as { deployment: { truncatePrompt?: string } };
    assert.equal(manifest.deployment.truncatePrompt, 'left');
    // Resuming the skipping run with truncation is a different run: refused.
    const resume = run(['audit', '--model', path.join(demo, 'base'), '--data', data, '--probe', 'sample:2', '--out', path.join(dir, 'skip'), '--resume', '--max-new-tokens', '32', '--truncate-prompt', 'left'], dir);
    assert.notEqual(resume.code, 0);
    assert.match(resume.stderr, /deployment/);
    assert.ok(Date.now() - started < 120000, `took ${Date.now() - started} ms`);
  });
});
