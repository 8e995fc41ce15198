/**
 * The built `reach-audit` CLI (dist/cli.js) on real model folders: forward / generate output
 * contracts checked against the float64 reference, and bad input giving one clear line, a
 * non-zero exit, no stack trace and nothing in the graph cache.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { ReferenceModel, maxRelativeDifference } from '../support/referenceTransformer';

const cli = path.resolve(__dirname, '../../../dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-engine-cli-'));
const cache = path.join(root, 'cache');
const modelDir = path.join(root, 'qwen2');

function run(args: string[], cacheDir = cache, env: NodeJS.ProcessEnv = process.env): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: { ...env, REACH_AUDIT_CACHE: cacheDir, REACH_AUDIT_DEBUG: '' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reach-audit engine commands', () => {
  let ref: ReferenceModel;
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(modelDir, SMALL_SPECS.qwen2);
    ref = ReferenceModel.load(modelDir);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('forward --ids --route --silence-mlp --json prints ids and full-vocabulary logits matching the reference', () => {
    const r = run(['forward', '--model', modelDir, '--ids', '5,6,7,8', '--route', '0,1,1,3', '--silence-mlp', '2', '--json', '--threads', '1']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { ids: number[]; logits: number[] };
    assert.deepEqual(out.ids, [5, 6, 7, 8]);
    assert.equal(out.logits.length, SMALL_SPECS.qwen2.vocabSize);
    const want = ref.lastLogits([5, 6, 7, 8], { route: [0, 1, 1, 3], silencedMlp: [2] });
    assert.ok(maxRelativeDifference(out.logits, want) < 1e-4);
  });

  it('forward --prompt uses the chat template, --raw does not', () => {
    const chat = JSON.parse(run(['forward', '--model', modelDir, '--prompt', 'What is 2+2?', '--json']).stdout) as { ids: number[] };
    const raw = JSON.parse(run(['forward', '--model', modelDir, '--prompt', 'What is 2+2?', '--raw', '--json']).stdout) as { ids: number[]; logits: number[] };
    assert.ok(chat.ids.length > raw.ids.length);
    assert.ok(maxRelativeDifference(raw.logits, ref.lastLogits(raw.ids)) < 1e-4);
  });

  it('generate --json prints prompt ids, generated tokens, text and finish reason (greedy = reference)', () => {
    const r = run(['generate', '--model', modelDir, '--prompt', 'hello there', '--raw', '--max-new-tokens', '5', '--route', '0,0,1,2,3', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { ids: number[]; tokens: number[]; text: string; finishReason: string };
    assert.deepEqual(Object.keys(out).sort(), ['finishReason', 'ids', 'text', 'tokens']);
    const eos = JSON.parse(fs.readFileSync(path.join(modelDir, 'generation_config.json'), 'utf8')).eos_token_id;
    assert.deepEqual(out.tokens, ref.greedy(out.ids, 5, { route: [0, 0, 1, 2, 3], eosIds: [eos].flat() }));
    assert.ok(['stop', 'length'].includes(out.finishReason));
    const text = run(['generate', '--model', modelDir, '--prompt', 'hello there', '--raw', '--max-new-tokens', '5', '--route', '0,0,1,2,3']);
    assert.equal(text.stdout, out.text + '\n');
  });

  it('generate with a seed is reproducible', () => {
    const args = ['generate', '--model', modelDir, '--prompt', 'abc', '--max-new-tokens', '6', '--temperature', '1.2', '--top-p', '0.9', '--seed', '11', '--json'];
    assert.deepEqual(JSON.parse(run(args).stdout).tokens, JSON.parse(run(args).stdout).tokens);
  });

  it('prints --help for each engine command', () => {
    for (const c of ['forward', 'generate', 'bench']) {
      const r = run([c, '--help']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, new RegExp(`Usage: reach-audit ${c}`));
    }
  });

  it("bench measures with the engine processes' allocator settings, or as started with --inherit-allocator, and says which", { skip: process.platform !== 'linux' && 'glibc only' }, () => {
    const env = { ...process.env };
    for (const k of ['MALLOC_MMAP_MAX_', 'MALLOC_TRIM_THRESHOLD_', 'GLIBC_TUNABLES']) delete env[k];
    const args = ['bench', '--model', modelDir, '--runs', '1', '--prompt-tokens', '4', '--decode-tokens', '2', '--batch', '2', '--threads', '1', '--json'];
    const engine = run(args, cache, env);
    assert.equal(engine.code, 0, engine.stderr);
    const figures = JSON.parse(engine.stdout) as { allocator: Record<string, string | null>; decodeTokensPerSecondBatch1: number };
    assert.deepEqual(figures.allocator, { MALLOC_MMAP_MAX_: '0', MALLOC_TRIM_THRESHOLD_: String(64 * 2 ** 30), GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    assert.ok(figures.decodeTokensPerSecondBatch1 > 0);
    assert.match(engine.stderr, /measuring in a child process started with the engine's allocator settings/);
    const inherited = run([...args, '--inherit-allocator'], cache, env);
    assert.equal(inherited.code, 0, inherited.stderr);
    assert.deepEqual((JSON.parse(inherited.stdout) as typeof figures).allocator, { MALLOC_MMAP_MAX_: null, MALLOC_TRIM_THRESHOLD_: null, GLIBC_TUNABLES: null });
  });

  it("bench --audit holds the audit's tokens/s against the engine's mixed-route decode and says where the time went", () => {
    const records = path.join(root, 'bench-records.jsonl');
    const r = run(['bench', '--model', modelDir, '--audit', '--audit-questions', '2', '--audit-budget', '2', '--audit-tokens', '2-4', '--audit-rounds', '1', '--audit-no-staged', '--audit-records', records, '--decode-tokens', '1', '--threads', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    type Profile = Record<'wallSeconds' | 'prefillSeconds' | 'decodeSeconds' | 'chooseSeconds' | 'betweenSeconds' | 'idleSeconds' | 'meanDecodeBatch' | 'decodeSteps' | 'prefillSteps', number>;
    const { audit } = JSON.parse(r.stdout) as { audit: { staged: unknown; scheduled: { profile: Profile[] }; engine: { batch: number; mixedRouteDecodeTokensPerSecond: number[] }; engineRatios: number[]; prefillBounds: number[]; schedulingEfficiencies: number[]; generationsPerPath: number } };
    assert.equal(audit.staged, null);
    // 2 questions x (deployment + 3 probes x 2 attempts).
    assert.equal(audit.generationsPerPath, 14);
    assert.equal(audit.engine.batch, 8, 'a 4-block model has 8 routes of one skip or repeat');
    assert.ok(audit.engine.mixedRouteDecodeTokensPerSecond[0] > 0);
    assert.ok(audit.engineRatios[0] > 0);
    // The gap's two parts multiply to the ratio: prefill bound × scheduling = audit / engine.
    assert.ok(audit.prefillBounds[0] > 0, String(audit.prefillBounds[0]));
    assert.ok(Math.abs(audit.prefillBounds[0] * audit.schedulingEfficiencies[0] - audit.engineRatios[0]) < 1e-9 * audit.engineRatios[0] + 1e-12);
    const [p] = audit.scheduled.profile;
    assert.ok(p.decodeSteps > 0 && p.prefillSteps > 0 && p.meanDecodeBatch >= 1);
    // The parts add up to the wall time (the queue's own clock against the bench's).
    const parts = p.prefillSeconds + p.decodeSeconds + p.chooseSeconds + p.betweenSeconds + p.idleSeconds;
    assert.ok(Math.abs(parts - p.wallSeconds) < 0.05 * p.wallSeconds + 0.05, `${parts} vs ${p.wallSeconds}`);
    assert.equal(fs.readFileSync(records, 'utf8').trim().split('\n').length, 2);
  });

  it('bench --audit --audit-sizes --audit-budgets runs every cell in rotating interleaved rounds and holds each size to the smallest of its budget', () => {
    const r = run(['bench', '--model', modelDir, '--audit', '--audit-sizes', '4,2', '--audit-budgets', '1,2', '--audit-tokens', '2-4', '--audit-rounds', '2', '--threads', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    type Cell = { questions: number; budget: number; generations: number; generatedTokens: number; seconds: number[]; tokensPerSecond: number[]; medianTokensPerSecond: number; referenceQuestions: number; ratios: number[]; medianRatio: number; profile: { wallSeconds: number; decodeSteps: number }[]; breakdown: { storedPrefixRows: number; prefillBlockRows: number }[] };
    const { auditSweep } = JSON.parse(r.stdout) as { auditSweep: { sizes: number[]; budgets: number[]; order: string[][]; cells: Cell[] } };
    assert.deepEqual(auditSweep.sizes, [2, 4]);
    assert.deepEqual(auditSweep.cells.map((c) => `${c.questions}×${c.budget}`), ['2×1', '4×1', '2×2', '4×2']);
    // Every round runs each cell once, and the first cell differs between rounds.
    assert.equal(auditSweep.order.length, 2);
    for (const order of auditSweep.order) assert.deepEqual([...order].sort(), ['2×1', '2×2', '4×1', '4×2']);
    assert.notEqual(auditSweep.order[0][0], auditSweep.order[1][0]);
    for (const c of auditSweep.cells) {
      // questions × (deployment + 3 probes × budget attempts).
      assert.equal(c.generations, c.questions * (1 + 3 * c.budget), `${c.questions}×${c.budget}`);
      assert.ok(c.generatedTokens > 0 && c.generatedTokens <= 4 * c.generations);
      assert.equal(c.tokensPerSecond.length, 2);
      assert.equal(c.profile.length, 2);
      c.tokensPerSecond.forEach((t, round) => assert.ok(Math.abs(t - c.generatedTokens / c.seconds[round]) < 1e-9 * t));
      const base = auditSweep.cells.find((x) => x.budget === c.budget && x.questions === 2)!;
      assert.equal(c.referenceQuestions, 2);
      assert.deepEqual(c.ratios, c.tokensPerSecond.map((t, round) => t / base.tokensPerSecond[round]));
      // Each cell starts from an empty prefix store, so it prefills the same in every round
      // whichever cell ran before it (kept, the later cells took nearly every prompt row from it).
      assert.deepEqual(c.breakdown.map((b) => [b.storedPrefixRows, b.prefillBlockRows]), [0, 1].map(() => [c.breakdown[0].storedPrefixRows, c.breakdown[0].prefillBlockRows]), `${c.questions}×${c.budget}`);
    }
    assert.equal(auditSweep.cells[0].breakdown[0].storedPrefixRows, 0, 'a 2-question cell at budget 1 stores nothing it reads again');
    // The 4-question cell's first two questions are the 2-question cell's: their work is part of it.
    const at = (q: number, b: number): Cell => auditSweep.cells.find((c) => c.questions === q && c.budget === b)!;
    assert.ok(at(4, 2).generatedTokens > at(2, 2).generatedTokens);
    const text = run(['bench', '--model', modelDir, '--audit', '--audit-sizes', '1,2', '--audit-tokens', '2-4', '--audit-budget', '1', '--audit-rounds', '1', '--threads', '1']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /audit sweep {6}1, 2 questions × budgets 1: the scheduler only/);
    assert.match(text.stdout, /questions {2}budget {2}generations {2}tokens {2}s\/round {2}tokens\/s median \(min–max\) {2}÷ 1q median \(per round\)/);
    assert.match(text.stdout, /\n {8}2 {7}1 {12}8 /);
  });

  it('bench --audit-sizes and --audit-budgets refuse bad lists and the flags they do not go with, naming the flag', () => {
    const cases: [string[], RegExp][] = [
      [['--audit', '--audit-sizes', '0,4'], /--audit-sizes: entry 1 \('0'\) is not a whole number >= 1/],
      [['--audit', '--audit-sizes', '4,x'], /--audit-sizes: entry 2 \('x'\)/],
      [['--audit', '--audit-budgets', '4,16,4'], /--audit-budgets: 4 appears twice/],
      [['--audit', '--audit-budgets', ''], /--audit-budgets: entry 1 \(''\)/],
      [['--audit-sizes', '8,16'], /add --audit/],
      [['--audit', '--audit-sizes', '8,16', '--audit-records', path.join(root, 'x.jsonl')], /--audit-records writes one size's records/],
    ];
    for (const [args, message] of cases) {
      const r = run(['bench', '--model', modelDir, ...args]);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      assert.doesNotMatch(r.stderr, /measuring in a child process/, 'checked before the measuring child starts');
      assert.equal(r.stdout, '');
    }
  });

  it('rejects bad input with one line naming the argument, a non-zero exit and nothing cached', () => {
    const empty = path.join(root, 'empty-cache');
    const cases: [string[], RegExp][] = [
      [['forward', '--model', modelDir, '--ids', '1,2', '--route', '0,9'], /--route\[1\]: block index 9 is out of range/],
      [['forward', '--model', modelDir, '--ids', '1,2', '--route', ''], /--route/],
      [['forward', '--model', modelDir, '--ids', '1,2', '--route', '[0.5]'], /--route\[0\]: block index 0\.5 is not a whole number/],
      [['forward', '--model', modelDir, '--ids', '1,2', '--route', '["0"]'], /--route\[0\]: block index "0" is not a whole number/],
      [['forward', '--model', modelDir, '--ids', '1,2', '--route', '0,1e999'], /--route\[1\]: block index Infinity is not a whole number/],
      [['forward', '--model', modelDir, '--ids', '1,x'], /--ids/],
      [['forward', '--model', modelDir, '--ids', '1,99999'], /--ids: token id 99999/],
      [['forward', '--model', modelDir, '--ids', '1', '--silence-mlp', '4'], /--silence-mlp\[0\]: block index 4/],
      [['generate', '--model', modelDir, '--prompt', 'x', '--temperature', 'hot'], /--temperature/],
      [['generate', '--model', modelDir, '--prompt', 'x', '--top-p', '1.5'], /--top-p/],
      [['generate', '--model', modelDir, '--prompt', 'x', '--max-new-tokens', '-3'], /--max-new-tokens/],
      [['generate', '--model', modelDir, '--prompt', 'x', '--bogus'], /bogus/],
      [['forward', '--model', path.join(root, 'no-such-model'), '--ids', '1'], /config\.json/],
    ];
    for (const [args, message] of cases) {
      const r = run(args, empty);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
      assert.doesNotMatch(r.stderr, /\n\s+at /, `stack trace for ${args.join(' ')}`);
      assert.equal(r.stdout, '');
    }
    assert.ok(!fs.existsSync(empty) || fs.readdirSync(empty).length === 0);
  });

  it('rejects a corrupt safetensors file without caching anything', () => {
    const bad = path.join(root, 'corrupt');
    writeRandomModel(bad, SMALL_SPECS.llama);
    const header = Buffer.alloc(8);
    header.writeBigUInt64LE(10n ** 12n); // header length far past the end of the file
    const file = path.join(bad, 'model.safetensors');
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, header, 0, 8, 0);
    fs.closeSync(fd);
    const empty = path.join(root, 'empty-cache-2');
    const r = run(['forward', '--model', bad, '--ids', '1,2'], empty);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /model\.safetensors/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.ok(!fs.existsSync(empty) || fs.readdirSync(empty).length === 0);
  });
});
