/**
 * Keyed pseudo-random streams (docs/design/statistics.md "Determinism"): every random draw comes from a PRNG keyed
 * by (run seed, question id, probe, attempt), so a question audited alone draws exactly what it
 * drew inside a full run, whatever else ran before it. The key tuple is hashed with SHA-256 into
 * the 128-bit state of xoshiro128** (Blackman & Vigna).
 */
import { createHash } from 'node:crypto';

/**
 * The key tuple, encoded so that different tuples never collide: ["a,b"] ≠ ["a", "b"], and the
 * number 1 ≠ the string "1" (pass ids consistently as strings).
 */
function keyBytes(purpose: string, keys: readonly (string | number)[]): Buffer {
  for (const k of keys) {
    if (typeof k === 'number' && !Number.isFinite(k)) throw new RangeError(`PRNG key must be finite, got ${k}`);
  }
  // The purpose separates domains: seedFor(k) is not the first state word of seededRandom(k).
  return createHash('sha256').update(JSON.stringify([purpose, ...keys]), 'utf8').digest();
}

/** A uint32 seed derived from the key tuple (for the engine's per-sequence sampling seed). */
export function seedFor(...keys: (string | number)[]): number {
  return keyBytes('seed', keys).readUInt32LE(0);
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** xoshiro128**: 32-bit outputs from a 128-bit state (advanced in place). */
export function xoshiro128ss(state: Uint32Array): () => number {
  return () => {
    const result = Math.imul(rotl(Math.imul(state[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (state[1] << 9) >>> 0;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotl(state[3], 11);
    return result;
  };
}

/** A raw uint32 stream keyed by (seed, ...keys). */
export function seededUint32(seed: number | string, ...keys: (string | number)[]): () => number {
  const digest = keyBytes('xoshiro128**', [seed, ...keys]);
  const state = new Uint32Array(4);
  for (let i = 0; i < 4; i++) state[i] = digest.readUInt32LE(4 * i);
  if (state[0] === 0 && state[1] === 0 && state[2] === 0 && state[3] === 0) state[0] = 1; // the one forbidden state
  return xoshiro128ss(state);
}

/** Uniform doubles in [0, 1) with 53 random bits, keyed by (seed, ...keys). */
export function seededRandom(seed: number | string, ...keys: (string | number)[]): () => number {
  const next = seededUint32(seed, ...keys);
  return () => ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
}

/** An integer in [0, n) from a uniform source. */
export function randomInt(random: () => number, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`randomInt: n must be a positive integer, got ${n}`);
  return Math.floor(random() * n);
}
