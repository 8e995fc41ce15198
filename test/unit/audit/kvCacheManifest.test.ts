/**
 * The KV cache's precision is part of a run: an f16 run's manifest names it (an f32 run's manifest
 * is as before, without the field), a resume with the other precision is refused both ways, and a
 * reproduce command carries --kv-cache f16.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { reproduceCommand } from '../../../src/service/reproduceCommand';
import type { RunManifest } from '../../../src/contract';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

test('the KV cache precision is recorded, and a resume with another one is refused', async () => {
  const dataset = smallDataset(6);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 3, modelInfo: { path: '/m', contentHash: 'h' }, settings: settingsFor() };
  const half = () => Object.assign(fakeFor(dataset), { kvCache: 'f16' as const });
  const f32Folder = tempDir();
  const f16Folder = tempDir();
  await runAudit({ ...base, model: fakeFor(dataset), folder: f32Folder, resume: false });
  await runAudit({ ...base, model: half(), folder: f16Folder, resume: false });
  const manifest = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
  assert.equal('kvCache' in manifest(f32Folder).engine, false);
  assert.equal(manifest(f16Folder).engine.kvCache, 'f16');

  await assert.rejects(runAudit({ ...base, model: fakeFor(dataset), folder: f16Folder, resume: true }), /KV cache \(--kv-cache\): the run has "f16", this command gives "f32"/);
  await assert.rejects(runAudit({ ...base, model: half(), folder: f32Folder, resume: true }), /KV cache \(--kv-cache\): the run has "f32", this command gives "f16"/);
  await runAudit({ ...base, model: half(), folder: f16Folder, resume: true });

  assert.ok(reproduceCommand(manifest(f16Folder)).args.join(' ').includes('--kv-cache f16'));
  assert.ok(!reproduceCommand(manifest(f32Folder)).args.join(' ').includes('--kv-cache'));
});
