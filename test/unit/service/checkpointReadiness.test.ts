/**
 * When a checkpoint folder counts as complete: the pure decision over two polls' snapshots, and the
 * same decision on real folders (a small model written by test/support) read by the engine's
 * safetensors reader: a folder still being written, a half-copied weights file, a sharded
 * checkpoint with a shard missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readiness, sameSnapshot, type FolderSnapshot } from '../../../src/service/checkpointReadiness';
import { checkCheckpointWeights, checkpointGoneWhy, snapshotFolder } from '../../../src/service/checkpointFolder';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

const snap = (...files: [string, number][]): FolderSnapshot => ({ files: files.map(([name, size]) => ({ name, size, mtimeMs: 1 })) });
const fine = () => ({ ok: true as const });
const never = () => {
  throw new Error('headers must not be read while files change');
};

test('a folder with neither config.json nor weights is not a checkpoint (logs, an optimizer folder)', () => {
  assert.deepEqual(readiness(undefined, snap(['events.out.tfevents', 10]), never), { state: 'not-a-checkpoint' });
  assert.deepEqual(readiness(snap(), snap(), never), { state: 'not-a-checkpoint' });
});

test('ready only once two polls see the same files and the headers read', () => {
  const a = snap(['config.json', 600], ['model.safetensors', 1000]);
  assert.equal(readiness(undefined, a, never).state, 'writing', 'first sighting: one poll is not enough');
  const grown = snap(['config.json', 600], ['model.safetensors', 2000]);
  assert.deepEqual(readiness(a, grown, never), { state: 'writing', why: 'files still changing' });
  assert.deepEqual(readiness(grown, grown, fine), { state: 'ready' });
  const later = { files: grown.files.map((f) => ({ ...f, mtimeMs: 2 })) };
  assert.equal(sameSnapshot(grown, later), false, 'a rewrite of the same size is a change');
  assert.deepEqual(readiness(grown, snap(['config.json', 600], ['model.safetensors', 2000], ['tokenizer.json', 5]), never), { state: 'writing', why: 'files still changing' });
});

test('stable but incomplete: no config yet, no weights yet, or headers that do not read', () => {
  const weightsOnly = snap(['model.safetensors', 10]);
  assert.deepEqual(readiness(weightsOnly, weightsOnly, never), { state: 'writing', why: 'no config.json yet' });
  const configOnly = snap(['config.json', 10]);
  assert.deepEqual(readiness(configOnly, configOnly, never), { state: 'writing', why: 'no weights file yet' });
  const both = snap(['config.json', 10], ['model-00001-of-00002.safetensors', 10], ['model.safetensors.index.json', 10]);
  assert.deepEqual(readiness(both, both, () => ({ ok: false, problem: 'shard 2 missing' })), { state: 'writing', why: 'shard 2 missing' });
});

test('on disk: a copy in progress, then complete; a half-copied weights file is not ready', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-ready-'));
  try {
    const source = writeRandomModel(path.join(root, 'source'), SMALL_SPECS.llama);
    const dir = path.join(root, 'checkpoint-100');
    fs.mkdirSync(dir);
    fs.copyFileSync(path.join(source.dir, 'config.json'), path.join(dir, 'config.json'));
    const weights = fs.readFileSync(path.join(source.dir, 'model.safetensors'));
    fs.writeFileSync(path.join(dir, 'model.safetensors'), weights.subarray(0, weights.length >> 1));
    const first = snapshotFolder(dir)!;
    const half = readiness(first, snapshotFolder(dir)!, () => checkCheckpointWeights(dir));
    assert.equal(half.state, 'writing', 'a stalled half copy does not read');
    assert.match(half.state === 'writing' ? half.why : '', /model\.safetensors/);
    fs.appendFileSync(path.join(dir, 'model.safetensors'), weights.subarray(weights.length >> 1));
    const whole = snapshotFolder(dir)!;
    assert.equal(readiness(first, whole, never).state, 'writing', 'it grew since the last poll');
    assert.deepEqual(readiness(whole, snapshotFolder(dir)!, () => checkCheckpointWeights(dir)), { state: 'ready' });
    assert.equal(checkpointGoneWhy(dir), undefined);
    fs.rmSync(dir, { recursive: true });
    assert.equal(snapshotFolder(dir), undefined);
    assert.equal(checkpointGoneWhy(dir), 'deleted during its audit');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('on disk: a sharded checkpoint with a shard missing waits, naming the shard; with both it is ready', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-ready-'));
  try {
    const written = writeRandomModel(path.join(root, 'global_step_20'), SMALL_SPECS.mistral);
    assert.equal(written.weightFiles.length, 2);
    const second = path.join(written.dir, written.weightFiles[1]);
    const kept = fs.readFileSync(second);
    fs.rmSync(second);
    const s = snapshotFolder(written.dir)!;
    const missing = readiness(s, snapshotFolder(written.dir)!, () => checkCheckpointWeights(written.dir));
    assert.equal(missing.state, 'writing');
    assert.match(missing.state === 'writing' ? missing.why : '', new RegExp(`names shard ${written.weightFiles[1].replace(/\./g, '\\.')}.*does not exist`));
    fs.writeFileSync(second, kept);
    const t = snapshotFolder(written.dir)!;
    assert.deepEqual(readiness(t, snapshotFolder(written.dir)!, () => checkCheckpointWeights(written.dir)), { state: 'ready' });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
