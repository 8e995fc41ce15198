/**
 * Exact decoding of the 16-bit float formats that safetensors stores (IEEE binary16 "F16" and
 * bfloat16 "BF16") into float32. Every 16-bit value is exactly representable in float32, so the
 * decode is a bit-level mapping: no rounding, subnormals, infinities, signed zeros and NaN kept.
 * Works on float32 bit patterns (Uint32Array views) so NaN payloads are not canonicalized.
 */

import * as os from 'node:os';

/** Typed-array views read host byte order; safetensors is little endian, so other hosts take the byte path. */
const hostIsLittleEndian = os.endianness() === 'LE';

let f16Table: Uint32Array | undefined;

/** float32 bit pattern of one binary16 bit pattern. */
export function f16BitsToF32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0x1f) return (sign | 0x7f800000 | (mant << 13)) >>> 0; // inf / NaN (payload kept)
  if (exp !== 0) return (sign | ((exp + 112) << 23) | (mant << 13)) >>> 0; // normal: rebias 15 -> 127
  if (mant === 0) return sign >>> 0; // signed zero
  // Subnormal half: mant * 2^-24. Normalize: shift the mantissa until its leading 1 reaches bit 10.
  let m = mant;
  let e = -14;
  while ((m & 0x400) === 0) {
    m <<= 1;
    e--;
  }
  return (sign | ((e + 127) << 23) | ((m & 0x3ff) << 13)) >>> 0;
}

/** All 65536 binary16 → float32 bit patterns (256 KiB), built on first use. */
function table(): Uint32Array {
  if (!f16Table) {
    f16Table = new Uint32Array(65536);
    for (let h = 0; h < 65536; h++) f16Table[h] = f16BitsToF32Bits(h);
  }
  return f16Table;
}

/** Decodes `count` little-endian F16 values from `src` into `dst` (float32) starting at dstOffset. */
export function decodeF16(src: Uint8Array, dst: Float32Array, dstOffset = 0, count = src.byteLength >>> 1): void {
  const t = table();
  const out = new Uint32Array(dst.buffer, dst.byteOffset + dstOffset * 4, count);
  if (hostIsLittleEndian && src.byteOffset % 2 === 0) {
    const in16 = new Uint16Array(src.buffer, src.byteOffset, count);
    for (let i = 0; i < count; i++) out[i] = t[in16[i]];
  } else {
    for (let i = 0; i < count; i++) out[i] = t[src[2 * i] | (src[2 * i + 1] << 8)];
  }
}

/** Decodes `count` little-endian BF16 values: bfloat16 is the top half of a float32. */
export function decodeBF16(src: Uint8Array, dst: Float32Array, dstOffset = 0, count = src.byteLength >>> 1): void {
  const out = new Uint32Array(dst.buffer, dst.byteOffset + dstOffset * 4, count);
  if (hostIsLittleEndian && src.byteOffset % 2 === 0) {
    const in16 = new Uint16Array(src.buffer, src.byteOffset, count);
    for (let i = 0; i < count; i++) out[i] = in16[i] << 16;
  } else {
    for (let i = 0; i < count; i++) out[i] = (src[2 * i] | (src[2 * i + 1] << 8)) << 16;
  }
}
