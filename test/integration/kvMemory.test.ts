/**
 * --kv-memory through the real CLI on the bundled demo model: under a budget that holds two of the
 * run's sequences the audit states the need and runs two at once, records it in the manifest, and
 * writes records and summary byte for byte as the same audit under the default budget (half the
 * memory available, recorded with that figure, silent since it holds all 32) and with `off`
 * (admission changes batching, never results); each resumes under another budget; a budget no sequence fits in is refused before the run, naming the
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

  it('the default budget, off and a budget for two write the same records; each is recorded with its source, and the run resumes under any of them', () => {
    const byDefault = audit('default', []);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.ok(!byDefault.stderr.includes('KV memory'), 'the default budget holds 32 of the demo\'s sequences: nothing to say');
    // The estimate states memory beside time: 3.23 MiB of f32 weights (test/unit/engine/memoryFootprint.test.ts) + 32 × 480 KiB of KV.
    assert.match(byDefault.stderr, /: estimate: about .* tokens\/s \(measured warm-up: [^)]*\); memory: about 3\.23 MiB of f32 weights \+ up to 15 MiB of KV cache \(32 sequences at once × 480 KiB\), not counting working buffers, prompts prefilled ahead or the prefix store; Ctrl-C/);
    const off = audit('off', ['--kv-memory', 'off']);
    assert.equal(off.code, 0, off.stderr);
    assert.ok(!off.stderr.includes('KV memory'), 'no budget, no statement');
    const tight = audit('tight', ['--kv-memory', '1MiB']);
    assert.equal(tight.code, 0, tight.stderr);
    // 10 positions × 2 KV heads × 24 × 2 × 4 bytes × 128 slots (34 + 64 tokens) = 480 KiB: two in 1 MiB.
    assert.match(tight.stderr, /; memory: about 3\.23 MiB of f32 weights \+ up to 960 KiB of KV cache \(2 sequences at once × 480 KiB\)/, 'the budget\'s sequences at once');
    assert.match(tight.stderr, /KV memory: up to 480 KiB per sequence \(10 route positions × 2 KV heads × 24 × 2 \(keys, values\) × 4 bytes × 128 slots for 34 prompt \+ 64 new tokens\); the 1 MiB budget runs 2 at once instead of 32/);
    const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(root, dir, 'manifest.json'), 'utf8')) as RunManifest;
    const need = { perSequenceBytes: 491520, routeLength: 10, kvHeads: 2, headSize: 24, promptTokens: 34, maxNewTokens: 64, slots: 128 };
    assert.deepEqual(manifest('tight').engine.kvMemory, { budgetBytes: 2 ** 20, budgetFrom: 'flag', ...need, atOnce: 2 });
    const stated = manifest('default').engine.kvMemory;
    assert.ok(stated && stated.availableBytes !== undefined, 'the default is recorded with the memory it was taken from');
    assert.deepEqual(stated, { budgetBytes: Math.floor(stated.availableBytes / 2), budgetFrom: 'default', availableBytes: stated.availableBytes, share: 0.5, ...need, atOnce: 32 });
    assert.equal(manifest('off').engine.kvMemory, undefined);
    for (const file of ['records.jsonl', 'summary.json']) {
      const expected = fs.readFileSync(path.join(root, 'off', file));
      for (const run of ['default', 'tight']) assert.ok(fs.readFileSync(path.join(root, run, file)).equals(expected), `${file} of ${run} differs from --kv-memory off`);
    }
    // Scheduling only: a run resumes under another budget, none, or the default of a session whose machine has other memory free.
    for (const [dir, extra] of [['tight', []], ['default', ['--kv-memory', '1MiB']], ['off', []], ['default', ['--kv-memory', 'off']]] as const) {
      const resumed = audit(dir, ['--resume', ...extra]);
      assert.equal(resumed.code, 0, `${dir} ${extra.join(' ')}: ${resumed.stderr}`);
    }
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
    // No budget asks nothing of a server: off is not refused (the unreachable server is what fails).
    const off = audit('remote-off', ['--kv-memory', 'off', '--backend', 'openai', '--base-url', 'http://127.0.0.1:9/v1', '--timeout', '1', '--max-retries', '0']);
    assert.doesNotMatch(off.stderr, /--kv-memory/);
  });
});
