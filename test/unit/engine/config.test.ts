import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ModelConfig, SUPPORTED_ARCHITECTURES, readModelConfig, ropeInverseFrequencies } from '../../../src/engine/checkpoint/config';
import { InputError } from '../../../src/common/errors';
import { SMALL_SPECS, headDimOf, writeRandomModel } from '../../support/modelFolder';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-config-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeConfig(config: Record<string, unknown>, generation?: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  if (generation) fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify(generation));
}

function expectInputError(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

/** The published shape of Qwen2.5-0.5B-Instruct's config.json. */
const QWEN25_05B = {
  architectures: ['Qwen2ForCausalLM'],
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  hidden_act: 'silu',
  hidden_size: 896,
  initializer_range: 0.02,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  max_window_layers: 21,
  model_type: 'qwen2',
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
};

/** The published shape of Llama-3.1-8B-Instruct's config.json. */
const LLAMA31_8B = {
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  bos_token_id: 128000,
  eos_token_id: [128001, 128008, 128009],
  hidden_act: 'silu',
  hidden_size: 4096,
  intermediate_size: 14336,
  max_position_embeddings: 131072,
  mlp_bias: false,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-5,
  rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0,
  tie_word_embeddings: false,
  vocab_size: 128256,
};

test('reads every small test model (all four architectures)', () => {
  for (const [name, spec] of Object.entries(SMALL_SPECS)) {
    const sub = path.join(dir, name);
    const written = writeRandomModel(sub, spec);
    const c = readModelConfig(sub);
    assert.equal(c.architecture, spec.architecture, name);
    assert.equal(c.numBlocks, spec.numBlocks, name);
    assert.equal(c.hiddenSize, spec.hiddenSize, name);
    assert.equal(c.intermediateSize, spec.intermediateSize, name);
    assert.equal(c.numHeads, spec.numHeads, name);
    assert.equal(c.numKvHeads, spec.numKvHeads, name);
    assert.equal(c.headDim, headDimOf(spec), name);
    assert.equal(c.vocabSize, spec.vocabSize, name);
    assert.equal(c.tieWordEmbeddings, spec.tieWordEmbeddings, name);
    assert.equal(c.ropeTheta, spec.ropeTheta ?? 10000, name);
    assert.deepEqual(c.ropeScaling, spec.ropeScaling, name);
    assert.equal(c.qkvBias, spec.architecture === 'Qwen2ForCausalLM', name);
    assert.equal(c.qkNorm, spec.architecture === 'Qwen3ForCausalLM', name);
    assert.equal(c.bosTokenId, written.bosId ?? undefined, name);
    assert.equal(c.rmsNormEps, written.config.rms_norm_eps, name);
    // eos: config.json's id plus generation_config.json's ids, no duplicates.
    const expectedEos = [written.config.eos_token_id as number, ...written.eosIds].filter((v, i, a) => a.indexOf(v) === i);
    assert.deepEqual([...c.eosTokenIds].sort(), expectedEos.sort(), name);
  }
});

test('Qwen2.5-0.5B config: GQA 14/2, tied embeddings, bias, sliding window off', () => {
  writeConfig(QWEN25_05B, { bos_token_id: 151643, eos_token_id: [151645, 151643] });
  const c = readModelConfig(dir);
  const expected: ModelConfig = {
    architecture: 'Qwen2ForCausalLM',
    numBlocks: 24,
    hiddenSize: 896,
    intermediateSize: 4864,
    numHeads: 14,
    numKvHeads: 2,
    headDim: 64,
    vocabSize: 151936,
    rmsNormEps: 1e-6,
    ropeTheta: 1000000,
    maxPositionEmbeddings: 32768,
    tieWordEmbeddings: true,
    qkvBias: true,
    qkNorm: false,
    bosTokenId: 151643,
    eosTokenIds: [151645, 151643],
  };
  assert.deepEqual(c, expected);
});

test('Llama-3.1-8B config: llama3 rope scaling and a list of eos ids', () => {
  writeConfig(LLAMA31_8B, { eos_token_id: [128001, 128008, 128009], bos_token_id: 128000 });
  const c = readModelConfig(dir);
  assert.deepEqual(c.ropeScaling, { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 });
  assert.deepEqual(c.eosTokenIds, [128001, 128008, 128009]);
  assert.equal(c.headDim, 128);
  assert.equal(c.numKvHeads, 8);
  assert.equal(c.tieWordEmbeddings, false);
  assert.equal(c.rmsNormEps, 1e-5);
});

test('Qwen3 explicit head_dim differs from hidden_size / heads', () => {
  writeConfig({
    architectures: ['Qwen3ForCausalLM'],
    hidden_size: 1024,
    head_dim: 128,
    num_attention_heads: 16,
    num_key_value_heads: 8,
    intermediate_size: 3072,
    num_hidden_layers: 28,
    vocab_size: 151936,
    eos_token_id: 151645,
    tie_word_embeddings: true,
    rope_theta: 1000000,
    attention_bias: false,
  });
  const c = readModelConfig(dir);
  assert.equal(c.headDim, 128);
  assert.equal(c.qkNorm, true);
  assert.equal(c.qkvBias, false);
});

test('Mistral sliding_window is recorded; null means none', () => {
  const base = {
    architectures: ['MistralForCausalLM'],
    hidden_size: 64,
    num_attention_heads: 4,
    num_key_value_heads: 1,
    intermediate_size: 128,
    num_hidden_layers: 2,
    vocab_size: 100,
  };
  writeConfig({ ...base, sliding_window: 4096 });
  assert.equal(readModelConfig(dir).slidingWindow, 4096);
  writeConfig({ ...base, sliding_window: null });
  assert.equal(readModelConfig(dir).slidingWindow, undefined);
});

test('defaults: missing num_key_value_heads means MHA; missing rope_theta / eps / tie use transformers defaults', () => {
  writeConfig({
    architectures: ['LlamaForCausalLM'],
    hidden_size: 64,
    num_attention_heads: 4,
    intermediate_size: 128,
    num_hidden_layers: 2,
    vocab_size: 100,
  });
  const c = readModelConfig(dir);
  assert.equal(c.numKvHeads, 4);
  assert.equal(c.ropeTheta, 10000);
  assert.equal(c.rmsNormEps, 1e-6);
  assert.equal(c.tieWordEmbeddings, false);
  assert.equal(c.maxPositionEmbeddings, 2048);
  assert.deepEqual(c.eosTokenIds, []);
  assert.equal(c.bosTokenId, undefined);
  assert.equal(c.ropeScaling, undefined);
});

test('transformers v5 rope_parameters are read like rope_theta / rope_scaling', () => {
  writeConfig({
    ...LLAMA31_8B,
    rope_theta: undefined,
    rope_scaling: undefined,
    rope_parameters: {
      rope_type: 'llama3',
      rope_theta: 500000,
      factor: 32,
      low_freq_factor: 1,
      high_freq_factor: 4,
      original_max_position_embeddings: 8192,
    },
  });
  const c = readModelConfig(dir);
  assert.equal(c.ropeTheta, 500000);
  assert.deepEqual(c.ropeScaling, { factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 });
});

test('rope inverse frequencies without scaling: theta^(-2i/d)', () => {
  writeConfig({ ...QWEN25_05B });
  const c = readModelConfig(dir);
  const inv = ropeInverseFrequencies(c);
  assert.equal(inv.length, 32);
  assert.equal(inv[0], 1);
  for (let i = 0; i < 32; i++) {
    const expected = Math.exp((-2 * i * Math.log(1e6)) / 64);
    assert.ok(Math.abs(inv[i] - expected) <= 1e-15 * Math.max(1, expected), `i=${i}: ${inv[i]} vs ${expected}`);
  }
});

test('rope inverse frequencies with Llama-3 scaling: high band kept, low band / factor, middle interpolated', () => {
  writeConfig(LLAMA31_8B);
  const c = readModelConfig(dir);
  const inv = ropeInverseFrequencies(c);
  assert.equal(inv.length, 64);
  const plain = (i: number) => Math.pow(500000, -i / 64);
  // Wavelength 2π/θ_i against 8192/4 = 2048 and 8192/1 = 8192: i <= 28 short (kept), i >= 35 long (÷ 8).
  for (let i = 0; i <= 28; i++) assert.ok(Math.abs(inv[i] / plain(i) - 1) < 1e-12, `kept i=${i}`);
  for (let i = 35; i < 64; i++) assert.ok(Math.abs(inv[i] / (plain(i) / 8) - 1) < 1e-12, `scaled i=${i}`);
  for (let i = 29; i <= 34; i++) {
    const wavelen = (2 * Math.PI) / plain(i);
    assert.ok(wavelen >= 2048 && wavelen <= 8192, `i=${i} is in the middle band`);
    const t = (8192 / wavelen - 1) / (4 - 1); // 1 at the high-frequency edge, 0 at the low one
    const expected = plain(i) / 8 + t * (plain(i) - plain(i) / 8);
    assert.ok(Math.abs(inv[i] / expected - 1) < 1e-12, `interpolated i=${i}`);
    assert.ok(inv[i] < plain(i) && inv[i] > plain(i) / 8);
  }
  for (let i = 1; i < 64; i++) assert.ok(inv[i] < inv[i - 1], 'frequencies stay decreasing');
});

// ---- Bad input

test('bad input: missing config.json', () => {
  expectInputError(() => readModelConfig(dir), /config\.json: not found/, /expected a Hugging Face config\.json/);
});

test('bad input: config.json is not JSON', () => {
  fs.writeFileSync(path.join(dir, 'config.json'), '{"architectures": ["LlamaForCausalLM"],');
  expectInputError(() => readModelConfig(dir), /config\.json: not valid JSON/);
});

test('bad input: config.json is not an object', () => {
  fs.writeFileSync(path.join(dir, 'config.json'), '[]');
  expectInputError(() => readModelConfig(dir), /config\.json: expected a JSON object/);
});

test('bad input: unsupported architecture names the supported ones', () => {
  writeConfig({ ...QWEN25_05B, architectures: ['GPT2LMHeadModel'] });
  expectInputError(
    () => readModelConfig(dir),
    /config\.json/,
    /architecture GPT2LMHeadModel is not supported/,
    new RegExp(SUPPORTED_ARCHITECTURES.join(', ')),
  );
});

test('bad input: missing architectures field', () => {
  writeConfig({ ...QWEN25_05B, architectures: undefined });
  expectInputError(() => readModelConfig(dir), /config\.json: field architectures missing/, /LlamaForCausalLM/);
});

test('bad input: missing or malformed numeric fields are named', () => {
  writeConfig({ ...QWEN25_05B, hidden_size: undefined });
  expectInputError(() => readModelConfig(dir), /config\.json: field hidden_size missing; expected a positive integer/);
  writeConfig({ ...QWEN25_05B, num_hidden_layers: '24' });
  expectInputError(() => readModelConfig(dir), /field num_hidden_layers is "24"; expected a positive integer/);
  writeConfig({ ...QWEN25_05B, rms_norm_eps: -1 });
  expectInputError(() => readModelConfig(dir), /field rms_norm_eps is -1; expected a positive number/);
  writeConfig({ ...QWEN25_05B, num_key_value_heads: 3 });
  expectInputError(() => readModelConfig(dir), /field num_key_value_heads is 3; expected a divisor of num_attention_heads \(14\)/);
  writeConfig({ ...QWEN25_05B, eos_token_id: 'x' });
  expectInputError(() => readModelConfig(dir), /field eos_token_id is "x"; expected a token id/);
});

test('bad input: unsupported rope scaling type', () => {
  writeConfig({ ...LLAMA31_8B, rope_scaling: { rope_type: 'yarn', factor: 4 } });
  expectInputError(() => readModelConfig(dir), /rope_scaling\.rope_type "yarn" is not supported/, /llama3/);
});

test('bad input: llama3 rope scaling with a missing field', () => {
  writeConfig({ ...LLAMA31_8B, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4 } });
  expectInputError(() => readModelConfig(dir), /field rope_scaling\.original_max_position_embeddings missing/);
});

test('bad input: features the engine does not compute are refused, not ignored', () => {
  writeConfig({ ...LLAMA31_8B, attention_bias: true });
  expectInputError(() => readModelConfig(dir), /field attention_bias is true/);
  writeConfig({ ...LLAMA31_8B, hidden_act: 'gelu' });
  expectInputError(() => readModelConfig(dir), /field hidden_act is "gelu"; expected "silu"/);
  writeConfig({ ...QWEN25_05B, use_sliding_window: true });
  expectInputError(() => readModelConfig(dir), /field use_sliding_window is true/);
});

test('bad input: malformed generation_config.json is named', () => {
  writeConfig(QWEN25_05B);
  fs.writeFileSync(path.join(dir, 'generation_config.json'), '{oops');
  expectInputError(() => readModelConfig(dir), /generation_config\.json: not valid JSON/);
});

test('bad input: eos id outside the vocabulary', () => {
  writeConfig({ ...QWEN25_05B, eos_token_id: 200000 });
  expectInputError(() => readModelConfig(dir), /token id 200000 .* outside the vocabulary; expected below vocab_size 151936/);
});
