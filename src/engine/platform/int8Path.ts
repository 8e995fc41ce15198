/**
 * Which integer path int8 weights take on a processor (checkpoint/weightPrecision.ts): 'row'
 * (MatMulInteger, MLAS's U8S8 QGEMM) where MLAS has no int8 dot-product instructions — AVX2
 * without VNNI, and SSE — and 'block' (MatMulNBits, int8 compute) everywhere else. Measured per
 * projection shape by tools/engine/int8Kernels.ts: on AVX2 without VNNI the row path was 1.7–3.0x
 * faster at 16 rows; on AVX-512 VNNI MatMulNBits won.
 */
import type { Int8Path } from '../checkpoint/weightPrecision';

/** Overrides the choice ('block' or 'row'), to measure or test the other path on one machine. */
export const INT8_PATH_ENV = 'REACH_AUDIT_INT8_PATH';

/** The path for an int8 kernel family of numericsPlatform.ts, or the override when it names one. */
export function int8PathFor(int8Kernels: string, override: string | undefined): Int8Path {
  if (override === 'block' || override === 'row') return override;
  return int8Kernels === 'avx2' || int8Kernels === 'sse' ? 'row' : 'block';
}
