/**
 * The ONNX graph of one decoder block (pre-norm attention + SwiGLU MLP, Llama/Mistral/Qwen2/Qwen3).
 *
 * Inputs (B = batch, S = new tokens, C = the cache buffer's capacity):
 *   hidden    [B,S,H]          residual stream entering the block
 *   cos, sin  [B,S,1,D/2]      rotary tables for each sequence's own positions (computed once per step)
 *   past_k/v  [B,KV,C,Dp]      this route position's cache; sequence b's keys fill slots 0..past_b-1
 *   attn_mask [B,1,1,S,C+S]    what each new token may attend to, 0 or -inf (attentionMask.ts)
 * and with a sliding window (onnxruntime's GroupQueryAttention) instead of attn_mask:
 *   seqlens_k [B] int32        past_b + S - 1 (a prompt: its own length - 1, right-padded to S)
 *   total_len [] int32         S for a prompt, else max over b of past_b + S
 * (the executor prefills only prompts of one length together: padded prefill moved some prompts'
 * log-probs in the last bits)
 *   mlp_gate  [B,1,1]          1 = normal, 0 = MLP silenced for that sequence (no rebuild needed)
 * Outputs: hidden_out [B,S,H], new_k/new_v [B,S,KV*Dp] (this call's keys and values, after rotary).
 * Dp is the head size rounded up to a multiple of 8 (GroupQueryAttention's requirement; the extra
 * lanes are zero in q, k and v, so they change no product).
 *
 * KV cache: the graph never copies the cache into an output. Attention (attentionGraph.ts) reads
 * each sequence's own past_b slots of the buffer (the rest masked) plus this call's keys; the
 * executor appends new_k/new_v to its preallocated cache buffers in place, so a decode step moves
 * O(1) cache bytes apart from the attention itself. Models with a sliding window keep onnxruntime's
 * GroupQueryAttention, whose present outputs the executor binds to the past buffers.
 *
 * Weights are stored transposed ([in,out]) so every projection is a plain MatMul; q/k/v and
 * gate/up are fused into one MatMul each, which halves the kernel calls at batch 1.
 *
 * Batch invariance: a sequence's numbers must not depend on how many others share its batch
 * (auditing one question alone reproduces its record bit for bit; generation.test.ts checks it).
 * onnxruntime prepacks each constant weight matrix and then computes every row the same way
 * whatever the row count; the attention masks other slots to exact zeros that enter no sum
 * (attentionGraph.ts), so neither batch-mates nor their lengths enter a sequence's sums. The
 * other order for the projections, yᵀ = W·xᵀ with the activations packed instead, was measured 8%
 * faster at batch 16 on the Qwen2.5-0.5B shape (7% slower at batch 1) but breaks this: MLAS then
 * blocks K by the column count and has its own kernel for a single column.
 */
import { InputError } from '../../common';
import type { ModelConfig } from '../checkpoint/config';
import type { BlockWeights } from '../checkpoint/weights';
import { ExternalDataFile, FLOAT, FLOAT16, GraphBuilder, INT32 } from './graphBuilder';
import type { KvPrecision } from '../decode/kvPrecision';
import { type Int8Path, type WeightPrecision, linear } from '../checkpoint/weightPrecision';
import { groupedAttention } from './attentionGraph';

/** Graph-construction choices that change the graph (part of the cache key). */
export interface GraphVariant {
  /** 'plain': Pow/ReduceMean/Sqrt/Div/Mul; 'contrib': onnxruntime's SimplifiedLayerNormalization. */
  norm: 'plain' | 'contrib';
  /** Projection weights (default f32); see weightPrecision.ts. */
  weights?: WeightPrecision;
  /**
   * KV cache storage (default f32): under f16, past_k/v and new_k/v are binary16 and the attention
   * reads them through a Cast to float32 (kvPrecision.ts). Absent for f32, so the default's cache
   * key is unchanged.
   */
  kvCache?: KvPrecision;
  /**
   * The integer path of int8 weights (weightPrecision.ts), chosen per instruction set. Absent for
   * 'block' (and for f32 weights), so those cache keys are unchanged.
   */
  int8Path?: Int8Path;
}

/**
 * Measured: onnxruntime fuses the plain RMSNorm pattern into SimplifiedLayerNormalization itself,
 * so both variants optimize to the same graph (same op counts, same speed); 'contrib' just skips
 * that fusion pass.
 */
export const DEFAULT_VARIANT: GraphVariant = { norm: 'contrib' };

export type ReadTensor = (name: string) => Float32Array;

