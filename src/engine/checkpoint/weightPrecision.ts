/**
 * How a projection's weights are stored and multiplied: F32 MatMul, or int8 through one of two
 * integer paths, chosen per instruction set (platform/int8Path.ts):
 *
 * - 'block': 8-bit weights with one F32 scale per block of 32 input weights (symmetric: q =
 *   round(w / scale), scale = max|w| / 127, the layout of llama.cpp's Q8_0) through onnxruntime's
 *   MatMulNBits with int8 compute (accuracy_level 4: the activations are quantized per block too).
 *   The fastest path where MLAS has int8 dot-product instructions (AVX-512 VNNI, AVX-VNNI, AMX, Arm
 *   dot-product): measured on AVX-512 VNNI it beat DynamicQuantizeMatMul and F32-compute MatMulNBits
 *   at 1 and 16 rows.
 * - 'row': 7-bit weights (|q| ≤ 63) with one scale per output, activations quantized per row to u8
 *   around 128, products by MatMulInteger (MLAS's U8S8 QGEMM), the exact int32 sums then scaled in
 *   F32. On AVX2 without VNNI, MatMulNBits' int8 compute is no faster than F32 at 16 rows while
 *   U8S8 QGEMM is 1.7-3.0x faster (tools/engine/int8Kernels.ts). The weights keep 7 bits because
 *   AVX2's u8·s8 pair sums (vpmaddubsw) saturate int16 with 8-bit weights (255 · 127 · 2 > 32,767)
 *   and cannot with 7 (255 · 63 · 2 < 32,767). Each row's scale is its own, and integer sums do
 *   not depend on their order, so a sequence's numbers never depend on its batch.
 */
import { InputError } from '../../common';
import { FLOAT, type GraphBuilder, INT8, UINT8 } from '../graphs/graphBuilder';

export type WeightPrecision = 'f32' | 'int8';

/** Which integer path int8 weights take (see above; chosen per instruction set by platform/int8Path.ts). */
export type Int8Path = 'block' | 'row';

export const WEIGHT_PRECISIONS: readonly WeightPrecision[] = ['f32', 'int8'];

/** The value of `--weights` (undefined when not given: f32); anything else names the flag. */
export function parseWeightPrecision(value: string | undefined): WeightPrecision | undefined {
  if (value === undefined) return undefined;
  if (!(WEIGHT_PRECISIONS as readonly string[]).includes(value)) throw new InputError(`--weights: expected one of ${WEIGHT_PRECISIONS.join(', ')}, got '${value}'`);
  return value as WeightPrecision;
}

/** Input weights per scale. */
export const INT8_BLOCK = 32;

/**
 * Quantizes W given as [N, K] row-major (Hugging Face [out, in]) into MatMulNBits' layout: per
 * output n, ceil(K / 32) blocks of 32 bytes (value + 128; the zero point is 128 when none is
 * given), and the scales [N · blocks].
 */
export function quantizeInt8(w: Float32Array, N: number, K: number): { data: Uint8Array; scales: Float32Array } {
  const blocks = Math.ceil(K / INT8_BLOCK);
  const data = new Uint8Array(N * blocks * INT8_BLOCK).fill(128);
  const scales = new Float32Array(N * blocks);
  for (let n = 0; n < N; n++) {
    const row = n * K;
    for (let b = 0; b < blocks; b++) {
      const from = b * INT8_BLOCK;
      const to = Math.min(K, from + INT8_BLOCK);
      let max = 0;
      for (let k = from; k < to; k++) max = Math.max(max, Math.abs(w[row + k]));
      const scale = max / 127;
      scales[n * blocks + b] = scale;
      if (scale === 0) continue;
      const out = (n * blocks + b) * INT8_BLOCK;
      for (let k = from; k < to; k++) data[out + k - from] = Math.max(-127, Math.min(127, Math.round(w[row + k] / scale))) + 128;
    }
  }
  return { data, scales };
}

