/**
 * Hugging Face tensor names of the supported decoder architectures, checked against the config:
 * every tensor the engine will use must exist with the shape the config implies (linear weights
 * in HF's [out, in] layout), so a mismatched checkpoint fails at load with the tensor named,
 * not later inside the runtime.
 */
import * as path from 'node:path';
import { ModelConfig, CONFIG_FILE } from './config';
import { InputError } from '../../common';
import { WeightStore } from './safetensors';

// Re-exported so the runtime can take everything about weights from one module.
export { openWeights } from './safetensors';
export type { DType, TensorInfo, WeightStore } from './safetensors';

export interface BlockWeights {
  inputNorm: string;
  postAttentionNorm: string;
  q: string;
  k: string;
  v: string;
  o: string;
  qBias?: string;
  kBias?: string;
  vBias?: string;
  qNorm?: string;
  kNorm?: string;
  gate: string;
  up: string;
  down: string;
}

export interface WeightNames {
  embed: string;
  finalNorm: string;
  /** Equal to `embed` when the config ties word embeddings. */
  lmHead: string;
  blocks: BlockWeights[];
}

/** One expected tensor: its HF name, shape, and which config fields the shape comes from. */
interface Expectation {
  name: string;
  shape: number[];
  because: string;
}

function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

/** The names and expected shapes, without touching the store. */
export function expectedWeights(config: ModelConfig): { names: WeightNames; expectations: Expectation[] } {
  const h = config.hiddenSize;
  const qOut = config.numHeads * config.headDim;
  const kvOut = config.numKvHeads * config.headDim;
  const inter = config.intermediateSize;
  const expectations: Expectation[] = [];
  const want = (name: string, shape: number[], because: string): string => {
    expectations.push({ name, shape, because });
    return name;
  };
  const hidden = `hidden_size ${h}`;
  const q = `num_attention_heads ${config.numHeads} × head_dim ${config.headDim}`;
  const kv = `num_key_value_heads ${config.numKvHeads} × head_dim ${config.headDim}`;
  const mlp = `intermediate_size ${inter}, hidden_size ${h}`;
  const vocab = `vocab_size ${config.vocabSize}, hidden_size ${h}`;

  const embed = want('model.embed_tokens.weight', [config.vocabSize, h], vocab);
  const blocks: BlockWeights[] = [];
  for (let l = 0; l < config.numBlocks; l++) {
    const p = `model.layers.${l}`;
    const block: BlockWeights = {
      inputNorm: want(`${p}.input_layernorm.weight`, [h], hidden),
      postAttentionNorm: want(`${p}.post_attention_layernorm.weight`, [h], hidden),
      q: want(`${p}.self_attn.q_proj.weight`, [qOut, h], `${q}, ${hidden}`),
      k: want(`${p}.self_attn.k_proj.weight`, [kvOut, h], `${kv}, ${hidden}`),
      v: want(`${p}.self_attn.v_proj.weight`, [kvOut, h], `${kv}, ${hidden}`),
      o: want(`${p}.self_attn.o_proj.weight`, [h, qOut], `${hidden}, ${q}`),
      gate: want(`${p}.mlp.gate_proj.weight`, [inter, h], mlp),
      up: want(`${p}.mlp.up_proj.weight`, [inter, h], mlp),
      down: want(`${p}.mlp.down_proj.weight`, [h, inter], `${hidden}, intermediate_size ${inter}`),
    };
    if (config.qkvBias) {
      block.qBias = want(`${p}.self_attn.q_proj.bias`, [qOut], q);
      block.kBias = want(`${p}.self_attn.k_proj.bias`, [kvOut], kv);
      block.vBias = want(`${p}.self_attn.v_proj.bias`, [kvOut], kv);
    }
    if (config.qkNorm) {
      block.qNorm = want(`${p}.self_attn.q_norm.weight`, [config.headDim], `head_dim ${config.headDim}`);
      block.kNorm = want(`${p}.self_attn.k_norm.weight`, [config.headDim], `head_dim ${config.headDim}`);
    }
    blocks.push(block);
  }
  const finalNorm = want('model.norm.weight', [h], hidden);
  const lmHead = config.tieWordEmbeddings ? embed : want('lm_head.weight', [config.vocabSize, h], vocab);
  return { names: { embed, finalNorm, lmHead, blocks }, expectations };
}

/**
 * Resolves every tensor name the engine needs and checks it exists in `store` with the shape
 * implied by `config`. Throws InputError naming the tensor, its file, its shape and the expected one.
 */
export function resolveWeightNames(store: WeightStore, config: ModelConfig, dir: string): WeightNames {
  const configFile = path.join(dir, CONFIG_FILE);
  checkBlockCount(store, config, dir, configFile);
  const { names, expectations } = expectedWeights(config);
  for (const e of expectations) {
    const info = store.tensors.get(e.name);
    if (!info) {
      const hint =
        e.name === 'lm_head.weight'
          ? ` (${configFile} has tie_word_embeddings false, so a separate lm_head.weight is expected)`
          : /^model\.layers\.(\d+)\./.test(e.name)
            ? ` (${configFile} has num_hidden_layers ${config.numBlocks})`
            : '';
      throw new InputError(`${dir}: weight tensor "${e.name}" is missing from the safetensors files${hint}`);
    }
    const same = info.shape.length === e.shape.length && info.shape.every((d, i) => d === e.shape[i]);
    if (!same) {
      throw new InputError(
        `${info.file}: tensor "${e.name}" has shape ${formatShape(info.shape)}, but ${configFile} (${e.because}) expects ${formatShape(e.shape)}`,
      );
    }
  }
  return names;
}

/**
 * The blocks config.json counts must be blocks the weights hold, checked before one expectation per
 * tensor is built: num_hidden_layers 1e6 on an 8-block checkpoint took 17 s and 2 GB to build its
 * millions of expectations before the first missing tensor was named.
 */
function checkBlockCount(store: WeightStore, config: ModelConfig, dir: string, configFile: string): void {
  const held = new Set<number>();
  for (const name of store.tensors.keys()) {
    const m = /^model\.layers\.(\d+)\./.exec(name);
    if (m) held.add(Number(m[1]));
  }
  if (config.numBlocks <= held.size) return;
  let missing = 0;
  while (held.has(missing)) missing++;
  throw new InputError(
    `${dir}: ${configFile} has num_hidden_layers ${config.numBlocks}, but the safetensors files hold the tensors of ${held.size} ${held.size === 1 ? 'block' : 'blocks'} ` +
      `(none for model.layers.${missing}); expected a config.json that matches the weights`,
  );
}

/**
 * Throws InputError when a tensor holds NaN or ±Infinity: such weights run silently and emit token
 * 0 forever. Names the tensor, its file, its block and the first bad element. One pass over data
 * the graph build reads anyway.
 */
export function assertFiniteWeights(store: WeightStore, name: string, data: Float32Array): Float32Array {
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (x - x !== 0) {
      // x - x is 0 for every finite x and NaN for NaN and ±Infinity: one test for both.
      let bad = 0;
      for (let j = i; j < data.length; j++) if (!Number.isFinite(data[j])) bad++;
      const block = /^model\.layers\.(\d+)\./.exec(name);
      const file = store.tensors.get(name)?.file ?? 'the safetensors files';
      throw new InputError(
        `${file}: tensor "${name}"${block ? ` (block ${block[1]})` : ''} holds ${Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity'} at element ${i} (${bad} non-finite of ${data.length}); the checkpoint is damaged — expected finite weights`,
      );
    }
  }
  return data;
}
