/**
 * A question audited alone against the same question inside a run large enough for the
 * global-route pool (docs/design/statistics.md, "Determinism"): the run of one question skips the pool and
 * says why in its manifest; the full run evaluates the pool on every question. The two records of
 * the question are the same in every field but `globalRoutes` — the only part of a record that
 * depends on the size of the run. Runs the built CLI (dist/cli.js) on a small random model.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import type { QuestionRecord } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-question-alone-'));
const model = path.join(root, 'model');
const data = path.join(root, 'questions.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const QUESTIONS = 20;
const SETTINGS = ['--probe', 'sample:2', '--probe', 'routes:2', '--select', 'majority,confidence,global-route', '--global-routes', '2', '--max-new-tokens', '4', '--batch', '4', '--threads', '1'];

function audit(out: string, ...extra: string[]): void {
  const r = spawnSync(process.execPath, [cli, 'audit', '--model', model, '--data', data, ...SETTINGS, '--out', out, ...extra], { cwd: root, encoding: 'utf8', env });
  assert.equal(r.status, 0, r.stderr);
}

function records(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

function manifest(folder: string): { globalRoutes: { count: number; routes: number[][]; skipped?: string } } {
  return JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as { globalRoutes: { count: number; routes: number[][]; skipped?: string } };
}

describe('a question audited alone vs inside a run of 20 questions', () => {
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    const lines = Array.from({ length: QUESTIONS }, (_, i) => JSON.stringify({ id: `q${i}`, question: `What is ${i} + 3?`, answer: `#### ${i + 3}` }));
    fs.writeFileSync(data, lines.join('\n') + '\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('differs only in globalRoutes: the full run evaluates the pool, the one-question run skips it and says why', () => {
    const full = path.join(root, 'full');
    const alone = path.join(root, 'alone');
    audit(full);
    audit(alone, '--ids', 'q7');

    const fullManifest = manifest(full);
    assert.equal(fullManifest.globalRoutes.count, 2);
    assert.equal(fullManifest.globalRoutes.skipped, undefined);
    const aloneManifest = manifest(alone);
    assert.deepEqual({ count: aloneManifest.globalRoutes.count, routes: aloneManifest.globalRoutes.routes }, { count: 0, routes: [] });
    assert.match(aloneManifest.globalRoutes.skipped ?? '', /needs at least 20 questions \(this run has 1\)/);

    const inFull = records(full).find((r) => r.id === 'q7');
    const [single] = records(alone);
    assert.ok(inFull && single);
    assert.equal(inFull.globalRoutes?.attempts.length, 2, 'the full run evaluated the pool on the question');
    assert.equal(single.globalRoutes, undefined, 'alone, the pool was not evaluated');
    const { globalRoutes: _pool, ...rest } = inFull;
    assert.deepEqual(single, rest, 'every other field is the same');
  });
});
