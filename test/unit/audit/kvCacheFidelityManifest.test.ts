/**
 * An f16 KV cache run carries its measured fidelity to the f32 cache: written in the manifest only
 * for f16 runs (an f32 run's manifest is as before), validated when read, kept by a resume (which
 * does not measure again) and by a resume on other kernels, carried by a merge of shards that
 * agree and refused (naming both) for shards of one platform that do not; `report` prints it with
 * its n and no interval; --kv-fidelity-questions is bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { mergeShards, readManifest, shardQuestions, shardSelection } from '../../../src/audit/store';
import { kvCacheFidelityText } from '../../../src/audit/report';
import { kvFidelityQuestions } from '../../../src/service/kvCacheFidelityCheck';
import type { KvCacheFidelity, NumericsPlatform, RunManifest } from '../../../src/contract';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

const dataset = smallDataset(6);
const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 3, modelInfo: { path: '/m', contentHash: 'h' }, settings: settingsFor() };
const half = () => Object.assign(fakeFor(dataset), { kvCache: 'f16' as const });
const manifestOf = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
const figure: KvCacheFidelity = { questions: 8, maxNewTokens: 64, identicalSequences: 7, referenceTokens: 400, agreeingTokens: 392, maxLogprobError: 3.1e-3, meanLogprobError: 1.2e-3 };
const avx2: NumericsPlatform = { onnxruntime: '1.30.0', arch: 'x64', cpu: 'A', f32Kernels: 'fma3', int8Kernels: 'avx2', features: ['avx2', 'fma'] };
const avx512: NumericsPlatform = { ...avx2, cpu: 'B', f32Kernels: 'avx512f', int8Kernels: 'avx512-vnni', features: ['avx2', 'avx512_vnni', 'avx512f', 'fma'] };

test('the fidelity is written only for an f16 run, and a resume keeps it without measuring', async () => {
  const f32Folder = tempDir();
  const f16Folder = tempDir();
  await runAudit({ ...base, model: fakeFor(dataset), kvCacheFidelity: figure, folder: f32Folder, resume: false });
  await runAudit({ ...base, questions: dataset.questions.slice(0, 3), model: half(), kvCacheFidelity: figure, numerics: avx2, folder: f16Folder, resume: false });
  assert.equal('kvCacheFidelity' in manifestOf(f32Folder).engine, false);
  assert.deepEqual(manifestOf(f16Folder).engine.kvCacheFidelity, figure);
  assert.deepEqual(readManifest(f16Folder).engine.kvCacheFidelity, figure);

  // Resumed on other kernels (the manifest is rewritten with the new platform): the figure stays.
  await runAudit({ ...base, model: half(), numerics: avx512, folder: f16Folder, resume: true, onWarning: () => {} });
  assert.deepEqual(manifestOf(f16Folder).engine.numericsAlso, [avx512]);
  assert.deepEqual(manifestOf(f16Folder).engine.kvCacheFidelity, figure);
});

test('a malformed figure is refused when the manifest is read, naming the field', async () => {
  const folder = tempDir();
  await runAudit({ ...base, model: half(), kvCacheFidelity: figure, folder, resume: false });
  const m = manifestOf(folder);
  fs.writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify({ ...m, engine: { ...m.engine, kvCacheFidelity: { ...figure, identicalSequences: -1 } } }));
  assert.throws(() => readManifest(folder), /kvCacheFidelity.*identicalSequences|identicalSequences.*kvCacheFidelity/);
});

test('shards whose figures agree merge with it; on one platform a differing figure is refused naming both', async () => {
  const root = tempDir();
  const shardRun = async (index: number, fidelity: KvCacheFidelity, numerics: NumericsPlatform, folder: string) => {
    const shard = { index, count: 2 };
    const settings = settingsFor();
    await runAudit({
      ...base,
      numerics,
      name: `t-shard-${index}-of-2`,
      questions: shardQuestions(dataset.questions, shard),
      settings: { ...settings, selection: { ...settings.selection, shard: shardSelection(dataset.questions, shard) } },
      model: half(),
      kvCacheFidelity: fidelity,
      folder,
      resume: false,
    });
    return folder;
  };
  const a = await shardRun(0, figure, avx2, path.join(root, 'a'));
  const b = await shardRun(1, figure, avx2, path.join(root, 'b'));
  const c = await shardRun(1, { ...figure, identicalSequences: 6 }, avx2, path.join(root, 'c'));
  const d = await shardRun(1, { ...figure, identicalSequences: 6 }, avx512, path.join(root, 'd'));
  const quiet: string[] = [];
  mergeShards([a, b], path.join(root, 'ab'), (w) => quiet.push(w));
  assert.deepEqual(quiet, []);
  assert.deepEqual(manifestOf(path.join(root, 'ab')).engine.kvCacheFidelity, figure);
  assert.throws(() => mergeShards([a, c], path.join(root, 'ac'), () => {}), (err: Error) => /KV cache fidelity \(engine\.kvCacheFidelity\)/.test(err.message) && err.message.includes(path.join(root, 'c')) && /"identicalSequences":6/.test(err.message));
  const warnings: string[] = [];
  mergeShards([a, d], path.join(root, 'ad'), (w) => warnings.push(w));
  assert.ok(warnings.some((w) => /KV cache fidelity/.test(w) && /kernels differ/.test(w)), warnings.join('\n'));
  assert.deepEqual(manifestOf(path.join(root, 'ad')).engine.kvCacheFidelity, figure);
});

test('report prints the figure with its n and no interval, or that it was not measured', () => {
  const line = kvCacheFidelityText({ version: 'test', kvCache: 'f16', kvCacheFidelity: figure });
  assert.equal(line, 'KV cache f16: 7/8 questions identical to the f32 cache (greedy, at most 64 new tokens), 98.0% of tokens (392/400) before the first divergence, |Δ log-prob| mean 1.2e-3, max 3.1e-3');
  assert.match(kvCacheFidelityText({ version: 'test', kvCache: 'f16' }) ?? '', /not measured/);
  assert.equal(kvCacheFidelityText({ version: 'test' }), undefined);
});

test('--kv-fidelity-questions: default 8, 0 skips, above 256 refused naming the flag', () => {
  assert.equal(kvFidelityQuestions(undefined), 8);
  assert.equal(kvFidelityQuestions(0), 0);
  assert.equal(kvFidelityQuestions(256), 256);
  assert.throws(() => kvFidelityQuestions(257), /--kv-fidelity-questions: expected a whole number from 0 \(do not measure\) to 256, got 257/);
});
