/**
 * Half-precision float formats used by safetensors files: BF16 and F16 (IEEE binary16).
 * Encoding rounds to nearest, ties to even, from the float32 value (the value a writer holds).
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 bits of x (x is first rounded to float32). */
export function float32Bits(x: number): number {
  f32[0] = x;
  return u32[0];
}

export function float32FromBits(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0];
}

/** BF16 bits of x, rounded to nearest even from its float32 value. NaN stays a (quiet) NaN. */
export function bf16Bits(x: number): number {
  const bits = float32Bits(x);
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0) {
    return ((bits >>> 16) | 0x0040) & 0xffff;
  }
  const lsb = (bits >>> 16) & 1;
  return ((bits + 0x7fff + lsb) >>> 16) & 0xffff;
}

export function bf16ToNumber(h: number): number {
  return float32FromBits((h & 0xffff) << 16);
}

/** F16 (binary16) bits of x, rounded to nearest even from its float32 value, with subnormals. */
export function f16Bits(x: number): number {
  const bits = float32Bits(x);
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x007fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x0200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow to infinity
  if (e <= 0) {
    // subnormal half (or zero): value = mant' * 2^-24
    if (e < -10) return sign; // below half of the smallest subnormal: rounds to zero
    mant |= 0x00800000; // implicit 1
    const shift = 14 - e; // bits to drop: from 23-bit fraction at exponent e to 2^-24 units
    const kept = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    let r = kept;
    if (rem > half || (rem === half && (kept & 1) === 1)) r += 1;
    return sign | r; // r may carry into the exponent field: that is the correct smallest normal
  }
  const kept = mant >>> 13;
  const rem = mant & 0x1fff;
  let r = (e << 10) | kept;
  if (rem > 0x1000 || (rem === 0x1000 && (kept & 1) === 1)) r += 1; // carry may reach infinity: correct
  return sign | r;
}

export function f16ToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
