/**
 * The numerics a run was computed with (issue 43): the kernel families derived from a processor's
 * flags as onnxruntime's MLAS chooses them, recorded in the manifest, and said — never silently
 * mixed — when a run is resumed, merged or compared across machines whose kernels differ.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { mergeShards, shardQuestions, shardSelection } from '../../../src/audit/store/shards';
import { compareRuns } from '../../../src/audit/store/comparisonStore';
import { numericsDifferences, numericsFor, type NumericsPlatform, type RunManifest } from '../../../src/contract';
import { cpuFlags, kernelFamilies, numericsPlatform } from '../../../src/engine/platform/numericsPlatform';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

const flags = (text: string) => new Set(text.split(' '));

test('kernel families follow the flags that decide them (x64, arm64)', () => {
  const sapphireRapids = flags('sse4_1 avx avx2 fma avx512f avx512bw avx512dq avx512vl avx512_vnni amx_tile amx_int8');
  assert.deepEqual(kernelFamilies('x64', sapphireRapids), { f32Kernels: 'avx512f', int8Kernels: 'amx' });
  const cascadeLake = flags('sse4_1 avx avx2 fma avx512f avx512bw avx512dq avx512vl avx512_vnni');
  assert.deepEqual(kernelFamilies('x64', cascadeLake), { f32Kernels: 'avx512f', int8Kernels: 'avx512-vnni' });
  const skylakeX = flags('sse4_1 avx avx2 fma avx512f avx512bw avx512dq avx512vl');
  assert.deepEqual(kernelFamilies('x64', skylakeX), { f32Kernels: 'avx512f', int8Kernels: 'avx512-core' });
  assert.deepEqual(kernelFamilies('x64', flags('sse4_1 avx avx2 fma avx_vnni')), { f32Kernels: 'fma3', int8Kernels: 'avx-vnni' });
  assert.deepEqual(kernelFamilies('x64', flags('sse4_1 avx avx2 fma')), { f32Kernels: 'fma3', int8Kernels: 'avx2' });
  assert.deepEqual(kernelFamilies('x64', flags('sse4_1 avx')), { f32Kernels: 'avx', int8Kernels: 'sse' });
  assert.deepEqual(kernelFamilies('arm64', flags('fp asimd asimddp i8mm')), { f32Kernels: 'neon', int8Kernels: 'neon-i8mm' });
  assert.deepEqual(kernelFamilies('arm64', flags('fp asimd asimddp')), { f32Kernels: 'neon', int8Kernels: 'neon-dotprod' });
});

test("/proc/cpuinfo's flags line (x86) or Features line (Arm) is read; nothing else is", () => {
  assert.deepEqual([...cpuFlags('processor\t: 0\nmodel name\t: X\nflags\t\t: fpu avx2 fma\nbugs\t: spectre\n')], ['fpu', 'avx2', 'fma']);
  assert.deepEqual([...cpuFlags('processor\t: 0\nFeatures\t: fp asimd i8mm\n')], ['fp', 'asimd', 'i8mm']);
  assert.deepEqual([...cpuFlags('')], []);
});

test("this machine's platform names onnxruntime's version and only deciding flags", () => {
  const here = numericsPlatform();
  const ortVersion = (JSON.parse(fs.readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')) as { version: string }).version;
  assert.equal(here.onnxruntime, ortVersion);
  assert.equal(here.arch, process.arch);
  assert.deepEqual(here.features, [...here.features].sort());
  assert.ok(here.features.every((f) => !['fpu', 'vme', 'pse'].includes(f)), 'flags that do not move the kernels are left out');
});

const avx2: NumericsPlatform = { onnxruntime: '1.30.0', arch: 'x64', cpu: 'A', f32Kernels: 'fma3', int8Kernels: 'avx2', features: ['avx2', 'fma'] };
const avx512: NumericsPlatform = { ...avx2, cpu: 'B', f32Kernels: 'avx512f', int8Kernels: 'avx512-vnni', features: ['avx2', 'avx512_vnni', 'avx512f', 'fma'] };

test('two platforms differ only in what decides the numbers (the processor name alone does not)', () => {
  assert.deepEqual(numericsDifferences(avx2, { ...avx2, cpu: 'another name' }), []);
  assert.deepEqual(numericsDifferences(avx2, avx512), ['float32 kernels fma3 vs avx512f', 'int8 kernels avx2 vs avx512-vnni']);
  assert.deepEqual(numericsDifferences(avx2, { ...avx2, onnxruntime: '1.31.0' }), ['onnxruntime 1.30.0 vs 1.31.0']);
});

const dataset = smallDataset(6);
const common = { engineVersion: 'test', dataset, name: 't', inFlight: 2, modelInfo: { path: '/m', contentHash: 'h' } };
const manifestOf = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;

test('the manifest records the platform; a resume on other kernels is said and recorded, not refused', async () => {
  const folder = tempDir();
  const questions = dataset.questions;
  await runAudit({ ...common, numerics: avx2, questions: questions.slice(0, 3), settings: settingsFor(), model: fakeFor(dataset), folder, resume: false });
  assert.deepEqual(manifestOf(folder).engine.numerics, avx2);
  const same: string[] = [];
  await runAudit({ ...common, numerics: { ...avx2, cpu: 'renamed' }, questions: questions.slice(0, 4), settings: settingsFor(), model: fakeFor(dataset), folder, resume: true, onWarning: (w) => same.push(w) });
  assert.deepEqual(same.filter((w) => /kernels/.test(w)), [], 'the same kernels on another processor name: nothing to say');
  const warnings: string[] = [];
  const result = await runAudit({ ...common, numerics: avx512, questions, settings: settingsFor(), model: fakeFor(dataset), folder, resume: true, onWarning: (w) => warnings.push(w) });
  assert.equal(result.records.length, 6);
  assert.ok(warnings.some((w) => /float32 kernels fma3 vs avx512f/.test(w) && /may decode differently/.test(w)), warnings.join('\n'));
  const m = manifestOf(folder);
  assert.deepEqual(m.engine.numerics, avx2, 'the platform that started the run stays first');
  assert.deepEqual(m.engine.numericsAlso, [avx512]);
});

test('the int8 path is recorded for int8 runs only; an int8 run resumed on the other path is said to compute differently', async () => {
  const rowHere: NumericsPlatform = { ...avx2, int8Path: 'row' };
  assert.deepEqual(numericsFor(rowHere, 'f32'), avx2);
  assert.deepEqual(numericsFor(rowHere, undefined), avx2);
  assert.deepEqual(numericsFor(rowHere, 'int8'), rowHere);
  // An int8 run made before the path was recorded took the block path.
  assert.deepEqual(numericsDifferences(avx2, rowHere), ['int8 path block vs row']);
  assert.deepEqual(numericsDifferences({ ...avx2, int8Path: 'block' }, avx2), []);

  const f32Folder = tempDir();
  const quiet: string[] = [];
  await runAudit({ ...common, numerics: avx2, questions: dataset.questions.slice(0, 2), settings: settingsFor(), model: fakeFor(dataset), folder: f32Folder, resume: false });
  await runAudit({ ...common, numerics: rowHere, questions: dataset.questions.slice(0, 3), settings: settingsFor(), model: fakeFor(dataset), folder: f32Folder, resume: true, onWarning: (w) => quiet.push(w) });
  assert.deepEqual(manifestOf(f32Folder).engine.numerics, avx2, 'an f32 run records no int8 path');
  assert.deepEqual(quiet.filter((w) => /decode differently/.test(w)), [], 'f32 runs before and after the path existed compute alike');

  const int8 = (): ReturnType<typeof fakeFor> => Object.assign(fakeFor(dataset), { weights: 'int8' as const });
  const int8Folder = tempDir();
  await runAudit({ ...common, numerics: avx2, questions: dataset.questions.slice(0, 2), settings: settingsFor(), model: int8(), folder: int8Folder, resume: false });
  const warnings: string[] = [];
  await runAudit({ ...common, numerics: rowHere, questions: dataset.questions.slice(0, 3), settings: settingsFor(), model: int8(), folder: int8Folder, resume: true, onWarning: (w) => warnings.push(w) });
  assert.ok(warnings.some((w) => /int8 path block vs row/.test(w) && /may decode differently/.test(w)), warnings.join('\n'));
  assert.deepEqual(manifestOf(int8Folder).engine.numericsAlso, [rowHere]);
});

test('merge says which shard ran on other kernels and lists every platform; like shards merge silently', async () => {
  const root = tempDir();
  const shardRun = async (index: number, numerics: NumericsPlatform, folder: string) => {
    const shard = { index, count: 2 };
    const settings = settingsFor();
    await runAudit({
      ...common,
      numerics,
      name: `t-shard-${index}-of-2`,
      questions: shardQuestions(dataset.questions, shard),
      settings: { ...settings, selection: { ...settings.selection, shard: shardSelection(dataset.questions, shard) } },
      model: fakeFor(dataset),
      folder,
      resume: false,
    });
    return folder;
  };
  const a = await shardRun(0, avx2, path.join(root, 'a'));
  const b = await shardRun(1, avx2, path.join(root, 'b'));
  const c = await shardRun(1, avx512, path.join(root, 'c'));
  const quiet: string[] = [];
  mergeShards([a, b], path.join(root, 'ab'), (w) => quiet.push(w));
  assert.deepEqual(quiet, []);
  assert.equal(manifestOf(path.join(root, 'ab')).engine.numericsAlso, undefined);
  const warnings: string[] = [];
  mergeShards([a, c], path.join(root, 'ac'), (w) => warnings.push(w));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /shard 1\/2 \(.*c\): float32 kernels fma3 vs avx512f, int8 kernels avx2 vs avx512-vnni/);
  const merged = manifestOf(path.join(root, 'ac'));
  assert.deepEqual(merged.engine.numerics, avx2);
  assert.deepEqual(merged.engine.numericsAlso, [avx512]);
  // The records are the machines' own: byte for byte the shards' lines.
  const lines = (f: string) => fs.readFileSync(path.join(f, 'records.jsonl'), 'utf8').trim().split('\n');
  assert.deepEqual([...lines(path.join(root, 'ac'))].sort(), [...lines(a), ...lines(c)].sort());
});

test('compare says when base and tuned were computed with different kernels', async () => {
  const base = tempDir();
  const tuned = tempDir();
  const other = tempDir();
  await runAudit({ ...common, numerics: avx2, questions: dataset.questions, settings: settingsFor(), model: fakeFor(dataset), folder: base, resume: false });
  await runAudit({ ...common, numerics: avx2, modelInfo: { path: '/t', contentHash: 't' }, questions: dataset.questions, settings: settingsFor(), model: fakeFor(dataset), folder: tuned, resume: false });
  await runAudit({ ...common, numerics: avx512, modelInfo: { path: '/t', contentHash: 't' }, questions: dataset.questions, settings: settingsFor(), model: fakeFor(dataset), folder: other, resume: false });
  const quiet: string[] = [];
  compareRuns(base, tuned, (w) => quiet.push(w));
  assert.deepEqual(quiet.filter((w) => /kernels/.test(w)), []);
  const warnings: string[] = [];
  compareRuns(base, other, (w) => warnings.push(w));
  assert.ok(warnings.some((w) => /different kernels \(float32 kernels fma3 vs avx512f/.test(w)), warnings.join('\n'));
});
