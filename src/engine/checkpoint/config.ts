/**
 * The model's `config.json` (and `generation_config.json` for eos ids), read into the few numbers
 * the engine needs. Defaults follow the Hugging Face transformers config classes of each
 * architecture; anything the engine cannot compute faithfully is rejected with the field named.
 */
import * as path from 'node:path';
import { InputError, readRegularBytes, utf8TextOf } from '../../common';
import { isObject } from '../../contract';

export type Architecture = 'LlamaForCausalLM' | 'MistralForCausalLM' | 'Qwen2ForCausalLM' | 'Qwen3ForCausalLM';
export const SUPPORTED_ARCHITECTURES: readonly Architecture[] = [
  'LlamaForCausalLM',
  'MistralForCausalLM',
  'Qwen2ForCausalLM',
  'Qwen3ForCausalLM',
];

/** Llama-3 ("llama3" rope_type) frequency scaling. */
export interface RopeScaling {
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalMaxPositionEmbeddings: number;
}

export interface ModelConfig {
  architecture: Architecture;
  numBlocks: number;
  hiddenSize: number;
  intermediateSize: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  vocabSize: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling?: RopeScaling;
  maxPositionEmbeddings: number;
  tieWordEmbeddings: boolean;
  /** Qwen2: q/k/v projections carry a bias. */
  qkvBias: boolean;
  /** Qwen3: per-head RMSNorm on q and k before rope. */
  qkNorm: boolean;
  /** Mistral's sliding attention window, when config.json sets one. */
  slidingWindow?: number;
  bosTokenId?: number;
  /** Union of config.json and generation_config.json eos_token_id. */
  eosTokenIds: number[];
}

export const CONFIG_FILE = 'config.json';
export const GENERATION_CONFIG_FILE = 'generation_config.json';

/** Per-architecture defaults of the transformers config classes, for fields a config may omit. */
const DEFAULTS: Record<Architecture, { rmsNormEps: number; ropeTheta: number; maxPositionEmbeddings: number }> = {
  LlamaForCausalLM: { rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 2048 },
  MistralForCausalLM: { rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 4096 * 32 },
  Qwen2ForCausalLM: { rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 32768 },
  Qwen3ForCausalLM: { rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 32768 },
};

type Json = Record<string, unknown>;

/** The largest config.json (or generation_config.json, tokenizer_config.json) read: real ones are a few KB. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** Reads and parses a JSON object file; `undefined` when the file is absent and optional. */
export function readJsonObject(file: string, optional: boolean, expected: string, maxBytes = MAX_CONFIG_BYTES): Json | undefined {
  let text: string;
  try {
    text = utf8TextOf(file, readRegularBytes(file, maxBytes));
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && optional) return undefined;
    if (code === 'ENOENT') throw new InputError(`${file}: not found; expected ${expected}`);
    if (code === 'ELOOP') throw new InputError(`${file}: a symbolic link loop (it points back to itself, directly or through other links); expected ${expected}`);
    throw new InputError(`${file}: cannot read (${code ?? String(e)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: not valid JSON (${(e as Error).message}); expected ${expected}`);
  }
  if (!isObject(value)) throw new InputError(`${file}: expected a JSON object (${expected})`);
  return value;
}

class ConfigFields {
  constructor(
    readonly file: string,
    readonly json: Json,
  ) {}

  fail(field: string, expected: string): never {
    const got = this.json[field];
    const shown = got === undefined ? 'missing' : `is ${JSON.stringify(got)}`;
    throw new InputError(`${this.file}: field ${field} ${shown}; expected ${expected}`);
  }

  has(field: string): boolean {
    return this.json[field] !== undefined && this.json[field] !== null;
  }

  positiveInt(field: string, fallback?: number): number {
    const v = this.json[field];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) this.fail(field, 'a positive integer');
    return v;
  }

  positiveNumber(field: string, fallback?: number): number {
    const v = this.json[field];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) this.fail(field, 'a positive number');
    return v;
  }

  bool(field: string, fallback: boolean): boolean {
    const v = this.json[field];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') this.fail(field, 'true or false');
    return v;
  }

  /** A token id or list of token ids (null/absent → empty). */
  tokenIds(field: string): number[] {
    const v = this.json[field];
    if (v === undefined || v === null) return [];
    const list = Array.isArray(v) ? v : [v];
    if (!list.every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0)) {
      this.fail(field, 'a token id or a list of token ids');
    }
    return list as number[];
  }
}

