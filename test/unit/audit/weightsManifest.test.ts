/**
 * The engine's weight precision is part of a run: recorded in its manifest, a resume with another
 * precision is refused, and so is comparing runs of different precisions unless asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../../src/common/errors';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { compareRuns } from '../../../src/audit/store/comparisonStore';
import type { RunManifest } from '../../../src/contract';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

test('weights are recorded, and mixing precisions is refused unless allowed', async () => {
  const dataset = smallDataset(6);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 3, modelInfo: { path: '/m', contentHash: 'h' }, settings: settingsFor() };
  const int8 = () => Object.assign(fakeFor(dataset), { weights: 'int8' as const });
  const f32Folder = tempDir();
  const int8Folder = tempDir();
  await runAudit({ ...base, model: fakeFor(dataset), folder: f32Folder, resume: false });
  await runAudit({ ...base, model: int8(), folder: int8Folder, resume: false });
  const manifest = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
  assert.equal(manifest(f32Folder).engine.weights, 'f32');
  assert.equal(manifest(int8Folder).engine.weights, 'int8');

  await assert.rejects(runAudit({ ...base, model: fakeFor(dataset), folder: int8Folder, resume: true }), /weights: the run has "int8", this command gives "f32"/);
  assert.throws(() => compareRuns(f32Folder, int8Folder, () => {}), (e: unknown) => e instanceof InputError && /weights: the base run has "f32", the tuned run has "int8"/.test((e as Error).message));
  const allowed = compareRuns(f32Folder, int8Folder, () => {}, { mixedWeights: true });
  assert.equal(allowed.comparison.n, dataset.questions.length);
});
