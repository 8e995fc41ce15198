/**
 * The graph cache: the first load builds, a second load of the same weights builds nothing, and a
 * model folder that fails validation leaves nothing in the cache.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';
import { InputError, loadModel } from '../../../src/engine';
import { testRoot } from './engineTestModels';

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
});
