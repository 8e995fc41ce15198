import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { InputError } from '../../../src/common/errors';
import { openWeights } from '../../../src/engine/checkpoint/safetensors';
import { resolveWeightNames } from '../../../src/engine/checkpoint/weights';
import { bf16Bits, bf16ToNumber, f16Bits, f16ToNumber } from '../../support/bf16';
import { SMALL_SPECS, buildModelTensors, writeRandomModel, writeWeights } from '../../support/modelFolder';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-weights-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectInputError(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

function load(folder: string) {
  const config = readModelConfig(folder);
  const store = openWeights(folder);
  return { config, store };
}

test('every architecture: names resolve, shapes check, and values read back as written', () => {
  for (const [name, spec] of Object.entries(SMALL_SPECS)) {
    const sub = path.join(dir, name);
    writeRandomModel(sub, spec);
    const { config, store } = load(sub);
    try {
      const names = resolveWeightNames(store, config, sub);
      assert.equal(names.blocks.length, spec.numBlocks, name);
      assert.equal(names.embed, 'model.embed_tokens.weight');
      assert.equal(names.finalNorm, 'model.norm.weight');
      assert.equal(names.lmHead, spec.tieWordEmbeddings ? names.embed : 'lm_head.weight', name);
      const b = names.blocks[1];
      assert.equal(b.q, 'model.layers.1.self_attn.q_proj.weight');
      assert.equal(b.down, 'model.layers.1.mlp.down_proj.weight');
      assert.equal(b.qBias !== undefined, spec.architecture === 'Qwen2ForCausalLM', name);
      assert.equal(b.vBias !== undefined, spec.architecture === 'Qwen2ForCausalLM', name);
      assert.equal(b.qNorm !== undefined, spec.architecture === 'Qwen3ForCausalLM', name);
      assert.equal(b.kNorm !== undefined, spec.architecture === 'Qwen3ForCausalLM', name);

      // Every named tensor decodes to exactly the values the writer stored.
      const written = new Map(buildModelTensors(spec).map((t) => [t.name, t.data]));
      const round = (v: number) =>
        spec.dtype === 'F32' ? Math.fround(v) : spec.dtype === 'F16' ? f16ToNumber(f16Bits(v)) : bf16ToNumber(bf16Bits(v));
      const used = [names.embed, names.finalNorm, names.lmHead, ...names.blocks.flatMap((blk) => Object.values(blk) as string[])];
      assert.equal(new Set(used).size, written.size, `${name}: every tensor in the folder is used`);
      for (const tensor of used) {
        const data = written.get(tensor);
        assert.ok(data, `${name}: ${tensor} was written`);
        assert.deepEqual(store.read(tensor), Float32Array.from(data, round), `${name}: ${tensor}`);
      }
    } finally {
      store.close();
    }
  }
});

test('bad input: a tensor shape not matching the config names the tensor, its shape and the expected one', () => {
  writeRandomModel(dir, SMALL_SPECS.llama);
  const file = path.join(dir, 'config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...config, intermediate_size: 100 }));
  const loaded = load(dir);
  expectInputError(
    () => resolveWeightNames(loaded.store, loaded.config, dir),
    /model\.safetensors: tensor "model\.layers\.0\.mlp\.gate_proj\.weight" has shape \[128, 64\]/,
    /config\.json \(intermediate_size 100, hidden_size 64\) expects \[100, 64\]/,
  );
  loaded.store.close();
});

test('bad input: GQA head count mismatch shows up on k_proj', () => {
  writeRandomModel(dir, SMALL_SPECS.qwen2);
  const file = path.join(dir, 'config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...config, num_key_value_heads: 4 }));
  const loaded = load(dir);
  expectInputError(
    () => resolveWeightNames(loaded.store, loaded.config, dir),
    /tensor "model\.layers\.0\.self_attn\.k_proj\.weight" has shape \[24, 48\]/,
    /num_key_value_heads 4 × head_dim 12, hidden_size 48\) expects \[48, 48\]/,
  );
  loaded.store.close();
});

test('bad input: more blocks in the config than in the weights', () => {
  writeRandomModel(dir, SMALL_SPECS.qwen3);
  const file = path.join(dir, 'config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...config, num_hidden_layers: 5 }));
  const loaded = load(dir);
  expectInputError(
    () => resolveWeightNames(loaded.store, loaded.config, dir),
    /config\.json has num_hidden_layers 5, but the safetensors files hold the tensors of 4 blocks \(none for model\.layers\.4\); expected a config\.json that matches the weights/,
  );
  loaded.store.close();
});

test('bad input: num_hidden_layers 1e6 is refused before one expectation per tensor is built (issue 39, weak case)', () => {
  writeRandomModel(dir, SMALL_SPECS.qwen3);
  const file = path.join(dir, 'config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...config, num_hidden_layers: 1e6 }));
  const loaded = load(dir);
  const started = performance.now();
  // Old: 17 s and 2 GB building the expectations of a million blocks before naming the first missing tensor.
  expectInputError(() => resolveWeightNames(loaded.store, loaded.config, dir), /has num_hidden_layers 1000000, but the safetensors files hold the tensors of 4 blocks \(none for model\.layers\.4\)/);
  const ms = performance.now() - started;
  assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
  loaded.store.close();
});

test('bad input: untied config without lm_head.weight', () => {
  writeRandomModel(dir, SMALL_SPECS.qwen2); // tied: no lm_head.weight written
  const file = path.join(dir, 'config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...config, tie_word_embeddings: false }));
  const loaded = load(dir);
  expectInputError(() => resolveWeightNames(loaded.store, loaded.config, dir), /"lm_head\.weight" is missing/, /tie_word_embeddings false/);
  loaded.store.close();
});

test('bad input: Qwen3 q_norm with the wrong size', () => {
  const spec = SMALL_SPECS.qwen3;
  writeRandomModel(dir, spec);
  const tensors = buildModelTensors(spec).map((t) =>
    t.name === 'model.layers.2.self_attn.q_norm.weight' ? { ...t, shape: [12], data: t.data.subarray(0, 12) } : t,
  );
  fs.rmSync(path.join(dir, 'model.safetensors'));
  writeWeights(dir, tensors, false);
  const loaded = load(dir);
  expectInputError(
    () => resolveWeightNames(loaded.store, loaded.config, dir),
    /"model\.layers\.2\.self_attn\.q_norm\.weight" has shape \[12\]/,
    /\(head_dim 24\) expects \[24\]/,
  );
  loaded.store.close();
});

test('bad input: weights (or a config) that are symbolic links to themselves are named as loops, not "no weights found"', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-links-'));
  try {
    const dir = path.join(root, 'single');
    writeRandomModel(dir, SMALL_SPECS.llama);
    const file = path.join(dir, 'model.safetensors');
    fs.rmSync(file);
    fs.symlinkSync('model.safetensors', file);
    expectInputError(() => load(dir), new RegExp(`^${escapeRegExp(file)}: a symbolic link loop \\(it points back to itself, directly or through other links: model\\.safetensors\\); expected the weights file$`));

    const sharded = path.join(root, 'sharded');
    const written = writeRandomModel(sharded, { ...SMALL_SPECS.llama, sharded: true });
    const a = path.join(sharded, written.weightFiles[1]);
    fs.rmSync(a);
    fs.symlinkSync('loop-b', a);
    fs.symlinkSync(written.weightFiles[1], path.join(sharded, 'loop-b'));
    expectInputError(() => load(sharded), new RegExp(`^${escapeRegExp(a)}: a symbolic link loop .*: loop-b\\); expected the weights file$`));
    fs.rmSync(path.join(sharded, 'loop-b'));
    expectInputError(() => load(sharded), new RegExp(`^${escapeRegExp(a)}: a symbolic link to loop-b, which does not exist; expected the weights file$`));

    const config = path.join(dir, 'config.json');
    fs.rmSync(config);
    fs.symlinkSync('config.json', config);
    expectInputError(() => readModelConfig(dir), new RegExp(`^${escapeRegExp(config)}: a symbolic link loop`));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
