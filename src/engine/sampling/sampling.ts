/**
 * Token choice for one sequence: greedy, or temperature / top-p sampling from a PRNG that belongs
 * to that sequence alone, so its sample never depends on what else is in the batch.
 *
 * PRNG: xoshiro128** (Blackman & Vigna), 128-bit state seeded from the 32-bit request seed by
 * splitmix32; each sampled token consumes exactly one 24-bit uniform draw. Greedy decoding draws
 * nothing.
 */
import type { Decoding } from '../types';
import { nucleusCandidates } from './nucleusOrder';

/** splitmix32 step: spreads a 32-bit seed over the xoshiro state words. */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Where a sampled token's uniform draw comes from (the sequence's PRNG; a fixed value in tests). */
export interface UniformSource {
  /** Uniform in [0, 1). */
  nextFloat(): number;
}

export class Xoshiro128 implements UniformSource {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    const sm = { s: seed | 0 };
    this.a = splitmix32(sm);
    this.b = splitmix32(sm);
    this.c = splitmix32(sm);
    this.d = splitmix32(sm);
  }

  /** Next 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1) with 24 bits of resolution (exactly representable in float32 and float64). */
  nextFloat(): number {
    return (this.nextUint32() >>> 8) / 16777216;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Index of the largest value; ties go to the lower index (as the reference and HF argmax do). */
export function argmax(v: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

export interface TokenChoice {
  token: number;
  /** log softmax(logits)[token] at temperature 1: logits[token] − the row's logSumExp.ts value. */
  logprob: number;
}

/**
 * Probabilities of the current row, reused from call to call: a fresh array per token was 1.2 MB
 * of garbage per sampled token at a 152k vocabulary.
 */
let scratch = new Float64Array(0);

/**
 * Chooses the next token. temperature 0 → argmax. Otherwise softmax(logits / T), restricted to
 * the smallest set of most likely tokens whose mass reaches topP (nucleus), renormalized.
 */
export function chooseToken(logits: ArrayLike<number>, decoding: Decoding, rng: UniformSource | null): number {
  if (decoding.temperature <= 0 || !rng) return argmax(logits);
  const n = logits.length;
  const invT = 1 / decoding.temperature;
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (logits[i] > max) max = logits[i];
  if (scratch.length < n) scratch = new Float64Array(n);
  const p = scratch.subarray(0, n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    p[i] = Math.exp((logits[i] - max) * invT);
    sum += p[i];
  }
  const u = rng.nextFloat();
  if (decoding.topP >= 1) {
    // Inverse-CDF over token ids in order; no sort needed for the full distribution.
    let target = u * sum;
    for (let i = 0; i < n; i++) {
      target -= p[i];
      if (target < 0) return i;
    }
    return lastPositive(p);
  }
  // Nucleus: sort by probability (ties by lower id), keep the prefix reaching topP of the mass.
  const limit = decoding.topP * sum;
  const order = nucleusCandidates(p, limit);
  let kept = 0;
  let mass = 0;
  while (kept < order.length) {
    mass += p[order[kept++]];
    if (mass >= limit) break;
  }
  let target = u * mass;
  for (let j = 0; j < kept; j++) {
    target -= p[order[j]];
    if (target < 0) return order[j];
  }
  return order[kept - 1];
}

function lastPositive(p: Float64Array): number {
  for (let i = p.length - 1; i >= 0; i--) if (p[i] > 0) return i;
  return 0;
}