/** [N, K] row-major → [K, N] row-major. */
function transposed(w: Float32Array, N: number, K: number): Float32Array {
  const out = new Float32Array(N * K);
  for (let n = 0; n < N; n++) {
    const base = n * K;
    for (let k = 0; k < K; k++) out[k * N + n] = w[base + k];
  }
  return out;
}

/** Largest |q| of the row path's weights: 7 bits, so AVX2's u8·s8 pair sums cannot saturate int16. */
export const ROW_PATH_MAX_Q = 63;

/**
 * The row path's weights: W [N, K] → s8 [K, N] (MatMulInteger's B) with one symmetric scale per
 * output n (max|w[n, ·]| / 63).
 */
export function quantizeRowPath(w: Float32Array, N: number, K: number, maxQ = ROW_PATH_MAX_Q): { data: Int8Array; scales: Float32Array } {
  const data = new Int8Array(K * N);
  const scales = new Float32Array(N);
  for (let n = 0; n < N; n++) {
    const row = n * K;
    let max = 0;
    for (let k = 0; k < K; k++) max = Math.max(max, Math.abs(w[row + k]));
    const scale = max / maxQ;
    scales[n] = scale;
    if (scale === 0) continue;
    for (let k = 0; k < K; k++) data[k * N + n] = Math.max(-maxQ, Math.min(maxQ, Math.round(w[row + k] / scale)));
  }
  return { data, scales };
}

/**
 * x [.., K] (quantized per row on the last axis) times the row path's weights → [.., N]. `maxQ`
 * other than 63 only for tools/engine/int8Kernels.ts, which measures what 8 bits would give.
 */
export function rowPathLinear(g: GraphBuilder, x: string, name: string, w: Float32Array, N: number, K: number, maxQ = ROW_PATH_MAX_Q): string {
  const { data, scales } = quantizeRowPath(w, N, K, maxQ);
  const q = g.typedWeight(`${name}_q7`, INT8, new Uint8Array(data.buffer), [K, N]);
  const s = g.typedWeight(`${name}_scales`, FLOAT, new Uint8Array(scales.buffer), [N]);
  // Per row: scale = max|x| / 127 (a floor keeps an all-zero row finite), q = round(x / scale) + 128.
  const rowMax = g.op1('ReduceMax', [g.op1('Abs', [x])], { axes: [-1], keepdims: 1 });
  const rowScale = g.op1('Max', [g.op1('Div', [rowMax, g.constFloat([127])]), g.constFloat([1e-30])]);
  const xq = g.op1('Cast', [g.op1('Add', [g.op1('Round', [g.op1('Div', [x, rowScale])]), g.constFloat([128])])], { to: UINT8 });
  const acc = g.op1('MatMulInteger', [xq, q, g.typedWeight(`${name}_x_zero`, UINT8, new Uint8Array([128]), [])]);
  return g.op1('Mul', [g.op1('Mul', [g.op1('Cast', [acc], { to: FLOAT }), rowScale]), s]);
}

/**
 * x [.., K] times the weight W ([N, K], Hugging Face layout) → [.., N]. F32: W is stored
 * transposed ([K, N]) so the product is a plain MatMul with the weight prepacked on the right.
 */
export function linear(g: GraphBuilder, x: string, name: string, w: Float32Array, N: number, K: number, precision: WeightPrecision, int8Path: Int8Path = 'block'): string {
  if (precision === 'f32') return g.op1('MatMul', [x, g.weight(name, transposed(w, N, K), [K, N])]);
  if (int8Path === 'row') return rowPathLinear(g, x, name, w, N, K);
  const { data, scales } = quantizeInt8(w, N, K);
  const blocks = Math.ceil(K / INT8_BLOCK);
  const q = g.typedWeight(`${name}_q8`, UINT8, data, [N, blocks, INT8_BLOCK]);
  const s = g.typedWeight(`${name}_scales`, FLOAT, new Uint8Array(scales.buffer), [N * blocks]);
  return g.op1('MatMulNBits', [x, q, s], { K, N, bits: 8, block_size: INT8_BLOCK, accuracy_level: 4 }, 'com.microsoft');
}
