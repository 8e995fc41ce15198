/**
 * Independent float64 reference of the Llama / Mistral / Qwen2 / Qwen3 decoder forward pass, for
 * holding the engine to Hugging Face semantics. Plain loops, full recomputation, no KV cache, no
 * padding, no imports from src/. Reads the model folder itself (config.json + safetensors).
 *
 * Semantics (HF transformers):
 *   block(x):  h = RMSNorm_in(x); attn over h (q/k/v proj [+bias Qwen2], [q/k RMSNorm per head Qwen3],
 *              RoPE rotate_half, GQA, causal softmax / sqrt(head_dim)); x = x + o_proj(attn)
 *              h = RMSNorm_post(x); x = x + down(silu(gate(h)) * up(h))   (MLP term dropped when silenced)
 *   logits = lm_head(RMSNorm_final(x))  (lm_head = embed_tokens when tied)
 * A route is the list of blocks applied in order; every position is an independent application.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ReadTensor, readModelWeights } from './safetensorsReader';

export interface LlamaRopeScaling {
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalMaxPositionEmbeddings: number;
}

export interface ReferenceConfig {
  architecture: string;
  hiddenSize: number;
  intermediateSize: number;
  numBlocks: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: LlamaRopeScaling | null;
  vocabSize: number;
  tieWordEmbeddings: boolean;
  /** Mistral: attention sees the last `slidingWindow` positions only. */
  slidingWindow?: number;
}

export interface RouteOptions {
  route?: number[];
  silencedMlp?: number[];
  /**
   * A vector added to the residual stream right after the first application of `block`: at token
   * t, `vector(t, residual)` (null: nothing added there), before any later block reads it.
   */
  addAfter?: { block: number; vector(t: number, residual: Float64Array): Float64Array | null };
}

const ARCHITECTURES = ['LlamaForCausalLM', 'MistralForCausalLM', 'Qwen2ForCausalLM', 'Qwen3ForCausalLM'];

/** x * 1/sqrt(mean(x^2) + eps) * w, over one vector. */
export function rmsNorm(x: Float64Array, w: Float64Array, eps: number): Float64Array {
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += x[i] * x[i];
  const scale = 1 / Math.sqrt(ss / x.length + eps);
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] * scale * w[i];
  return out;
}

/** RoPE inverse frequencies theta^(-2i/d), i < d/2, with Llama-3 frequency adjustment when given. */
export function ropeInverseFrequencies(headDim: number, theta: number, scaling: LlamaRopeScaling | null): Float64Array {
  const half = headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / Math.pow(theta, (2 * i) / headDim);
  if (!scaling) return inv;
  const { factor, lowFreqFactor, highFreqFactor, originalMaxPositionEmbeddings: oldLen } = scaling;
  const lowFreqWavelen = oldLen / lowFreqFactor;
  const highFreqWavelen = oldLen / highFreqFactor;
  for (let i = 0; i < half; i++) {
    const wavelen = (2 * Math.PI) / inv[i];
    if (wavelen < highFreqWavelen) continue; // high frequency: unchanged
    if (wavelen > lowFreqWavelen) {
      inv[i] = inv[i] / factor; // low frequency: scaled down
      continue;
    }
    const smooth = (oldLen / wavelen - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
    inv[i] = ((1 - smooth) * inv[i]) / factor + smooth * inv[i];
  }
  return inv;
}

/** rotate_half RoPE of one head vector at a position: pairs (i, i + d/2). */
export function applyRope(v: Float64Array, position: number, invFreq: Float64Array): Float64Array {
  const half = invFreq.length;
  const out = new Float64Array(v.length);
  for (let i = 0; i < half; i++) {
    const angle = position * invFreq[i];
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    out[i] = v[i] * c - v[i + half] * s;
    out[i + half] = v[i + half] * c + v[i] * s;
  }
  return out;
}

/**
 * Causal softmax attention of one head: q[t], k[t], v[t] per position; output[t] =
 * sum_{j<=t} softmax_j(q[t].k[j] / sqrt(d)) v[j]. With a sliding window w (Mistral), only the
 * last w keys take part: t - w < j <= t (as transformers masks j <= t - w).
 */
export function causalAttention(q: Float64Array[], k: Float64Array[], v: Float64Array[], window = Infinity): Float64Array[] {
  const d = q[0].length;
  const scale = 1 / Math.sqrt(d);
  const out: Float64Array[] = [];
  for (let t = 0; t < q.length; t++) {
    const first = Math.max(0, t - window + 1);
    const scores = new Float64Array(t + 1).fill(-Infinity);
    let max = -Infinity;
    for (let j = first; j <= t; j++) {
      let s = 0;
      for (let i = 0; i < d; i++) s += q[t][i] * k[j][i];
      scores[j] = s * scale;
      if (scores[j] > max) max = scores[j];
    }
    let sum = 0;
    for (let j = first; j <= t; j++) {
      scores[j] = Math.exp(scores[j] - max);
      sum += scores[j];
    }
    const o = new Float64Array(v[0].length);
    for (let j = first; j <= t; j++) {
      const p = scores[j] / sum;
      for (let i = 0; i < o.length; i++) o[i] += p * v[j][i];
    }
    out.push(o);
  }
  return out;
}

/** y = W x (+ b) with W stored [out, in] row-major (HF Linear). */
export function linear(w: Float64Array, outDim: number, x: Float64Array, b?: Float64Array): Float64Array {
  const inDim = x.length;
  if (w.length !== outDim * inDim) throw new Error(`linear: weight has ${w.length} values, expected ${outDim}x${inDim}`);
  const y = new Float64Array(outDim);
  for (let o = 0; o < outDim; o++) {
    let s = b ? b[o] : 0;
    const row = o * inDim;
    for (let i = 0; i < inDim; i++) s += w[row + i] * x[i];
    y[o] = s;
  }
  return y;
}

export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}

