/**
 * An f16 run measures its cache against the f32 cache through the real CLI on the bundled demo
 * model: the manifest records the figure on the asked number of questions and `report` prints it;
 * a resume keeps it without measuring again; a default (f32) run's manifest and report have none.
 */
import { describe, it, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli, repoRoot } from '../support/cliRun';
import type { RunManifest } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-kv-fidelity-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const demo = path.join(repoRoot, 'media/demo');
const hasDemo = fs.existsSync(path.join(demo, 'tuned/config.json'));
const common = ['--model', path.join(demo, 'tuned'), '--data', path.join(demo, 'data/arith-test.jsonl'), '--limit', '6', '--max-new-tokens', '32', '--probe', 'sample:2', '--threads', '1'];
const manifestOf = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;

describe('an f16 run records its fidelity to the f32 cache', { skip: !hasDemo && 'demo model not present' }, () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('measures the first questions, records and reports the figure, keeps it on resume; a default run has none', () => {
    const out = path.join(root, 'f16');
    const run = runCli(['audit', ...common, '--kv-cache', 'f16', '--kv-fidelity-questions', '4', '--out', out], { cwd: root, env });
    assert.equal(run.code, 0, run.stderr);
    const f = manifestOf(out).engine.kvCacheFidelity;
    assert.ok(f, 'engine.kvCacheFidelity is recorded');
    assert.equal(f.questions, 4);
    assert.equal(f.maxNewTokens, 32);
    assert.ok(f.identicalSequences >= 0 && f.identicalSequences <= 4);
    assert.ok(f.referenceTokens > 0 && f.agreeingTokens <= f.referenceTokens);
    assert.ok(f.maxLogprobError >= f.meanLogprobError && f.maxLogprobError < 0.1, String(f.maxLogprobError));
    const line = new RegExp(`KV cache f16: ${f.identicalSequences}/4 questions identical to the f32 cache .*\\(${f.agreeingTokens}/${f.referenceTokens}\\) before the first divergence, \\|Δ log-prob\\| mean`);
    assert.match(run.stderr, line);
    const report = runCli(['report', out], { cwd: root, env });
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, line);

    const resumed = runCli(['audit', ...common, '--kv-cache', 'f16', '--kv-fidelity-questions', '2', '--out', out, '--resume'], { cwd: root, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.doesNotMatch(resumed.stderr, /questions identical to the f32 cache/);
    assert.deepEqual(manifestOf(out).engine.kvCacheFidelity, f);

    const plain = path.join(root, 'f32');
    const f32 = runCli(['audit', ...common, '--out', plain], { cwd: root, env });
    assert.equal(f32.code, 0, f32.stderr);
    assert.equal('kvCacheFidelity' in manifestOf(plain).engine, false);
    assert.doesNotMatch(runCli(['report', plain], { cwd: root, env }).stdout, /KV cache/);
  });
});