function readArchitecture(f: ConfigFields): Architecture {
  const archs = f.json.architectures;
  const supported = SUPPORTED_ARCHITECTURES.join(', ');
  if (!Array.isArray(archs) || archs.length === 0 || !archs.every((a) => typeof a === 'string')) {
    f.fail('architectures', `a list with one of ${supported}`);
  }
  const found = (archs as string[]).find((a) => (SUPPORTED_ARCHITECTURES as readonly string[]).includes(a));
  if (!found) {
    throw new InputError(`${f.file}: architecture ${(archs as string[]).join(', ')} is not supported; supported architectures are ${supported}`);
  }
  return found as Architecture;
}

function readRopeScaling(f: ConfigFields, field: string, value: unknown): RopeScaling | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) f.fail(field, 'an object with rope_type "llama3", or null');
  const type = value.rope_type ?? value.type;
  if (type === 'default' || type === undefined) {
    if (type === undefined && value.factor !== undefined) f.fail(field, 'rope_type "llama3" (other scalings are not supported)');
    return undefined;
  }
  if (type !== 'llama3') {
    throw new InputError(`${f.file}: ${field}.rope_type ${JSON.stringify(type)} is not supported; supported: "llama3" or none`);
  }
  const num = (key: string): number => {
    const v = value[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new InputError(`${f.file}: field ${field}.${key} ${v === undefined ? 'missing' : `is ${JSON.stringify(v)}`}; expected a positive number`);
    }
    return v;
  };
  const scaling: RopeScaling = {
    factor: num('factor'),
    lowFreqFactor: num('low_freq_factor'),
    highFreqFactor: num('high_freq_factor'),
    originalMaxPositionEmbeddings: num('original_max_position_embeddings'),
  };
  if (scaling.highFreqFactor <= scaling.lowFreqFactor) {
    throw new InputError(`${f.file}: ${field}.high_freq_factor must be greater than low_freq_factor`);
  }
  return scaling;
}

