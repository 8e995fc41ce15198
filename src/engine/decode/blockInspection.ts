/**
 * One forward pass over a context under the default (identity) route that keeps, at the last
 * position, what each block adds to the residual stream: its attention output and its MLP output,
 * and the residual after it. The mechanism account (logit lens, direct attribution) is read from
 * these.
 *
 * No new graph: every block is called with two rows of the same input, one with the MLP gate open
 * and one with it closed (the gate input the repair scan uses). The closed row's output is
 * hidden + attention, so attention = closed − hidden and MLP = open − closed. Rows of a call do not
 * depend on their batch-mates (blockGraph.ts, batch invariance), so the open row is exactly the
 * deployed forward pass and the generation graphs are the same graphs, untouched. The cost is twice
 * the rows of one prefill, once per question, only when asked.
 *
 * The head graph (final norm + unembedding) gives the lens: each block's residual through it. It
 * also gives direct attributions without reading the unembedding into JavaScript: for a component
 * c the head computes (c ⊙ w / rms(c)) · u, where rms(x) = sqrt(mean(x²) + eps); multiplying by
 * rms(c) and dividing by rms(h_L) gives (c ⊙ w / rms(h_L)) · u, the component's contribution with
 * the final norm's scale frozen at the last block's residual (docs/design/repair-and-mechanism.md, mechanism). With that
 * scale frozen the contributions of the embedding, every attention and every MLP sum to the last
 * block's logits.
 */
import * as ort from 'onnxruntime-node';
import type { ModelConfig } from '../checkpoint/config';
import type { EmbeddingTable } from '../checkpoint/embeddingTable';
import { cacheHeadSize } from '../graphs/blockGraph';
import { buildAttentionMask } from '../graphs/attentionMask';
import { NonFiniteActivations, firstNonFinite, nonFiniteName } from './nonFiniteActivations';

export interface InspectionParts {
  config: ModelConfig;
  embedding: EmbeddingTable;
  blocks: readonly ort.InferenceSession[];
  head: ort.InferenceSession;
  invFreq: Float64Array;
}

/** What each block did at the last position of a context, under the identity route. */
export interface BlockInspection {
  numBlocks: number;
  vocabSize: number;
  /** Logit-lens logits after each block ([L] rows of V): the residual through the final norm and the unembedding. The last row is the model's own logits. */
  lens: Float32Array[];
  /**
   * Direct logits of each component ([V] each) with the final norm's scale frozen at the last
   * block's residual: the token embedding, then per block its attention and its MLP output.
   */
  direct: { embedding: Float32Array; attention: Float32Array[]; mlp: Float32Array[] };
  /** The residual stream at the last position after each block ([L] rows of H). */
  residual: Float32Array[];
  /** Each block's attention output and MLP output at the last position ([L] rows of H each). */
  attention: Float32Array[];
  mlp: Float32Array[];
  /** The token embedding at the last position. */
  embeddingRow: Float32Array;
}

/** sqrt(mean(x²) + eps): the denominator the final RMSNorm divides by. */
export function normScale(x: Float32Array, eps: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i];
  return Math.sqrt(s / x.length + eps);
}

