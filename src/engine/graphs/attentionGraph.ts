/**
 * Grouped-query attention over the preallocated KV cache, built from standard ONNX operators.
 *
 * Why not onnxruntime's GroupQueryAttention: its CPU kernel runs one GEMM per query head with the
 * head's keys transposed and packed each time (gqa_attention_base.h), so the 7 query heads of a
 * Qwen2.5-0.5B key head pack the same keys 7 times. Measured on that shape, batch 1, one layer:
 * 0.72 ms per call at 100 past tokens and 0.96 ms at 2,000, against 0.16 and 0.23 ms here (24
 * layers: ≈ 13 ms of a 50 ms decode step). Here the G query heads of a key head and the S new
 * tokens are the M = G·S rows of one GEMM, so each key head's cache is read once per call.
 *
 * Batch invariance (a sequence's numbers must not depend on its batch-mates or on the capacity of
 * the buffer its cache sits in, see blockGraph.ts): slots beyond a sequence's past are masked to
 * -inf, so they enter the softmax as exact zeros; MLAS's softmax sums each position in the same
 * lane whatever the row length, and the probability-times-value GEMM accumulates over the slots in
 * order, so trailing zeros change no bit. Checked bit for bit (a row alone at its own capacity vs
 * in a batch at up to 32× the capacity, 800 random cases) and by the engine's batch tests. A
 * plain Exp/ReduceSum softmax was not invariant (its tail elements take another code path).
 *
 * The cache's scores are computed as K·rowsᵀ ([C, G·S] per key head) and then transposed, not as
 * rows·Kᵀ: onnxruntime fuses a Transpose of past_k into the GEMM (FusedMatMul, transB), and MLAS
 * then packs the whole key cache transposed on every call (profiled at 16k slots, batch 1: that
 * GEMM took about 2.5× the probability-times-value GEMM over as many values). With the cache as
 * the GEMM's A it is read in place and only the G·S query rows are packed; the transpose after
 * moves G·S scores per slot (7 on the Qwen2.5-0.5B shape) against Dp key floats. Every score is
 * the same chain of Dp fused multiply-adds in the same order, scaled the same way, so no bit moves
 * (checked on block outputs, old graph vs new, and on the demo's records).
 *
 * Inputs: q [B,S,NH·Dp], k/v [B,S,KV·Dp] (this call's, after rotary), past_k/v [B,KV,C,Dp], and
 * mask [B,1,1,S,C+S]: 0 where query s of sequence b may look (a slot of its own past, or one of
 * its own new tokens up to s), -inf elsewhere. The executor builds the mask once for all the
 * blocks of a step (attentionMask.ts): built in each block graph from the lengths it took 23 of
 * the graph's 90 operators, each with its own dispatch and allocation. Output [B,S,NH·Dp].
 */
import type { GraphBuilder } from './graphBuilder';

export interface AttentionInputs {
  q: string;
  k: string;
  v: string;
  pastK: string;
  pastV: string;
  mask: string;
}

export interface AttentionShape {
  numHeads: number;
  kvHeads: number;
  /** Head size as stored (padded to a multiple of 8). */
  headSize: number;
  scale: number;
}

export function groupedAttention(g: GraphBuilder, x: AttentionInputs, shape: AttentionShape): string {
  const { numHeads: NH, kvHeads: KV, headSize: Dp, scale } = shape;
  const G = NH / KV;
  const C = g.op1('Shape', [x.pastK], { start: 2, end: 3 }); // [C]
  const S = g.op1('Shape', [x.q], { start: 1, end: 2 }); // [S]

  // Queries as [B,KV,G·S,Dp]: head h = kv·G + g, row g·S + s.
  const q5 = g.op1('Reshape', [x.q, g.constInt64([0, 0, KV, G, Dp])]);
  const rows = g.op1('Reshape', [g.op1('Transpose', [q5], { perm: [0, 2, 3, 1, 4] }), g.constInt64([0, KV, -1, Dp])]);
  const k4 = g.op1('Reshape', [x.k, g.constInt64([0, 0, KV, Dp])]);
  const v4 = g.op1('Reshape', [x.v, g.constInt64([0, 0, KV, Dp])]);
  const scaleC = g.constFloat([scale]);
  // Scaled before the concatenation: onnxruntime folds the scale into each product's GEMM.
  // The cache's scores as K·rowsᵀ ([B,KV,C,G·S]), then transposed (see above).
  const pastScoresByKey = g.op1('Mul', [g.op1('MatMul', [x.pastK, g.op1('Transpose', [rows], { perm: [0, 1, 3, 2] })]), scaleC]);
  const pastScores = g.op1('Transpose', [pastScoresByKey], { perm: [0, 1, 3, 2] });
  const newScores = g.op1('Mul', [g.op1('MatMul', [rows, g.op1('Transpose', [k4], { perm: [0, 2, 3, 1] })]), scaleC]);
  const scores = g.op1('Concat', [pastScores, newScores], { axis: -1 }); // [B,KV,G·S,C+S]
  // [B,KV,G,S,C+S], so that the [B,1,1,S,C+S] mask applies to every query head of the group.
  const perQuery = g.op1('Reshape', [scores, g.op1('Concat', [g.constInt64([0, 0, G]), g.op1('Shape', [x.mask], { start: 3 })], { axis: 0 })]);
  const probs = g.op1('Reshape', [g.op1('Softmax', [g.op1('Add', [perQuery, x.mask])], { axis: -1 }), g.op1('Shape', [scores])]);
  const [pastProbs, newProbs] = g.op('Split', [probs, g.op1('Concat', [C, S], { axis: 0 })], { axis: -1 }, 2);
  const context = g.op1('Add', [g.op1('MatMul', [pastProbs, x.pastV]), g.op1('MatMul', [newProbs, g.op1('Transpose', [v4], { perm: [0, 2, 1, 3] })])]);
  // [B,KV,G·S,Dp] -> [B,S,NH·Dp]
  const heads = g.op1('Transpose', [g.op1('Reshape', [context, g.constInt64([0, KV, G, -1, Dp])])], { perm: [0, 3, 1, 2, 4] });
  return g.op1('Reshape', [heads, g.constInt64([0, 0, NH * Dp])]);
}
