/**
 * Writes small random-weight Hugging Face model folders for tests: config.json, safetensors
 * (single or sharded with model.safetensors.index.json), tokenizer.json, tokenizer_config.json,
 * generation_config.json. Weights come from a seeded PRNG, one stream per tensor name, so the
 * same spec always gives the same values whatever the sharding or dtype.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SeededRandom, seedFor } from './seededRandom';
import { LazyTensor, StoredDtype, TensorToWrite, bytesPerElement, writeLazySafetensors } from './safetensorsWriter';
import { TokenizerFamily, buildTokenizerFiles } from './tokenizerFiles';

export { writeSafetensors, writeRawSafetensors, writeLazySafetensors } from './safetensorsWriter';
export type { TensorToWrite, StoredDtype, LazyTensor } from './safetensorsWriter';

export type Architecture = 'LlamaForCausalLM' | 'MistralForCausalLM' | 'Qwen2ForCausalLM' | 'Qwen3ForCausalLM';

export interface RopeScalingSpec {
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalMaxPositionEmbeddings: number;
}

export interface RandomModelSpec {
  architecture: Architecture;
  dtype: StoredDtype;
  /** Two shards: model-00001-of-00002.safetensors, model-00002-of-00002.safetensors + index. */
  sharded?: boolean;
  numBlocks: number;
  hiddenSize: number;
  numHeads: number;
  numKvHeads: number;
  /** Default hiddenSize / numHeads. Written to config.json for Qwen3 always, and for others when it differs. */
  headDim?: number;
  intermediateSize: number;
  vocabSize: number;
  tieWordEmbeddings: boolean;
  ropeTheta?: number;
  /** Llama-3 style (rope_type 'llama3'). */
  ropeScaling?: RopeScalingSpec;
  /** Mistral only: `sliding_window` (default null, none). */
  slidingWindow?: number;
  seed: number;
}

/** What was written, for tests that need ids. */
export interface WrittenModel {
  dir: string;
  spec: RandomModelSpec;
  config: Record<string, unknown>;
  specialIds: Record<string, number>;
  bosId: number | null;
  /** eos ids from generation_config.json. */
  eosIds: number[];
  /** safetensors files written (relative names). */
  weightFiles: string[];
}

export const SMALL_SPECS: Record<string, RandomModelSpec> = {
  /** Llama-3 shape: GQA 4/2, Llama-3 rope_scaling, untied, F32. */
  llama: {
    architecture: 'LlamaForCausalLM',
    dtype: 'F32',
    numBlocks: 4,
    hiddenSize: 64,
    numHeads: 4,
    numKvHeads: 2,
    intermediateSize: 128,
    vocabSize: 300,
    tieWordEmbeddings: false,
    ropeTheta: 500000,
    ropeScaling: { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 64 },
    seed: 11,
  },
  /** Mistral: GQA 4/1, F16, sharded in two files. */
  mistral: {
    architecture: 'MistralForCausalLM',
    dtype: 'F16',
    sharded: true,
    numBlocks: 3,
    hiddenSize: 32,
    numHeads: 4,
    numKvHeads: 1,
    intermediateSize: 96,
    vocabSize: 290,
    tieWordEmbeddings: false,
    ropeTheta: 10000,
    seed: 22,
  },
  /**
   * Mistral with a sliding window of 4 positions (onnxruntime's GroupQueryAttention path): every
   * test prompt and generation runs past the window. GQA 4/2, F32.
   */
  mistralWindow: {
    architecture: 'MistralForCausalLM',
    dtype: 'F32',
    numBlocks: 3,
    hiddenSize: 32,
    numHeads: 4,
    numKvHeads: 2,
    intermediateSize: 80,
    vocabSize: 290,
    tieWordEmbeddings: false,
    ropeTheta: 10000,
    slidingWindow: 4,
    seed: 44,
  },
  /** Qwen2: q/k/v bias, tied embeddings, BF16, GQA 4/2. */
  qwen2: {
    architecture: 'Qwen2ForCausalLM',
    dtype: 'BF16',
    numBlocks: 4,
    hiddenSize: 48,
    numHeads: 4,
    numKvHeads: 2,
    intermediateSize: 112,
    vocabSize: 310,
    tieWordEmbeddings: true,
    ropeTheta: 1000000,
    seed: 33,
  },
  /** Qwen3: q/k RMSNorm, explicit head_dim (4 x 24 = 96 != hidden 48), BF16, tied, GQA 4/2. */
  qwen3: {
    architecture: 'Qwen3ForCausalLM',
    dtype: 'BF16',
    numBlocks: 4,
    hiddenSize: 48,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 24,
    intermediateSize: 96,
    vocabSize: 320,
    tieWordEmbeddings: true,
    ropeTheta: 1000000,
    seed: 44,
  },
};

