/**
 * The graph cache: the first load builds, a second load of the same weights builds nothing, and a
 * model folder that fails validation leaves nothing in the cache.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SMALL_SPECS, buildModelTensors, writeRandomModel, writeWeights } from '../../support/modelFolder';
import { InputError, loadModel } from '../../../src/engine';
import { testRoot } from './engineTestModels';
import { holdLockInChild, release } from '../../support/lockHolder';

describe('graph cache', () => {
  it('builds once, reuses on the next load, leaves no temporary folder', async () => {
    const dir = path.join(testRoot, 'cache-model');
    writeRandomModel(dir, SMALL_SPECS.qwen3);
    const cacheDir = path.join(testRoot, 'cache-a');
    const first = await loadModel(dir, { cacheDir, threads: 1 });
    const logits = await first.forward([1, 2, 3]);
    await first.dispose();
    assert.equal(first.graphs.built, true);
    const stamp = fs.statSync(path.join(first.graphs.dir, 'block_0.onnx')).mtimeMs;
    const second = await loadModel(dir, { cacheDir, threads: 1 });
    assert.equal(second.graphs.built, false);
    assert.equal(second.graphs.dir, first.graphs.dir);
    assert.equal(fs.statSync(path.join(second.graphs.dir, 'block_0.onnx')).mtimeMs, stamp);
    assert.deepEqual(await second.forward([1, 2, 3]), logits);
    await second.dispose();
    assert.deepEqual(fs.readdirSync(cacheDir), [path.basename(first.graphs.dir)]);
  });

  it('rebuilds a cache folder whose manifest is missing (an interrupted or damaged build)', async () => {
    const dir = path.join(testRoot, 'cache-model-2');
    writeRandomModel(dir, SMALL_SPECS.llama);
    const cacheDir = path.join(testRoot, 'cache-b');
    const first = await loadModel(dir, { cacheDir, threads: 1 });
    await first.dispose();
    fs.rmSync(path.join(first.graphs.dir, 'manifest.json'));
    const again = await loadModel(dir, { cacheDir, threads: 1 });
    assert.equal(again.graphs.built, true);
    await again.dispose();
  });

  it('writes nothing to the cache for a model that fails to load', async () => {
    const dir = path.join(testRoot, 'bad-model');
    writeRandomModel(dir, SMALL_SPECS.llama);
    const file = path.join(dir, 'model.safetensors');
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const cacheDir = path.join(testRoot, 'cache-c');
    await assert.rejects(loadModel(dir, { cacheDir, threads: 1 }), InputError);
    assert.ok(!fs.existsSync(cacheDir) || fs.readdirSync(cacheDir).length === 0);

    const dir2 = path.join(testRoot, 'bad-config');
    writeRandomModel(dir2, SMALL_SPECS.qwen2);
    fs.writeFileSync(path.join(dir2, 'config.json'), '{"architectures": ["GPT2LMHeadModel"]}');
    await assert.rejects(loadModel(dir2, { cacheDir, threads: 1 }), InputError);
    assert.ok(!fs.existsSync(cacheDir) || fs.readdirSync(cacheDir).length === 0);
  });

  it('verifies every entry against the sizes and hashes recorded at build, and rebuilds a bad one saying so', async () => {
    const dir = path.join(testRoot, 'cache-model-verify');
    writeRandomModel(dir, SMALL_SPECS.llama);
    const cacheDir = path.join(testRoot, 'cache-verify');
    const first = await loadModel(dir, { cacheDir, threads: 1 });
    const logits = await first.forward([1, 2, 3]);
    await first.dispose();
    const manifest = JSON.parse(fs.readFileSync(path.join(first.graphs.dir, 'manifest.json'), 'utf8')) as { files: Record<string, { bytes: number; sha256: string }> };
    assert.ok(manifest.files['block_0.bin'].bytes > 0 && /^[0-9a-f]{64}$/.test(manifest.files['block_0.bin'].sha256));

    const damage: [string, (file: string) => void, RegExp][] = [
      ['block_0.bin', (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2)), /block_0\.bin has \d+ bytes, \d+ were written/],
      ['block_1.onnx', (f) => { const b = fs.readFileSync(f); b[b.length >> 1] ^= 0xff; fs.writeFileSync(f, b); }, /block_1\.onnx does not match the sha256 recorded when it was built/],
      ['head.onnx', (f) => fs.rmSync(f), /head\.onnx is missing/],
    ];
    for (const [name, hurt, expected] of damage) {
      hurt(path.join(first.graphs.dir, name));
      const warnings: string[] = [];
      const again = await loadModel(dir, { cacheDir, threads: 1, onWarning: (m) => warnings.push(m) });
      assert.equal(again.graphs.built, true, name);
      assert.match(again.graphs.rebuilt ?? '', expected);
      assert.equal(warnings.length, 1);
      assert.ok(warnings[0].startsWith(`graph cache entry ${first.graphs.dir} is damaged (`), warnings[0]);
      assert.match(warnings[0], /; rebuilding it$/);
      assert.deepEqual(await again.forward([1, 2, 3]), logits, `${name}: the rebuilt entry computes the same logits`);
      await again.dispose();
    }
    assert.deepEqual(fs.readdirSync(cacheDir), [path.basename(first.graphs.dir)], 'no temporary folder or lock left behind');
  });

  it('waits for another process building the same entry, naming it', async () => {
    const dir = path.join(testRoot, 'cache-model-wait');
    writeRandomModel(dir, SMALL_SPECS.qwen2);
    const cacheDir = path.join(testRoot, 'cache-wait');
    const first = await loadModel(dir, { cacheDir, threads: 1 });
    await first.dispose();
    const key = path.basename(first.graphs.dir);
    fs.rmSync(first.graphs.dir, { recursive: true });
    const holder = await holdLockInChild(cacheDir, `.building-${key}.lock`);
    const warnings: string[] = [];
    // The holder lets go once the waiter has said it waits (a fixed hold once ran out first on a busy machine).
    const second = await loadModel(dir, { cacheDir, threads: 1, onWarning: (m) => { warnings.push(m); release(holder); } });
    await second.dispose();
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], new RegExp(`is being built by pid ${holder.pid} on host .*\\(test holder\\); waiting for it to finish`));
    assert.equal(second.graphs.built, true);
    assert.deepEqual(fs.readdirSync(cacheDir), [key]);
  });

  it('refuses NaN or infinite weights at load, naming the tensor, its block and file; nothing is cached', async () => {
    const cacheDir = path.join(testRoot, 'cache-nonfinite');
    const cases: [string, string, number, string][] = [
      ['model.layers.2.mlp.up_proj.weight', 'BF16', Number.NaN, ' (block 2) holds NaN at element 5 (2 non-finite of '],
      ['model.layers.0.self_attn.q_proj.weight', 'F32', Number.POSITIVE_INFINITY, ' (block 0) holds Infinity at element 5 (2 non-finite of '],
      ['model.norm.weight', 'F16', Number.NEGATIVE_INFINITY, ' holds -Infinity at element 5 (2 non-finite of '],
    ];
    for (const [name, dtype, value, expected] of cases) {
      const spec = { ...(dtype === 'BF16' ? SMALL_SPECS.qwen2 : SMALL_SPECS.llama), dtype: dtype as 'F32' | 'F16' | 'BF16' };
      const dir = path.join(testRoot, `nonfinite-${dtype}`);
      writeRandomModel(dir, spec);
      const tensors = buildModelTensors(spec);
      const t = tensors.find((x) => x.name === name)!;
      t.data[5] = value;
      t.data[t.data.length - 1] = value;
      writeWeights(dir, tensors, false);
      await assert.rejects(loadModel(dir, { cacheDir, threads: 1 }), (err: Error) => {
        assert.ok(err instanceof InputError, String(err));
        assert.ok(err.message.startsWith(`${path.join(dir, 'model.safetensors')}: tensor "${name}"${expected}`), err.message);
        assert.match(err.message, /the checkpoint is damaged — expected finite weights$/);
        return true;
      });
    }
    assert.deepEqual(fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [], [], 'no entry, temporary folder or lock left');
  });
});