function concatRows(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** RMSNorm over the last axis: x / sqrt(mean(x²) + eps) * w. */
export function rmsNorm(g: GraphBuilder, x: string, weight: string, eps: number, variant: GraphVariant): string {
  if (variant.norm === 'contrib') {
    return g.op1('SimplifiedLayerNormalization', [x, weight], { axis: -1, epsilon: { f: eps } });
  }
  const sq = g.op1('Pow', [x, g.constFloat([2])]);
  const mean = g.op1('ReduceMean', [sq], { axes: [-1], keepdims: 1 });
  const std = g.op1('Sqrt', [g.op1('Add', [mean, g.constFloat([eps])])]);
  return g.op1('Mul', [g.op1('Div', [x, std]), weight]);
}

/** HF rotate-half rotary embedding on [B,S,heads,D] with cos/sin [B,S,1,D/2]. */
function rotary(g: GraphBuilder, x: string, cos: string, sin: string, headDim: number): string {
  const half = g.constInt64([headDim / 2, headDim / 2]);
  const [x1, x2] = g.op('Split', [x, half], { axis: -1 }, 2);
  const r1 = g.op1('Sub', [g.op1('Mul', [x1, cos]), g.op1('Mul', [x2, sin])]);
  const r2 = g.op1('Add', [g.op1('Mul', [x2, cos]), g.op1('Mul', [x1, sin])]);
  return g.op1('Concat', [r1, r2], { axis: -1 });
}

export interface BlockGraphInput {
  config: ModelConfig;
  index: number;
  weights: BlockWeights;
  read: ReadTensor;
  data: ExternalDataFile;
  variant: GraphVariant;
}

/** Head size as stored in the KV cache: rounded up to GroupQueryAttention's multiple of 8. */
export function cacheHeadSize(headDim: number): number {
  return Math.ceil(headDim / 8) * 8;
}

export function buildBlockGraph({ config, index, weights: w, read, data, variant }: BlockGraphInput): Uint8Array {
  const H = config.hiddenSize;
  const D = config.headDim;
  const Dp = cacheHeadSize(D);
  const NH = config.numHeads;
  const KV = config.numKvHeads;
  const I = config.intermediateSize;
  const eps = config.rmsNormEps;
  const g = new GraphBuilder(`block_${index}`, data);

  const hidden = g.input('hidden', FLOAT, ['batch', 'seq', H]);
  const cos = g.input('cos', FLOAT, ['batch', 'seq', 1, D / 2]);
  const sin = g.input('sin', FLOAT, ['batch', 'seq', 1, D / 2]);
  // Our attention reads a mask built once per step; GroupQueryAttention (sliding window) the lengths.
  const window = config.slidingWindow;
  const half = variant.kvCache === 'f16';
  if (half && window !== undefined) throw new InputError('--kv-cache f16: not available for a model with a sliding window (its attention is onnxruntime\'s GroupQueryAttention, which reads a float32 cache); use --kv-cache f32');
  const KV_TYPE = half ? FLOAT16 : FLOAT;
  const pastK16 = g.input('past_k', KV_TYPE, ['batch', KV, 'capacity', Dp]);
  const pastV16 = g.input('past_v', KV_TYPE, ['batch', KV, 'capacity', Dp]);
  // The attention computes in float32 whatever the storage: an f16 cache is read through a Cast.
  const pastK = half ? g.op1('Cast', [pastK16], { to: FLOAT }) : pastK16;
  const pastV = half ? g.op1('Cast', [pastV16], { to: FLOAT }) : pastV16;
  const mask = window === undefined ? g.input('attn_mask', FLOAT, ['batch', 1, 1, 'seq', 'width']) : '';
  const seqlens = window === undefined ? '' : g.input('seqlens_k', INT32, ['batch']);
  const total = window === undefined ? '' : g.input('total_len', INT32, []);
  const mlpGate = g.input('mlp_gate', FLOAT, ['batch', 1, 1]);

  // Attention.
  const inNorm = g.weight('input_norm', read(w.inputNorm), [H]);
  const x1 = rmsNorm(g, hidden, inNorm, eps, variant);
  const qkvOut = (NH + 2 * KV) * D;
  const precision = variant.weights ?? 'f32';
  const int8Path = variant.int8Path ?? 'block';
  let qkv = linear(g, x1, 'w_qkv', concatRows([read(w.q), read(w.k), read(w.v)]), qkvOut, H, precision, int8Path);
  if (w.qBias && w.kBias && w.vBias) {
    const b = g.weight('b_qkv', concatRows([read(w.qBias), read(w.kBias), read(w.vBias)]), [qkvOut]);
    qkv = g.op1('Add', [qkv, b]);
  }
  let q: string;
  let k: string;
  let v: string;
  if (w.qNorm && w.kNorm) {
    const [q0, k0, v0] = g.op('Split', [qkv, g.constInt64([NH * D, KV * D, KV * D])], { axis: -1 }, 3);
    q = rmsNorm(g, g.op1('Reshape', [q0, g.constInt64([0, 0, NH, D])]), g.weight('q_norm', read(w.qNorm), [D]), eps, variant);
    k = rmsNorm(g, g.op1('Reshape', [k0, g.constInt64([0, 0, KV, D])]), g.weight('k_norm', read(w.kNorm), [D]), eps, variant);
    q = rotary(g, q, cos, sin, D);
    k = rotary(g, k, cos, sin, D);
    v = g.op1('Reshape', [v0, g.constInt64([0, 0, KV, D])]);
  } else {
    // One rotary over the query and key heads together: element-wise, so the same numbers as two,
    // in half the operators.
    const [qk0, v0] = g.op('Split', [qkv, g.constInt64([(NH + KV) * D, KV * D])], { axis: -1 }, 2);
    const qk = rotary(g, g.op1('Reshape', [qk0, g.constInt64([0, 0, NH + KV, D])]), cos, sin, D);
    [q, k] = g.op('Split', [qk, g.constInt64([NH, KV])], { axis: 2 }, 2);
    v = g.op1('Reshape', [v0, g.constInt64([0, 0, KV, D])]);
  }
  if (Dp !== D) {
    const pads = g.constInt64([0, 0, 0, 0, 0, 0, 0, Dp - D]);
    q = g.op1('Pad', [q, pads]);
    k = g.op1('Pad', [k, pads]);
    v = g.op1('Pad', [v, pads]);
  }
  const qFlat = g.op1('Reshape', [q, g.constInt64([0, 0, NH * Dp])]);
  let ctx: string;
  if (half) {
    // Stored as binary16 and read back through the same Cast as the cache, so this call's tokens
    // are seen at the precision they will be seen at from the cache (kvPrecision.ts).
    g.op('Cast', [g.op1('Reshape', [k, g.constInt64([0, 0, KV * Dp])])], { to: FLOAT16 }, ['new_k']);
    g.op('Cast', [g.op1('Reshape', [v, g.constInt64([0, 0, KV * Dp])])], { to: FLOAT16 }, ['new_v']);
  } else {
    g.op('Reshape', [k, g.constInt64([0, 0, KV * Dp])], {}, ['new_k']);
    g.op('Reshape', [v, g.constInt64([0, 0, KV * Dp])], {}, ['new_v']);
  }
  if (window === undefined) {
    const newK = half ? g.op1('Cast', ['new_k'], { to: FLOAT }) : 'new_k';
    const newV = half ? g.op1('Cast', ['new_v'], { to: FLOAT }) : 'new_v';
    ctx = groupedAttention(g, { q: qFlat, k: newK, v: newV, pastK, pastV, mask }, { numHeads: NH, kvHeads: KV, headSize: Dp, scale: 1 / Math.sqrt(D) });
  } else {
    // A sliding window (Mistral) keeps onnxruntime's GroupQueryAttention, which applies it. Both
    // transformers' `sliding_window` and onnxruntime's `local_window_size` count the keys a query
    // sees, its own included (measured against the float64 reference: window − 1 sees one too few).
    const gqaAttrs: Record<string, number | { f: number }> = { num_heads: NH, kv_num_heads: KV, scale: { f: 1 / Math.sqrt(D) }, local_window_size: window };
    // present_k/present_v are graph outputs so that a decode step can bind them to the past_k/past_v
    // buffers: onnxruntime's CPU attention then appends the new keys in place instead of clearing and
    // refilling a fresh present buffer of the whole capacity on every call (routeExecutor.ts).
    ctx = g.op('GroupQueryAttention', [qFlat, 'new_k', 'new_v', pastK16, pastV16, seqlens, total], gqaAttrs, ['attention', 'present_k', 'present_v'], 'com.microsoft')[0];
  }
  if (Dp !== D) {
    const heads = g.op1('Reshape', [ctx, g.constInt64([0, 0, NH, Dp])]);
    const cut = g.op1('Slice', [heads, g.constInt64([0]), g.constInt64([D]), g.constInt64([3])]);
    ctx = g.op1('Reshape', [cut, g.constInt64([0, 0, NH * D])]);
  }
  const h2 = g.op1('Add', [hidden, linear(g, ctx, 'w_o', read(w.o), H, NH * D, precision, int8Path)]);

  // MLP (SwiGLU), gated per sequence.
  const postNorm = g.weight('post_attention_norm', read(w.postAttentionNorm), [H]);
  const x2 = rmsNorm(g, h2, postNorm, eps, variant);
  const gateUp = linear(g, x2, 'w_gate_up', concatRows([read(w.gate), read(w.up)]), 2 * I, H, precision, int8Path);
  const [gate, up] = g.op('Split', [gateUp, g.constInt64([I, I])], { axis: -1 }, 2);
  const act = g.op1('Mul', [g.op1('Mul', [gate, g.op1('Sigmoid', [gate])]), up]);
  const mlp = g.op1('Mul', [linear(g, act, 'w_down', read(w.down), H, I, precision, int8Path), mlpGate]);
  g.op('Add', [h2, mlp], {}, ['hidden_out']);

  g.output('hidden_out', FLOAT, ['batch', 'seq', H]);
  g.output('new_k', KV_TYPE, ['batch', 'seq', KV * Dp]);
  g.output('new_v', KV_TYPE, ['batch', 'seq', KV * Dp]);
  if (window !== undefined) {
    g.output('present_k', FLOAT, ['batch', KV, 'present', Dp]);
    g.output('present_v', FLOAT, ['batch', KV, 'present', Dp]);
  }
  return g.toBytes();
}
