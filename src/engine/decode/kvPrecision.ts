/**
 * How the KV cache stores keys and values: float32 (the default), or IEEE binary16, read back to
 * float32 inside each block's graph (a Cast before the attention), so every product and sum of the
 * attention stays float32 and only the stored values are rounded. Half the cache's bytes, so a
 * `--kv-memory` budget admits about twice the sequences and a reasoning budget's long context
 * needs half the memory.
 *
 * Under f16 a call's own new keys and values are rounded to f16 too before its attention reads
 * them, so a key is read at the same precision whether it came from the cache or from the call:
 * a sequence's numbers then depend neither on how its tokens were split into calls (a prompt in one
 * call or a continuation fed token by token) nor on its batch (the rounding is element-wise).
 */
import { InputError } from '../../common';

export type KvPrecision = 'f32' | 'f16';

export const KV_PRECISIONS: readonly KvPrecision[] = ['f32', 'f16'];

/** The value of `--kv-cache` (undefined when not given: f32); anything else names the flag. */
export function parseKvPrecision(value: string | undefined): KvPrecision | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(KV_PRECISIONS as readonly string[]).includes(value)) throw new InputError(`--kv-cache: expected one of ${KV_PRECISIONS.join(', ')}, got '${value}'`);
  return value as KvPrecision;
}

/** Bytes one stored key or value takes. */
export function kvBytesPerValue(precision: KvPrecision): number {
  return precision === 'f16' ? 2 : 4;
}

/** The storage of one cache tensor: float32 values, or binary16 bit patterns. */
export type KvArray = Float32Array | Uint16Array;

export function kvArray(precision: KvPrecision, length: number): KvArray {
  return precision === 'f16' ? new Uint16Array(length) : new Float32Array(length);
}
