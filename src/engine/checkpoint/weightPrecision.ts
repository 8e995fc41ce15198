/**
 * How a projection's weights are stored and multiplied: F32 MatMul, or 8-bit weights with one F32
 * scale per block of 32 input weights (symmetric: q = round(w / scale), scale = max|w| / 127, the
 * layout of llama.cpp's Q8_0) through onnxruntime's MatMulNBits with int8 compute
 * (accuracy_level 4: the activations are quantized per block too, and the products run on the
 * processor's int8 dot-product instructions, AVX-512 VNNI here).
 *
 * Chosen by measurement (scratch micro-benchmark of one 896x9728 projection, 2 threads, in the
 * closing note of this change): MatMulNBits 8-bit with int8 compute beat DynamicQuantizeMatMul
 * (per-column scales) and MatMulNBits with F32 compute at 1 and 16 rows.
 */
import { InputError } from '../../common';
import { FLOAT, type GraphBuilder, UINT8 } from '../graphs/graphBuilder';

export type WeightPrecision = 'f32' | 'int8';

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

/**
 * x [.., K] times the weight W ([N, K], Hugging Face layout) → [.., N]. F32: W is stored
 * transposed ([K, N]) so the product is a plain MatMul with the weight prepacked on the right.
 */
export function linear(g: GraphBuilder, x: string, name: string, w: Float32Array, N: number, K: number, precision: WeightPrecision): string {
  if (precision === 'f32') return g.op1('MatMul', [x, g.weight(name, transposed(w, N, K), [K, N])]);
  const { data, scales } = quantizeInt8(w, N, K);
  const blocks = Math.ceil(K / INT8_BLOCK);
  const q = g.typedWeight(`${name}_q8`, UINT8, data, [N, blocks, INT8_BLOCK]);
  const s = g.typedWeight(`${name}_scales`, FLOAT, new Uint8Array(scales.buffer), [N * blocks]);
  return g.op1('MatMulNBits', [x, q, s], { K, N, bits: 8, block_size: INT8_BLOCK, accuracy_level: 4 }, 'com.microsoft');
}