/** Reads `config.json` (required) and `generation_config.json` (optional) of a model folder. */
export function readModelConfig(dir: string): ModelConfig {
  const file = path.join(dir, CONFIG_FILE);
  const json = readJsonObject(file, false, 'a Hugging Face config.json with architectures, hidden_size, num_hidden_layers, ...');
  const f = new ConfigFields(file, json as Json);
  const architecture = readArchitecture(f);
  const defaults = DEFAULTS[architecture];

  if (f.has('hidden_act') && f.json.hidden_act !== 'silu') f.fail('hidden_act', '"silu" (the only activation supported)');
  const hiddenSize = f.positiveInt('hidden_size');
  const numHeads = f.positiveInt('num_attention_heads');
  const numKvHeads = f.positiveInt('num_key_value_heads', numHeads);
  if (numHeads % numKvHeads !== 0) f.fail('num_key_value_heads', `a divisor of num_attention_heads (${numHeads})`);
  let headDim: number;
  if (f.has('head_dim')) headDim = f.positiveInt('head_dim');
  else {
    if (hiddenSize % numHeads !== 0) f.fail('head_dim', `set, since hidden_size ${hiddenSize} is not a multiple of num_attention_heads ${numHeads}`);
    headDim = hiddenSize / numHeads;
  }
  if (headDim % 2 !== 0) f.fail('head_dim', 'an even number (rotary embeddings rotate pairs)');

  // transformers v5 moves rope settings into rope_parameters; read either place.
  const ropeParameters = isObject(f.json.rope_parameters) ? f.json.rope_parameters : undefined;
  let ropeTheta = f.positiveNumber('rope_theta', defaults.ropeTheta);
  let ropeScaling = readRopeScaling(f, 'rope_scaling', f.json.rope_scaling);
  if (ropeParameters) {
    if (!f.has('rope_theta') && ropeParameters.rope_theta !== undefined) {
      const t = ropeParameters.rope_theta;
      if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0) {
        throw new InputError(`${file}: field rope_parameters.rope_theta is ${JSON.stringify(t)}; expected a positive number`);
      }
      ropeTheta = t;
    }
    ropeScaling ??= readRopeScaling(f, 'rope_parameters', ropeParameters);
  }

  // Features of these architectures that change the math but that the engine does not implement.
  if (f.bool('attention_bias', false)) f.fail('attention_bias', 'false (biases on all attention projections are not supported)');
  if (f.bool('mlp_bias', false)) f.fail('mlp_bias', 'false (MLP biases are not supported)');
  if (architecture !== 'MistralForCausalLM' && f.bool('use_sliding_window', false)) {
    f.fail('use_sliding_window', 'false (sliding-window attention is supported for Mistral only)');
  }
  let slidingWindow: number | undefined;
  if (architecture === 'MistralForCausalLM' && f.has('sliding_window')) slidingWindow = f.positiveInt('sliding_window');

  const eos = f.tokenIds('eos_token_id');
  const bos = f.tokenIds('bos_token_id');
  const generationFile = path.join(dir, GENERATION_CONFIG_FILE);
  const generation = readJsonObject(generationFile, true, 'a JSON object with eos_token_id');
  if (generation) {
    for (const id of new ConfigFields(generationFile, generation).tokenIds('eos_token_id')) if (!eos.includes(id)) eos.push(id);
  }

  const config: ModelConfig = {
    architecture,
    numBlocks: f.positiveInt('num_hidden_layers'),
    hiddenSize,
    intermediateSize: f.positiveInt('intermediate_size'),
    numHeads,
    numKvHeads,
    headDim,
    vocabSize: f.positiveInt('vocab_size'),
    rmsNormEps: f.positiveNumber('rms_norm_eps', defaults.rmsNormEps),
    ropeTheta,
    maxPositionEmbeddings: f.positiveInt('max_position_embeddings', defaults.maxPositionEmbeddings),
    tieWordEmbeddings: f.bool('tie_word_embeddings', false),
    qkvBias: architecture === 'Qwen2ForCausalLM',
    qkNorm: architecture === 'Qwen3ForCausalLM',
    eosTokenIds: eos,
  };
  if (ropeScaling) config.ropeScaling = ropeScaling;
  if (slidingWindow !== undefined) config.slidingWindow = slidingWindow;
  if (bos.length > 0) config.bosTokenId = bos[0];
  for (const id of [...config.eosTokenIds, ...(config.bosTokenId === undefined ? [] : [config.bosTokenId])]) {
    if (id >= config.vocabSize) {
      throw new InputError(`${file}: token id ${id} (bos/eos) is outside the vocabulary; expected below vocab_size ${config.vocabSize}`);
    }
  }
  return config;
}

/**
 * Rotary inverse frequencies θ^(-2i/d), i = 0..d/2-1, with Llama-3 scaling when configured:
 * long wavelengths (beyond original_max_position_embeddings / low_freq_factor) are divided by
 * factor, short ones (below .../high_freq_factor) kept, and the band between interpolated.
 */
export function ropeInverseFrequencies(config: ModelConfig): Float64Array {
  const d = config.headDim;
  const half = d / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / Math.pow(config.ropeTheta, (2 * i) / d);
  const s = config.ropeScaling;
  if (!s) return inv;
  const lowFreqWavelen = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
  const highFreqWavelen = s.originalMaxPositionEmbeddings / s.highFreqFactor;
  for (let i = 0; i < half; i++) {
    const wavelen = (2 * Math.PI) / inv[i];
    if (wavelen < highFreqWavelen) continue;
    if (wavelen > lowFreqWavelen) {
      inv[i] = inv[i] / s.factor;
    } else {
      const smooth = (s.originalMaxPositionEmbeddings / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
      inv[i] = (1 - smooth) * (inv[i] / s.factor) + smooth * inv[i];
    }
  }
  return inv;
}
