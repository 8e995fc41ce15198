/**
 * A run is not resumed by an engine of another version (whose numbers may differ: a long prompt's
 * chunks moved the version from 9 to 10), and the refusal says what the user can do, since no
 * flag brings the other engine back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { manifestMismatches } from '../../../src/audit/store/manifest';
import { ResumeRefused } from '../../../src/audit/runner/runFolderAudit';
import { ENGINE_VERSION } from '../../../src/engine';
import type { RunManifest } from '../../../src/contract';

const FIXTURE = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'runs', '2026-12-01T09-30-00Z-demo-base', 'manifest.json');
const stored = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as RunManifest;

test('a run of another engine version is refused, with the release that started it as the way to finish it', () => {
  assert.notEqual(ENGINE_VERSION, stored.engine.version);
  const now: RunManifest = { ...stored, engine: { ...stored.engine, version: ENGINE_VERSION } };
  const problems = manifestMismatches(stored, now);
  assert.deepEqual(problems, [`engine version: the run has "${stored.engine.version}", this command gives "${ENGINE_VERSION}"`]);
  assert.match(new ResumeRefused('runs/x', problems).message, /finish this run with the reach-audit release that started it\.$/);
  // Other settings keep the old advice alone.
  assert.doesNotMatch(new ResumeRefused('runs/x', ['seed: the run has 0, this command gives 1']).message, /release/);
});
