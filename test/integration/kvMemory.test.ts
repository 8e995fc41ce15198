/**
 * --kv-memory through the real CLI on the bundled demo model: under a budget that holds two of the
 * run's sequences the audit states the need and runs two at once, records it in the manifest, and
 * writes records and summary byte for byte as the same audit without a budget (admission changes
 * batching, never results); a budget no sequence fits in is refused before the run, naming the
 * need, the budget and what to change, with no run folder left behind.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli, repoRoot } from '../support/cliRun';
import type { RunManifest } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-kv-memory-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const demo = path.join(repoRoot, 'media/demo');
const hasDemo = fs.existsSync(path.join(demo, 'tuned/config.json'));

// Routes and search on the 8-block demo draw routes of up to 10 positions; its longest prompt here is 34 tokens.
const audit = (out: string, extra: string[]) => runCli([
  'audit', '--model', path.join(demo, 'tuned'), '--data', path.join(demo, 'data/arith-test.jsonl'), '--limit', '6',
  '--probe', 'sample:4', '--probe', 'routes:4', '--probe', 'search:4', '--select', 'majority,confidence',
  '--max-new-tokens', '64', '--threads', '1', '--out', path.join(root, out), ...extra,
], { cwd: root, env });

describe('--kv-memory on the demo model', { skip: !hasDemo && 'demo model not present' }, () => {
  before(() => assert.ok(fs.existsSync(path.join(repoRoot, 'dist/cli.js')), 'dist/cli.js is missing: run npm run build first'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('runs two at once under a budget for two, states and records the need, and writes the same records as without it', () => {
    const free = audit('free', []);
    assert.equal(free.code, 0, free.stderr);
    assert.ok(!free.stderr.includes('KV memory'), 'no budget, no statement');
    const tight = audit('tight', ['--kv-memory', '1MiB']);
    assert.equal(tight.code, 0, tight.stderr);
    // 10 positions × 2 KV heads × 24 × 2 × 4 bytes × 128 slots (34 + 64 tokens) = 480 KiB: two in 1 MiB.
    assert.match(tight.stderr, /KV memory: up to 480 KiB per sequence \(10 route positions × 2 KV heads × 24 × 2 \(keys, values\) × 4 bytes × 128 slots for 34 prompt \+ 64 new tokens\); the 1 MiB budget runs 2 at once instead of 32/);
    const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(root, dir, 'manifest.json'), 'utf8')) as RunManifest;
    assert.deepEqual(manifest('tight').engine.kvMemory, { budgetBytes: 2 ** 20, perSequenceBytes: 491520, routeLength: 10, kvHeads: 2, headSize: 24, promptTokens: 34, maxNewTokens: 64, slots: 128, atOnce: 2 });
    assert.equal(manifest('free').engine.kvMemory, undefined);
    for (const file of ['records.jsonl', 'summary.json']) {
      assert.ok(fs.readFileSync(path.join(root, 'tight', file)).equals(fs.readFileSync(path.join(root, 'free', file))), `${file} differs with --kv-memory`);
    }
    // Scheduling only: the run resumes under another budget or none.
    const resumed = audit('tight', ['--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
  });

  it('refuses a budget no sequence fits in, before the run', () => {
    const r = audit('small', ['--kv-memory', '100K']);
    assert.notEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /--kv-memory 100 KiB: one sequence of this run can need 480 KiB of KV cache \(.*\), more than the whole budget: raise --kv-memory to at least 480 KiB, or lower --max-new-tokens or --max-route-length/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(fs.existsSync(path.join(root, 'small')), false, 'no run folder');
  });

  it('is refused with servers, which manage their own memory', () => {
    const r = audit('remote', ['--kv-memory', '1G', '--backend', 'openai', '--base-url', 'http://127.0.0.1:9/v1']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--kv-memory budgets the local engine's KV caches; servers \(--backend openai\) manage their own/);
  });
});