function num(config: Record<string, unknown>, key: string, fallback?: number): number {
  const v = config[key];
  if (typeof v === 'number') return v;
  if (fallback !== undefined) return fallback;
  throw new Error(`config.json: missing number ${key}`);
}

export function parseReferenceConfig(config: Record<string, unknown>): ReferenceConfig {
  const architecture = (config.architectures as string[] | undefined)?.[0] ?? '';
  if (!ARCHITECTURES.includes(architecture)) throw new Error(`reference: unsupported architecture ${architecture}`);
  const hiddenSize = num(config, 'hidden_size');
  const numHeads = num(config, 'num_attention_heads');
  const rs = config.rope_scaling as Record<string, unknown> | null | undefined;
  let ropeScaling: LlamaRopeScaling | null = null;
  if (rs) {
    const type = rs.rope_type ?? rs.type;
    if (type !== 'llama3') throw new Error(`reference: unsupported rope_scaling type ${String(type)}`);
    ropeScaling = {
      factor: num(rs, 'factor'),
      lowFreqFactor: num(rs, 'low_freq_factor'),
      highFreqFactor: num(rs, 'high_freq_factor'),
      originalMaxPositionEmbeddings: num(rs, 'original_max_position_embeddings'),
    };
  }
  return {
    architecture,
    hiddenSize,
    intermediateSize: num(config, 'intermediate_size'),
    numBlocks: num(config, 'num_hidden_layers'),
    numHeads,
    numKvHeads: num(config, 'num_key_value_heads', numHeads),
    headDim: typeof config.head_dim === 'number' ? config.head_dim : hiddenSize / numHeads,
    rmsNormEps: num(config, 'rms_norm_eps', 1e-6),
    ropeTheta: num(config, 'rope_theta', 10000),
    ropeScaling,
    vocabSize: num(config, 'vocab_size'),
    tieWordEmbeddings: config.tie_word_embeddings === true,
    ...(architecture === 'MistralForCausalLM' && typeof config.sliding_window === 'number' ? { slidingWindow: config.sliding_window } : {}),
  };
}

export class ReferenceModel {
  readonly numBlocks: number;
  readonly vocabSize: number;
  private readonly invFreq: Float64Array;

  private constructor(
    readonly config: ReferenceConfig,
    private readonly weights: Map<string, ReadTensor>,
  ) {
    this.numBlocks = config.numBlocks;
    this.vocabSize = config.vocabSize;
    this.invFreq = ropeInverseFrequencies(config.headDim, config.ropeTheta, config.ropeScaling);
  }