export function headDimOf(spec: RandomModelSpec): number {
  return spec.headDim ?? spec.hiddenSize / spec.numHeads;
}

export function tokenizerFamilyOf(arch: Architecture): TokenizerFamily {
  return arch === 'LlamaForCausalLM' ? 'llama3' : arch === 'MistralForCausalLM' ? 'mistral' : 'qwen';
}

function rmsNormEps(arch: Architecture): number {
  return arch === 'Qwen2ForCausalLM' || arch === 'Qwen3ForCausalLM' ? 1e-6 : 1e-5;
}

/** The config.json object for a spec. */
export function modelConfigJson(spec: RandomModelSpec, bosId: number | null, eosId: number): Record<string, unknown> {
  const hd = headDimOf(spec);
  const modelType = {
    LlamaForCausalLM: 'llama',
    MistralForCausalLM: 'mistral',
    Qwen2ForCausalLM: 'qwen2',
    Qwen3ForCausalLM: 'qwen3',
  }[spec.architecture];
  const config: Record<string, unknown> = {
    architectures: [spec.architecture],
    model_type: modelType,
    hidden_act: 'silu',
    hidden_size: spec.hiddenSize,
    intermediate_size: spec.intermediateSize,
    num_hidden_layers: spec.numBlocks,
    num_attention_heads: spec.numHeads,
    num_key_value_heads: spec.numKvHeads,
    rms_norm_eps: rmsNormEps(spec.architecture),
    rope_theta: spec.ropeTheta ?? 10000,
    rope_scaling: spec.ropeScaling
      ? {
          rope_type: 'llama3',
          factor: spec.ropeScaling.factor,
          low_freq_factor: spec.ropeScaling.lowFreqFactor,
          high_freq_factor: spec.ropeScaling.highFreqFactor,
          original_max_position_embeddings: spec.ropeScaling.originalMaxPositionEmbeddings,
        }
      : null,
    vocab_size: spec.vocabSize,
    tie_word_embeddings: spec.tieWordEmbeddings,
    max_position_embeddings: 2048,
    initializer_range: 0.02,
    attention_dropout: 0.0,
    use_cache: true,
    bos_token_id: bosId,
    eos_token_id: eosId,
    torch_dtype: { F32: 'float32', F16: 'float16', BF16: 'bfloat16' }[spec.dtype],
    transformers_version: '4.51.0',
  };
  if (spec.architecture === 'Qwen3ForCausalLM' || hd !== spec.hiddenSize / spec.numHeads) config.head_dim = hd;
  if (spec.architecture === 'LlamaForCausalLM' || spec.architecture === 'Qwen3ForCausalLM') {
    config.attention_bias = false;
    config.mlp_bias = spec.architecture === 'LlamaForCausalLM' ? false : undefined;
  }
  if (spec.architecture === 'MistralForCausalLM') config.sliding_window = spec.slidingWindow ?? null;
  if (spec.architecture === 'Qwen2ForCausalLM' || spec.architecture === 'Qwen3ForCausalLM') {
    config.use_sliding_window = false;
    config.sliding_window = null;
    config.max_window_layers = spec.numBlocks;
  }
  return JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
}

function randomTensor(spec: RandomModelSpec, name: string, shape: number[], value: (r: SeededRandom) => number): LazyTensor {
  const make = () => {
    const rng = new SeededRandom(seedFor(spec.seed, name));
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = value(rng);
    return data;
  };
  return { name, dtype: spec.dtype, shape, make };
}

/**
 * All tensors of the model, HF names and shapes ([out, in] for linear weights), in HF order.
 * Scales: embeddings N(0, (2/sqrt(hidden))^2), linear weights N(0, 1/in), biases N(0, 0.2^2),
 * norm weights 1 + N(0, 0.1^2). Blocks change the residual stream by about its own size,
 * so skipping a block or silencing an MLP moves the logits clearly.
 */
export function buildModelTensors(spec: RandomModelSpec): TensorToWrite[] {
  return lazyModelTensors(spec).map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape, data: t.make() }));
}

