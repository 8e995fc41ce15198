import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { decodeBF16, decodeF16, f16BitsToF32Bits } from '../../../src/engine/checkpoint/halfFloat';
import { bf16ToNumber, f16ToNumber } from '../../support/bf16';

/** All 65536 bit patterns, little endian, as stored in a safetensors file. */
function allPatterns(offset = 0): Uint8Array {
  const bytes = new Uint8Array(offset + 65536 * 2);
  for (let h = 0; h < 65536; h++) {
    bytes[offset + 2 * h] = h & 0xff;
    bytes[offset + 2 * h + 1] = h >>> 8;
  }
  return bytes.subarray(offset);
}

function assertSameValue(actual: number, expected: number, what: string): void {
  if (Number.isNaN(expected)) assert.ok(Number.isNaN(actual), `${what}: expected NaN, got ${actual}`);
  else assert.ok(Object.is(actual, expected), `${what}: expected ${expected}, got ${actual}`);
}

test('F16 decoding is exact for every bit pattern (subnormals, signed zero, inf, NaN)', () => {
  const out = new Float32Array(65536);
  decodeF16(allPatterns(), out);
  for (let h = 0; h < 65536; h++) assertSameValue(out[h], f16ToNumber(h), `F16 0x${h.toString(16)}`);
});

test('BF16 decoding is exact for every bit pattern', () => {
  const out = new Float32Array(65536);
  decodeBF16(allPatterns(), out);
  for (let h = 0; h < 65536; h++) assertSameValue(out[h], bf16ToNumber(h), `BF16 0x${h.toString(16)}`);
});

test('unaligned input bytes decode the same as aligned ones', () => {
  const aligned = new Float32Array(65536);
  const unaligned = new Float32Array(65536);
  decodeF16(allPatterns(0), aligned);
  decodeF16(allPatterns(1), unaligned);
  assert.deepEqual(new Uint32Array(unaligned.buffer), new Uint32Array(aligned.buffer));
  decodeBF16(allPatterns(0), aligned);
  decodeBF16(allPatterns(1), unaligned);
  assert.deepEqual(new Uint32Array(unaligned.buffer), new Uint32Array(aligned.buffer));
});

test('F16 landmarks: smallest subnormal, largest subnormal, smallest normal, max, one, infinities', () => {
  const cases: [number, number][] = [
    [0x0001, 2 ** -24],
    [0x03ff, 1023 * 2 ** -24],
    [0x0400, 2 ** -14],
    [0x7bff, 65504],
    [0x3c00, 1],
    [0xc000, -2],
    [0x3555, 0.333251953125],
    [0x7c00, Infinity],
    [0xfc00, -Infinity],
    [0x8000, -0],
    [0x8001, -(2 ** -24)],
  ];
  const bytes = new Uint8Array(cases.length * 2);
  cases.forEach(([h], i) => {
    bytes[2 * i] = h & 0xff;
    bytes[2 * i + 1] = h >>> 8;
  });
  const out = new Float32Array(cases.length);
  decodeF16(bytes, out);
  cases.forEach(([h, v], i) => assertSameValue(out[i], v, `0x${h.toString(16)}`));
});

test('NaN payloads and signs survive decoding (bit-level, not canonicalized)', () => {
  assert.equal(f16BitsToF32Bits(0x7e00), 0x7fc00000);
  assert.equal(f16BitsToF32Bits(0x7c01), 0x7f802000); // signalling NaN payload kept
  assert.equal(f16BitsToF32Bits(0xfe00), 0xffc00000);
  const out = new Float32Array(2);
  decodeBF16(new Uint8Array([0x81, 0x7f, 0xc1, 0xff]), out); // 0x7f81, 0xffc1
  const bits = new Uint32Array(out.buffer);
  assert.equal(bits[0], 0x7f810000);
  assert.equal(bits[1], 0xffc10000);
});

test('decoding into an offset of the output leaves the rest untouched', () => {
  const out = new Float32Array([7, 7, 7, 7]);
  decodeBF16(new Uint8Array([0x80, 0x3f, 0x00, 0xc0]), out, 1, 2); // 1, -2
  assert.deepEqual([...out], [7, 1, -2, 7]);
});