  static load(dir: string): ReferenceModel {
    const config = parseReferenceConfig(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')));
    return new ReferenceModel(config, readModelWeights(dir));
  }

  private w(name: string, shape: number[]): Float64Array {
    const t = this.weights.get(name);
    if (!t) throw new Error(`reference: missing tensor ${name}`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      throw new Error(`reference: ${name} has shape [${t.shape}], expected [${shape}]`);
    }
    return t.data;
  }

  private block(x: Float64Array[], l: number, silenced: boolean): Float64Array[] {
    const c = this.config;
    const H = c.hiddenSize;
    const hd = c.headDim;
    const p = `model.layers.${l}`;
    const qw = this.w(`${p}.self_attn.q_proj.weight`, [c.numHeads * hd, H]);
    const kw = this.w(`${p}.self_attn.k_proj.weight`, [c.numKvHeads * hd, H]);
    const vw = this.w(`${p}.self_attn.v_proj.weight`, [c.numKvHeads * hd, H]);
    const ow = this.w(`${p}.self_attn.o_proj.weight`, [H, c.numHeads * hd]);
    const qwen2 = c.architecture === 'Qwen2ForCausalLM';
    const qwen3 = c.architecture === 'Qwen3ForCausalLM';
    const qb = qwen2 ? this.w(`${p}.self_attn.q_proj.bias`, [c.numHeads * hd]) : undefined;
    const kb = qwen2 ? this.w(`${p}.self_attn.k_proj.bias`, [c.numKvHeads * hd]) : undefined;
    const vb = qwen2 ? this.w(`${p}.self_attn.v_proj.bias`, [c.numKvHeads * hd]) : undefined;
    const qn = qwen3 ? this.w(`${p}.self_attn.q_norm.weight`, [hd]) : undefined;
    const kn = qwen3 ? this.w(`${p}.self_attn.k_norm.weight`, [hd]) : undefined;
    const T = x.length;

    // q/k/v per position, split into heads, q/k normed (Qwen3) then rotated.
    const qs: Float64Array[][] = Array.from({ length: c.numHeads }, () => []);
    const ks: Float64Array[][] = Array.from({ length: c.numKvHeads }, () => []);
    const vs: Float64Array[][] = Array.from({ length: c.numKvHeads }, () => []);
    for (let t = 0; t < T; t++) {
      const h = rmsNorm(x[t], this.w(`${p}.input_layernorm.weight`, [H]), c.rmsNormEps);
      const q = linear(qw, c.numHeads * hd, h, qb);
      const k = linear(kw, c.numKvHeads * hd, h, kb);
      const v = linear(vw, c.numKvHeads * hd, h, vb);
      for (let a = 0; a < c.numHeads; a++) {
        let qh: Float64Array = q.slice(a * hd, (a + 1) * hd);
        if (qn) qh = rmsNorm(qh, qn, c.rmsNormEps);
        qs[a].push(applyRope(qh, t, this.invFreq));
      }
      for (let a = 0; a < c.numKvHeads; a++) {
        let kh: Float64Array = k.slice(a * hd, (a + 1) * hd);
        if (kn) kh = rmsNorm(kh, kn, c.rmsNormEps);
        ks[a].push(applyRope(kh, t, this.invFreq));
        vs[a].push(v.slice(a * hd, (a + 1) * hd));
      }
    }
    const group = c.numHeads / c.numKvHeads;
    const heads: Float64Array[][] = [];
    for (let a = 0; a < c.numHeads; a++) {
      const kv = Math.floor(a / group);
      heads.push(causalAttention(qs[a], ks[kv], vs[kv], c.slidingWindow ?? Infinity));
    }
    const out: Float64Array[] = [];
    for (let t = 0; t < T; t++) {
      const cat = new Float64Array(c.numHeads * hd);
      for (let a = 0; a < c.numHeads; a++) cat.set(heads[a][t], a * hd);
      const o = linear(ow, H, cat);
      const r = new Float64Array(H);
      for (let i = 0; i < H; i++) r[i] = x[t][i] + o[i];
      if (!silenced) {
        const h2 = rmsNorm(r, this.w(`${p}.post_attention_layernorm.weight`, [H]), c.rmsNormEps);
        const I = c.intermediateSize;
        const g = linear(this.w(`${p}.mlp.gate_proj.weight`, [I, H]), I, h2);
        const u = linear(this.w(`${p}.mlp.up_proj.weight`, [I, H]), I, h2);
        for (let i = 0; i < I; i++) g[i] = silu(g[i]) * u[i];
        const d = linear(this.w(`${p}.mlp.down_proj.weight`, [H, I]), H, g);
        for (let i = 0; i < H; i++) r[i] += d[i];
      }
      out.push(r);
    }
    return out;
  }

  private checkOptions(ids: number[], opts: RouteOptions): number[] {
    const route = opts.route ?? Array.from({ length: this.numBlocks }, (_, i) => i);
    for (const b of [...route, ...(opts.silencedMlp ?? [])]) {
      if (!Number.isInteger(b) || b < 0 || b >= this.numBlocks) throw new Error(`reference: block ${b} out of range`);
    }
    if (ids.length === 0) throw new Error('reference: empty input');
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) throw new Error(`reference: token id ${id} out of range`);
    }
    return route;
  }

  /** Logits at every position (positions 0..n-1). */
  logits(ids: number[], opts: RouteOptions = {}): Float64Array[] {
    const c = this.config;
    const H = c.hiddenSize;
    const route = this.checkOptions(ids, opts);
    const silenced = new Set(opts.silencedMlp ?? []);
    const embed = this.w('model.embed_tokens.weight', [c.vocabSize, H]);
    let x: Float64Array[] = ids.map((id) => embed.slice(id * H, (id + 1) * H));
    const add = opts.addAfter;
    const addAt = add ? route.indexOf(add.block) : -1;
    route.forEach((l, p) => {
      x = this.block(x, l, silenced.has(l));
      if (p !== addAt || !add) return;
      x = x.map((r, t) => {
        const v = add.vector(t, r);
        return v ? r.map((value, i) => value + v[i]) : r;
      });
    });
    const head = c.tieWordEmbeddings ? embed : this.w('lm_head.weight', [c.vocabSize, H]);
    const normW = this.w('model.norm.weight', [H]);
    return x.map((v) => linear(head, c.vocabSize, rmsNorm(v, normW, c.rmsNormEps)));
  }

  lastLogits(ids: number[], opts: RouteOptions = {}): Float64Array {
    const all = this.logits(ids, opts);
    return all[all.length - 1];
  }

  /**
   * The residual stream at the last position before any block (the embedding) and after each
   * block of the identity route, with each block's attention and MLP outputs there: a block run
   * with its MLP silenced gives residual + attention, computed by this file's own float64 block.
   */
  blockTrace(ids: number[]): { embedding: Float64Array; residual: Float64Array[]; attention: Float64Array[]; mlp: Float64Array[] } {
    const c = this.config;
    const H = c.hiddenSize;
    this.checkOptions(ids, {});
    const embed = this.w('model.embed_tokens.weight', [c.vocabSize, H]);
    let x: Float64Array[] = ids.map((id) => embed.slice(id * H, (id + 1) * H));
    const T = ids.length;
    const out = { embedding: x[T - 1], residual: [] as Float64Array[], attention: [] as Float64Array[], mlp: [] as Float64Array[] };
    for (let l = 0; l < this.numBlocks; l++) {
      const mid = this.block(x, l, true);
      const next = this.block(x, l, false);
      out.attention.push(mid[T - 1].map((v, i) => v - x[T - 1][i]));
      out.mlp.push(next[T - 1].map((v, i) => v - mid[T - 1][i]));
      out.residual.push(next[T - 1]);
      x = next;
    }
    return out;
  }

  /** The final norm and the unembedding of one residual vector (the logit lens). */
  lensLogits(v: Float64Array): Float64Array {
    const c = this.config;
    const H = c.hiddenSize;
    const embed = this.w('model.embed_tokens.weight', [c.vocabSize, H]);
    const head = c.tieWordEmbeddings ? embed : this.w('lm_head.weight', [c.vocabSize, H]);
    return linear(head, c.vocabSize, rmsNorm(v, this.w('model.norm.weight', [H]), c.rmsNormEps));
  }

  /** u_t · (v ⊙ w) / scale for every token t: a component's logits with the final norm's denominator fixed at `scale`. */
  frozenNormLogits(v: Float64Array, scale: number): Float64Array {
    const c = this.config;
    const H = c.hiddenSize;
    const embed = this.w('model.embed_tokens.weight', [c.vocabSize, H]);
    const head = c.tieWordEmbeddings ? embed : this.w('lm_head.weight', [c.vocabSize, H]);
    const w = this.w('model.norm.weight', [H]);
    return linear(head, c.vocabSize, v.map((x, i) => (x * w[i]) / scale));
  }

  /** sqrt(mean(v²) + eps): the final norm's denominator for v. */
  normScale(v: Float64Array): number {
    let s = 0;
    for (const x of v) s += x * x;
    return Math.sqrt(s / v.length + this.config.rmsNormEps);
  }

  /**
   * Greedy decoding by full recomputation at each step (ties go to the lower id). Returns the
   * generated ids, including the eos id when one is produced.
   */
  greedy(ids: number[], maxNewTokens: number, opts: RouteOptions & { eosIds?: number[] } = {}): number[] {
    const seq = [...ids];
    const out: number[] = [];
    const eos = new Set(opts.eosIds ?? []);
    for (let step = 0; step < maxNewTokens; step++) {
      const next = argmax(this.lastLogits(seq, opts));
      out.push(next);
      seq.push(next);
      if (eos.has(next)) break;
    }
    return out;
  }
}

export function argmax(v: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

/** max_i |a_i - b_i| / max_i |b_i|: the relative error measure used by the engine tests. */
export function maxRelativeDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < b.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return diff / (scale || 1);
}
