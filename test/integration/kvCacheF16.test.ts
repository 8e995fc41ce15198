/**
 * --kv-cache f16 through the real CLI on the bundled demo model: the audit runs and records the
 * precision with its 2-byte KV plan, a resume with the f32 cache is refused naming the flag, and
 * `fidelity --kv-cache f16` reports the token agreement against the f32 cache.
 */
import { describe, it, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli, repoRoot } from '../support/cliRun';
import type { RunManifest } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-kv-f16-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const demo = path.join(repoRoot, 'media/demo');
const hasDemo = fs.existsSync(path.join(demo, 'tuned/config.json'));
const common = ['--model', path.join(demo, 'tuned'), '--data', path.join(demo, 'data/arith-test.jsonl'), '--limit', '4', '--max-new-tokens', '32', '--threads', '1'];

describe('--kv-cache f16 on the demo model', { skip: !hasDemo && 'demo model not present' }, () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('records the precision and its plan, refuses a resume with the f32 cache, and fidelity reports the agreement', () => {
    const out = path.join(root, 'run');
    const run = runCli(['audit', ...common, '--kv-cache', 'f16', '--kv-memory', '64M', '--out', out], { cwd: root, env });
    assert.equal(run.code, 0, run.stderr);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
    assert.equal(manifest.engine.kvCache, 'f16');
    assert.equal(manifest.engine.kvMemory?.bytesPerValue, 2);
    const resumed = runCli(['audit', ...common, '--out', out, '--resume'], { cwd: root, env });
    assert.notEqual(resumed.code, 0);
    assert.match(resumed.stderr, /KV cache \(--kv-cache\): the run has "f16", this command gives "f32"/);

    const fidelity = runCli(['fidelity', ...common, '--kv-cache', 'f16', '--json'], { cwd: root, env });
    assert.equal(fidelity.code, 0, fidelity.stderr);
    const figures = JSON.parse(fidelity.stdout) as { kvCache: string; weights: string; agreement: { sequences: number; referenceTokens: number; agreeingTokens: number; maxLogprobError: number } };
    assert.equal(figures.kvCache, 'f16');
    assert.equal(figures.weights, 'f32');
    assert.equal(figures.agreement.sequences, 4);
    assert.ok(figures.agreement.agreeingTokens <= figures.agreement.referenceTokens && figures.agreement.referenceTokens > 0);
    assert.ok(figures.agreement.maxLogprobError >= 0 && figures.agreement.maxLogprobError < 0.1, String(figures.agreement.maxLogprobError));
  });
});
