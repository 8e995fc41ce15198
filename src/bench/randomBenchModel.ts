/**
 * Writes a random-weight model folder with the exact shape of Qwen2.5-0.5B (hidden 896, 24 blocks,
 * 14 heads / 2 KV heads, intermediate 4864, vocab 151936, tied embeddings, q/k/v bias) for the
 * bench, so speed can be measured without downloading anything. Weights are BF16 (half the disk of
 * F32; the engine computes in F32 either way) drawn from a seeded PRNG; the tokenizer is a
 * byte-level BPE with no merges (the bench feeds token ids directly).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Xoshiro128, createFolder } from '../engine/index';

export const QWEN_05B_SHAPE = {
  hiddenSize: 896,
  numBlocks: 24,
  numHeads: 14,
  numKvHeads: 2,
  intermediateSize: 4864,
  vocabSize: 151936,
};

interface TensorSpec {
  name: string;
  shape: number[];
  /** 'one' for norm weights; otherwise uniform in ±scale. */
  init: 'one' | number;
}

function tensorSpecs(): TensorSpec[] {
  const { hiddenSize: H, numBlocks: L, numHeads: NH, numKvHeads: KV, intermediateSize: I, vocabSize: V } = QWEN_05B_SHAPE;
  const D = H / NH;
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', shape: [V, H], init: 0.05 }];
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}`;
    specs.push(
      { name: `${p}.input_layernorm.weight`, shape: [H], init: 'one' },
      { name: `${p}.self_attn.q_proj.weight`, shape: [NH * D, H], init: 0.03 },
      { name: `${p}.self_attn.q_proj.bias`, shape: [NH * D], init: 0.02 },
      { name: `${p}.self_attn.k_proj.weight`, shape: [KV * D, H], init: 0.03 },
      { name: `${p}.self_attn.k_proj.bias`, shape: [KV * D], init: 0.02 },
      { name: `${p}.self_attn.v_proj.weight`, shape: [KV * D, H], init: 0.03 },
      { name: `${p}.self_attn.v_proj.bias`, shape: [KV * D], init: 0.02 },
      { name: `${p}.self_attn.o_proj.weight`, shape: [H, NH * D], init: 0.03 },
      { name: `${p}.post_attention_layernorm.weight`, shape: [H], init: 'one' },
      { name: `${p}.mlp.gate_proj.weight`, shape: [I, H], init: 0.03 },
      { name: `${p}.mlp.up_proj.weight`, shape: [I, H], init: 0.03 },
      { name: `${p}.mlp.down_proj.weight`, shape: [H, I], init: 0.02 },
    );
  }
  specs.push({ name: 'model.norm.weight', shape: [H], init: 'one' });
  return specs;
}

function byteLevelTokenizer(eosId: number, imStart: number, imEnd: number): Record<string, unknown> {
  // GPT-2 byte ↔ unicode table: printable bytes map to themselves, the rest to 256+n.
  const vocab: Record<string, number> = {};
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    vocab[String.fromCharCode(printable ? b : 256 + shifted++)] = b;
  }
  const special = (id: number, content: string): Record<string, unknown> => ({
    id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(eosId, '<|endoftext|>'), special(imStart, '<|im_start|>'), special(imEnd, '<|im_end|>')],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges: [] },
  };
}

/** Writes the folder (skipped when a complete one is already there); returns its path. */
export function writeRandomQwen05bModel(dir: string, log: (m: string) => void = () => {}): string {
  const done = path.join(dir, '.complete');
  if (fs.existsSync(done)) return dir;
  createFolder(dir, 'the --random-dir folder');
  const S = QWEN_05B_SHAPE;
  const eosId = 151643;
  const config = {
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_act: 'silu',
    hidden_size: S.hiddenSize,
    intermediate_size: S.intermediateSize,
    num_hidden_layers: S.numBlocks,
    num_attention_heads: S.numHeads,
    num_key_value_heads: S.numKvHeads,
    max_position_embeddings: 32768,
    rms_norm_eps: 1e-6,
    rope_theta: 1000000,
    tie_word_embeddings: true,
    vocab_size: S.vocabSize,
    bos_token_id: eosId,
    eos_token_id: eosId,
    torch_dtype: 'bfloat16',
    use_sliding_window: false,
    sliding_window: null,
  };
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: eosId, do_sample: false }, null, 2));
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(byteLevelTokenizer(eosId, 151644, 151645)));
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({
    eos_token: '<|endoftext|>',
    pad_token: '<|endoftext|>',
    chat_template: "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
  }, null, 2));

  // safetensors: 8-byte header length, JSON header, then the tensors back to back.
  const specs = tensorSpecs();
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const s of specs) {
    const bytes = s.shape.reduce((a, b) => a * b, 1) * 2;
    header[s.name] = { dtype: 'BF16', shape: s.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let headerText = JSON.stringify(header);
  headerText += ' '.repeat((8 - (headerText.length % 8)) % 8);
  const file = path.join(dir, 'model.safetensors');
  const fd = fs.openSync(file, 'w');
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(headerText.length));
    fs.writeSync(fd, len);
    fs.writeSync(fd, Buffer.from(headerText, 'utf8'));
    const rng = new Xoshiro128(20250501);
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    for (const s of specs) {
      log(`writing ${s.name}`);
      const n = s.shape.reduce((a, b) => a * b, 1);
      const out = new Uint16Array(n);
      for (let i = 0; i < n; i++) {
        f32[0] = s.init === 'one' ? 1 : (rng.nextFloat() * 2 - 1) * s.init;
        out[i] = u32[0] >>> 16; // BF16 = top half of the F32 bits (truncation is fine for random weights)
      }
      fs.writeSync(fd, Buffer.from(out.buffer));
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(done, '');
  return dir;
}