export async function inspectBlocks(parts: InspectionParts, ids: readonly number[]): Promise<BlockInspection> {
  const { config } = parts;
  const H = config.hiddenSize;
  const V = config.vocabSize;
  const L = config.numBlocks;
  const KV = config.numKvHeads;
  const Dp = cacheHeadSize(config.headDim);
  const half = config.headDim / 2;
  const T = ids.length;
  if (T === 0) throw new Error('inspection: empty context');

  // The same rotary tables and (empty) past for both rows: positions 0..T-1.
  const cos = new Float32Array(2 * T * half);
  const sin = new Float32Array(2 * T * half);
  for (let t = 0; t < T; t++) {
    for (let f = 0; f < half; f++) {
      const angle = t * parts.invFreq[f];
      cos[t * half + f] = cos[(T + t) * half + f] = Math.cos(angle);
      sin[t * half + f] = sin[(T + t) * half + f] = Math.sin(angle);
    }
  }
  const past = new Float32Array(2 * KV * 1 * Dp);
  const rows = [{ past: 0, fresh: T }, { past: 0, fresh: T }];
  const gate = Float32Array.from([1, 0]);

  let hidden = parts.embedding.lookup(ids);
  const embeddingRow = hidden.slice((T - 1) * H, T * H);
  const residual: Float32Array[] = [];
  const attention: Float32Array[] = [];
  const mlp: Float32Array[] = [];
  for (let b = 0; b < L; b++) {
    const session = parts.blocks[b];
    const both = new Float32Array(2 * T * H);
    both.set(hidden, 0);
    both.set(hidden, T * H);
    const feeds: Record<string, ort.Tensor> = {
      hidden: new ort.Tensor('float32', both, [2, T, H]),
      cos: new ort.Tensor('float32', cos, [2, T, 1, half]),
      sin: new ort.Tensor('float32', sin, [2, T, 1, half]),
      past_k: new ort.Tensor('float32', past, [2, KV, 1, Dp]),
      past_v: new ort.Tensor('float32', past, [2, KV, 1, Dp]),
      mlp_gate: new ort.Tensor('float32', gate, [2, 1, 1]),
    };
    if (session.inputNames.includes('attn_mask')) {
      feeds.attn_mask = new ort.Tensor('float32', buildAttentionMask(rows, T, 1), [2, 1, 1, T, 1 + T]);
    } else {
      feeds.seqlens_k = new ort.Tensor('int32', Int32Array.from([T - 1, T - 1]), [2]);
      feeds.total_len = new ort.Tensor('int32', Int32Array.from([T]), []);
    }
    const out = await session.run(feeds, ['hidden_out']);
    const h = out.hidden_out.data as Float32Array;
    const bad = firstNonFinite(h, 0, 2 * T * H);
    if (bad >= 0) throw new NonFiniteActivations(`block ${b} produced ${nonFiniteName(h[bad])} during inspection`);
    const open = h.subarray((T - 1) * H, T * H);
    const closed = h.subarray((2 * T - 1) * H, 2 * T * H);
    const before = hidden.subarray((T - 1) * H, T * H);
    const a = new Float32Array(H);
    const m = new Float32Array(H);
    for (let i = 0; i < H; i++) {
      a[i] = closed[i] - before[i];
      m[i] = open[i] - closed[i];
    }
    residual.push(open.slice());
    attention.push(a);
    mlp.push(m);
    hidden = h.slice(0, T * H);
  }

  // One head call for the lens rows and the component rows.
  const components = [embeddingRow, ...attention, ...mlp];
  const all = [...residual, ...components];
  const batch = new Float32Array(all.length * H);
  all.forEach((r, i) => batch.set(r, i * H));
  const out = await parts.head.run({ hidden: new ort.Tensor('float32', batch, [all.length, H]) });
  const logits = out.logits.data as Float32Array;
  const bad = firstNonFinite(logits, 0, all.length * V);
  if (bad >= 0) throw new NonFiniteActivations(`the head produced ${nonFiniteName(logits[bad])} during inspection`);
  const row = (i: number): Float32Array => logits.slice(i * V, (i + 1) * V);
  const lens = residual.map((_, i) => row(i));
  const eps = config.rmsNormEps;
  const frozen = normScale(residual[L - 1], eps);
  const direct = components.map((c, j) => {
    const r = row(L + j);
    const k = normScale(c, eps) / frozen;
    for (let v = 0; v < V; v++) r[v] *= k;
    return r;
  });
  return {
    numBlocks: L,
    vocabSize: V,
    lens,
    direct: { embedding: direct[0], attention: direct.slice(1, 1 + L), mlp: direct.slice(1 + L) },
    residual,
    attention,
    mlp,
    embeddingRow,
  };
}