/** The same tensors, made only when written (use for large shapes). */
export function lazyModelTensors(spec: RandomModelSpec): LazyTensor[] {
  const h = spec.hiddenSize;
  const hd = headDimOf(spec);
  const qOut = spec.numHeads * hd;
  const kvOut = spec.numKvHeads * hd;
  const normal = (std: number) => (r: SeededRandom) => std * r.normal();
  const norm = (r: SeededRandom) => 1 + 0.1 * r.normal();
  const t: LazyTensor[] = [];
  t.push(randomTensor(spec, 'model.embed_tokens.weight', [spec.vocabSize, h], normal(2 / Math.sqrt(h))));
  for (let l = 0; l < spec.numBlocks; l++) {
    const p = `model.layers.${l}`;
    t.push(randomTensor(spec, `${p}.input_layernorm.weight`, [h], norm));
    t.push(randomTensor(spec, `${p}.self_attn.q_proj.weight`, [qOut, h], normal(1 / Math.sqrt(h))));
    t.push(randomTensor(spec, `${p}.self_attn.k_proj.weight`, [kvOut, h], normal(1 / Math.sqrt(h))));
    t.push(randomTensor(spec, `${p}.self_attn.v_proj.weight`, [kvOut, h], normal(1 / Math.sqrt(h))));
    if (spec.architecture === 'Qwen2ForCausalLM') {
      t.push(randomTensor(spec, `${p}.self_attn.q_proj.bias`, [qOut], normal(0.2)));
      t.push(randomTensor(spec, `${p}.self_attn.k_proj.bias`, [kvOut], normal(0.2)));
      t.push(randomTensor(spec, `${p}.self_attn.v_proj.bias`, [kvOut], normal(0.2)));
    }
    if (spec.architecture === 'Qwen3ForCausalLM') {
      t.push(randomTensor(spec, `${p}.self_attn.q_norm.weight`, [hd], norm));
      t.push(randomTensor(spec, `${p}.self_attn.k_norm.weight`, [hd], norm));
    }
    t.push(randomTensor(spec, `${p}.self_attn.o_proj.weight`, [h, qOut], normal(1 / Math.sqrt(qOut))));
    t.push(randomTensor(spec, `${p}.post_attention_layernorm.weight`, [h], norm));
    t.push(randomTensor(spec, `${p}.mlp.gate_proj.weight`, [spec.intermediateSize, h], normal(1 / Math.sqrt(h))));
    t.push(randomTensor(spec, `${p}.mlp.up_proj.weight`, [spec.intermediateSize, h], normal(1 / Math.sqrt(h))));
    t.push(
      randomTensor(spec, `${p}.mlp.down_proj.weight`, [h, spec.intermediateSize], normal(1 / Math.sqrt(spec.intermediateSize))),
    );
  }
  t.push(randomTensor(spec, 'model.norm.weight', [h], norm));
  if (!spec.tieWordEmbeddings) {
    t.push(randomTensor(spec, 'lm_head.weight', [spec.vocabSize, h], normal(1 / Math.sqrt(h))));
  }
  return t;
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

/** Writes the weight files of a tensor list (single file, or two shards + index). Returns file names. */
export function writeWeights(dir: string, eager: (TensorToWrite | LazyTensor)[], sharded: boolean): string[] {
  const tensors: LazyTensor[] = eager.map((t) => ('make' in t ? t : { name: t.name, dtype: t.dtype, shape: t.shape, make: () => t.data }));
  if (!sharded) {
    writeLazySafetensors(path.join(dir, 'model.safetensors'), tensors);
    return ['model.safetensors'];
  }
  const shards = 2;
  const per = Math.ceil(tensors.length / shards);
  const names: string[] = [];
  const weightMap: Record<string, string> = {};
  let totalSize = 0;
  for (let s = 0; s < shards; s++) {
    const name = `model-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
    const part = tensors.slice(s * per, (s + 1) * per);
    writeLazySafetensors(path.join(dir, name), part);
    for (const t of part) {
      weightMap[t.name] = name;
      totalSize += t.shape.reduce((a, b) => a * b, 1) * bytesPerElement(t.dtype);
    }
    names.push(name);
  }
  writeJson(path.join(dir, 'model.safetensors.index.json'), { metadata: { total_size: totalSize }, weight_map: weightMap });
  return names;
}

/** Writes a complete HF model folder (creates `dir` if needed). */
export function writeRandomModel(dir: string, spec: RandomModelSpec): WrittenModel {
  fs.mkdirSync(dir, { recursive: true });
  const tok = buildTokenizerFiles(tokenizerFamilyOf(spec.architecture), spec.vocabSize);
  const config = modelConfigJson(spec, tok.bosId, tok.configEosId);
  writeJson(path.join(dir, 'config.json'), config);
  const weightFiles = writeWeights(dir, lazyModelTensors(spec), spec.sharded ?? false);
  writeJson(path.join(dir, 'tokenizer.json'), tok.tokenizerJson);
  writeJson(path.join(dir, 'tokenizer_config.json'), tok.tokenizerConfig);
  const generationConfig: Record<string, unknown> = {
    bos_token_id: tok.bosId ?? undefined,
    eos_token_id: tok.eosIds.length === 1 ? tok.eosIds[0] : tok.eosIds,
    do_sample: false,
    transformers_version: '4.51.0',
  };
  writeJson(path.join(dir, 'generation_config.json'), JSON.parse(JSON.stringify(generationConfig)));
  return { dir, spec, config, specialIds: tok.specialIds, bosId: tok.bosId, eosIds: tok.eosIds, weightFiles };
}
