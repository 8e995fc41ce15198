/**
 * Converts a Hugging Face Qwen2 folder (the bench's random Qwen2.5-0.5B-shaped model) to GGUF for
 * llama.cpp, F32 or Q8_0, with the same weights the engine reads. Qwen2 in llama.cpp uses the
 * rotate-half (NeoX) rotary embedding like Hugging Face, so q/k need no permutation. The
 * tokenizer is written as llama.cpp's "gpt2" byte-level BPE (vocabulary padded to the embedding's
 * row count); the comparison feeds token ids, so only its shape matters.
 *
 * Usage (after `npx tsc -p .`):
 *   node out/tools/llama-cpp/convertToGguf.js --model DIR --out FILE.gguf [--type f32|q8_0]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readModelConfig } from '../../src/engine/checkpoint/config';
import { openWeights, resolveWeightNames } from '../../src/engine/checkpoint/weights';
import { GgmlType, type GgufTensor, type MetaValue, writeGguf } from './ggufFile';

interface TokenizerJson {
  model: { type: string; vocab: Record<string, number>; merges?: (string | [string, string])[] };
  added_tokens?: { id: number; content: string; special?: boolean }[];
}

export function convertToGguf(modelDir: string, outFile: string, type: 'f32' | 'q8_0'): void {
  const config = readModelConfig(modelDir);
  if (config.architecture !== 'Qwen2ForCausalLM') throw new Error(`only Qwen2ForCausalLM is converted, got ${config.architecture}`);
  const store = openWeights(modelDir);
  try {
    const names = resolveWeightNames(store, config, modelDir);
    const matrix = type === 'q8_0' ? GgmlType.Q8_0 : GgmlType.F32;
    const t = (name: string, shape: number[], source: string, ggml = matrix): GgufTensor => ({ name, shape, type: ggml, data: store.read(source) });
    const H = config.hiddenSize;
    const V = config.vocabSize;
    const I = config.intermediateSize;
    const qOut = config.numHeads * config.headDim;
    const kvOut = config.numKvHeads * config.headDim;
    const tensors: GgufTensor[] = [t('token_embd.weight', [V, H], names.embed), t('output_norm.weight', [H], names.finalNorm, GgmlType.F32)];
    if (names.lmHead !== names.embed) tensors.push(t('output.weight', [V, H], names.lmHead));
    names.blocks.forEach((b, i) => {
      const p = `blk.${i}`;
      tensors.push(
        t(`${p}.attn_norm.weight`, [H], b.inputNorm, GgmlType.F32),
        t(`${p}.attn_q.weight`, [qOut, H], b.q),
        t(`${p}.attn_k.weight`, [kvOut, H], b.k),
        t(`${p}.attn_v.weight`, [kvOut, H], b.v),
        t(`${p}.attn_output.weight`, [H, qOut], b.o),
        t(`${p}.ffn_norm.weight`, [H], b.postAttentionNorm, GgmlType.F32),
        t(`${p}.ffn_gate.weight`, [I, H], b.gate),
        t(`${p}.ffn_up.weight`, [I, H], b.up),
        t(`${p}.ffn_down.weight`, [H, I], b.down),
      );
      if (b.qBias && b.kBias && b.vBias) {
        tensors.push(
          t(`${p}.attn_q.bias`, [qOut], b.qBias, GgmlType.F32),
          t(`${p}.attn_k.bias`, [kvOut], b.kBias, GgmlType.F32),
          t(`${p}.attn_v.bias`, [kvOut], b.vBias, GgmlType.F32),
        );
      }
    });

    const tok = JSON.parse(fs.readFileSync(path.join(modelDir, 'tokenizer.json'), 'utf8')) as TokenizerJson;
    if (tok.model.type !== 'BPE') throw new Error(`only byte-level BPE tokenizers are converted, got ${tok.model.type}`);
    const tokens = Array.from({ length: V }, (_, id) => `[PAD${id}]`);
    const types = new Array<number>(V).fill(5); // unused
    for (const [s, id] of Object.entries(tok.model.vocab)) if (id < V) { tokens[id] = s; types[id] = 1; }
    for (const a of tok.added_tokens ?? []) if (a.id < V) { tokens[a.id] = a.content; types[a.id] = a.special ? 3 : 4; }
    const merges = (tok.model.merges ?? []).map((m) => (Array.isArray(m) ? m.join(' ') : m));
    const eos = config.eosTokenIds[0] ?? (tok.added_tokens ?? [])[0]?.id ?? 0;

    const arch = 'qwen2';
    const meta: Record<string, MetaValue> = {
      'general.architecture': { type: 'string', value: arch },
      'general.name': { type: 'string', value: path.basename(path.resolve(modelDir)) },
      'general.file_type': { type: 'u32', value: type === 'q8_0' ? 7 : 0 },
      [`${arch}.block_count`]: { type: 'u32', value: config.numBlocks },
      [`${arch}.context_length`]: { type: 'u32', value: 32768 },
      [`${arch}.embedding_length`]: { type: 'u32', value: H },
      [`${arch}.feed_forward_length`]: { type: 'u32', value: I },
      [`${arch}.attention.head_count`]: { type: 'u32', value: config.numHeads },
      [`${arch}.attention.head_count_kv`]: { type: 'u32', value: config.numKvHeads },
      [`${arch}.rope.freq_base`]: { type: 'f32', value: config.ropeTheta },
      [`${arch}.attention.layer_norm_rms_epsilon`]: { type: 'f32', value: config.rmsNormEps },
      'tokenizer.ggml.model': { type: 'string', value: 'gpt2' },
      'tokenizer.ggml.pre': { type: 'string', value: 'qwen2' },
      'tokenizer.ggml.tokens': { type: 'strings', value: tokens },
      'tokenizer.ggml.token_type': { type: 'i32s', value: types },
      'tokenizer.ggml.merges': { type: 'strings', value: merges },
      'tokenizer.ggml.eos_token_id': { type: 'u32', value: eos },
      'tokenizer.ggml.padding_token_id': { type: 'u32', value: eos },
      'tokenizer.ggml.add_bos_token': { type: 'bool', value: false },
    };
    writeGguf(outFile, meta, tensors);
  } finally {
    store.close();
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const model = flag('--model');
  const out = flag('--out');
  const type = flag('--type') ?? 'f32';
  if (!model || !out || (type !== 'f32' && type !== 'q8_0')) {
    process.stderr.write('usage: convertToGguf --model DIR --out FILE.gguf [--type f32|q8_0]\n');
    process.exit(2);
  }
  convertToGguf(model, out, type);
  process.stderr.write(`wrote ${out}\n`);
}
