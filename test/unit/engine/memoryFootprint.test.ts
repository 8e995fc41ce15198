/**
 * The weights the engine holds once loaded, from the config, against hand computations on small
 * configs: f32 and int8 (one byte per weight, rows padded to blocks of 32, a float32 scale a block),
 * with and without q/k/v bias and q/k norms; the embedding table, read from disk, is not counted;
 * and against the weights the built graphs really reference, on the small test models.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { onnx } from 'onnx-proto';
import { loadModel, loadedWeightBytes, readModelConfig, type WeightPrecision } from '../../../src/engine';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

// 2 blocks, hidden 16, MLP 40, 4 heads and 2 KV heads of 4, a vocabulary of 50, Qwen2's q/k/v bias.
const small = { numBlocks: 2, hiddenSize: 16, intermediateSize: 40, numHeads: 4, numKvHeads: 2, headDim: 4, vocabSize: 50, qkvBias: true, qkNorm: false };

test('f32: 4 bytes per weight of the blocks and the head', () => {
  // A block: norms 2 × 16 × 4 = 128; q/k/v (16 + 2 × 8 = 32 outputs) × 16 × 4 = 2,048 and its bias 32 × 4 = 128;
  // o 16 × 16 × 4 = 1,024; gate/up 80 × 16 × 4 = 5,120; down 16 × 40 × 4 = 2,560: 11,008.
  // The head: final norm 64 + lm_head 50 × 16 × 4 = 3,200. 2 × 11,008 + 3,264 = 25,280.
  assert.equal(loadedWeightBytes(small, 'f32'), 25280);
  // Qwen3's q/k norms add 2 × 4 × 4 = 32 a block; no bias takes 128 off a block.
  assert.equal(loadedWeightBytes({ ...small, qkNorm: true }, 'f32'), 25280 + 2 * 32);
  assert.equal(loadedWeightBytes({ ...small, qkvBias: false }, 'f32'), 25280 - 2 * 128);
});

test('int8: a byte per weight in blocks of 32 inputs, plus a float32 scale per block', () => {
  // Each output row of K inputs takes ceil(K / 32) blocks of 32 + 4 bytes.
  // q/k/v 32 × 1 × 36 = 1,152; o 16 × 1 × 36 = 576; gate/up 80 × 1 × 36 = 2,880; down 16 × 2 × 36 = 1,152 (40 inputs: two blocks);
  // norms and bias stay f32 (128 + 128): a block is 6,016. The head: 64 + 50 × 1 × 36 = 1,864. 2 × 6,016 + 1,864 = 13,896.
  assert.equal(loadedWeightBytes(small, 'int8', 'block'), 13896);
});

test('int8 on the row path: a byte per weight, a float32 scale per output, one zero-point byte per projection', () => {
  // q/k/v 32 × 16 + 32 × 4 + 1 = 641; o 16 × 16 + 64 + 1 = 321; gate/up 80 × 16 + 320 + 1 = 1,601;
  // down 16 × 40 + 64 + 1 = 705; norms and bias 256: a block is 3,524. The head: 64 + 50 × 16 + 200 + 1 = 1,065.
  assert.equal(loadedWeightBytes(small, 'int8', 'row'), 2 * 3524 + 1065);
});

test('the demo model: 8 blocks of hidden 96, MLP 256, 4 heads and 2 KV heads of 24, 354 tokens, untied', () => {
  const demo = { numBlocks: 8, hiddenSize: 96, intermediateSize: 256, numHeads: 4, numKvHeads: 2, headDim: 24, vocabSize: 354, qkvBias: false, qkNorm: false };
  // A block: 768 + 192 × 96 × 4 + 96 × 96 × 4 + 512 × 96 × 4 + 96 × 256 × 4 = 406,272; head 384 + 354 × 96 × 4 = 136,320.
  assert.equal(loadedWeightBytes(demo, 'f32'), 8 * 406272 + 136320);
});

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-weight-bytes-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The bytes of the external-data weights the built graphs (blocks and head) reference, read back from their .onnx files. */
function graphWeightBytes(cacheDir: string): number {
  let bytes = 0;
  for (const file of fs.readdirSync(cacheDir, { recursive: true }) as string[]) {
    if (!file.endsWith('.onnx')) continue;
    const graph = onnx.ModelProto.decode(fs.readFileSync(path.join(cacheDir, file))).graph;
    for (const t of graph?.initializer ?? []) bytes += Number(t.externalData?.find((e) => e.key === 'length')?.value ?? 0);
  }
  return bytes;
}

test('the figure equals the weights the engine\'s graphs reference, f32 and int8, on the small test models', async () => {
  for (const name of ['llama', 'qwen2', 'qwen3'] as const) {
    const dir = path.join(root, name);
    writeRandomModel(dir, SMALL_SPECS[name]);
    for (const weights of ['f32', 'int8'] as WeightPrecision[]) {
      const cacheDir = path.join(root, `cache-${name}-${weights}`);
      const model = await loadModel(dir, { cacheDir, threads: 1, weights });
      await model.dispose();
      assert.equal(loadedWeightBytes(readModelConfig(dir), weights), graphWeightBytes(cacheDir), `${name} ${weights}`);
    }
  }
});
