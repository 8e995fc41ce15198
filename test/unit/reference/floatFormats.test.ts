import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bf16Bits, bf16ToNumber, f16Bits, f16ToNumber, float32FromBits } from '../../support/bf16';

test('BF16 rounds to nearest, ties to even', () => {
  // 1 + 2^-8 is exactly half way between 1 (0x3f80) and 1 + 2^-7 (0x3f81): even mantissa wins.
  assert.equal(bf16Bits(1 + 2 ** -8), 0x3f80);
  // 1 + 3*2^-8 is half way between 0x3f81 and 0x3f82: goes to the even 0x3f82.
  assert.equal(bf16Bits(1 + 3 * 2 ** -8), 0x3f82);
  // Just above half way rounds up, just below rounds down.
  assert.equal(bf16Bits(float32FromBits(0x3f808001)), 0x3f81);
  assert.equal(bf16Bits(float32FromBits(0x3f807fff)), 0x3f80);
  assert.equal(bf16Bits(float32FromBits(0xbf808000)), 0xbf80); // negative tie to even
  assert.equal(bf16Bits(1), 0x3f80);
  assert.equal(bf16Bits(-2.5), 0xc020);
  assert.equal(bf16Bits(0), 0);
  assert.equal(bf16Bits(Infinity), 0x7f80);
  assert.ok(Number.isNaN(bf16ToNumber(bf16Bits(NaN))));
  // Largest finite float32 rounds up to infinity in BF16 (ties-to-even carry into the exponent).
  assert.equal(bf16Bits(float32FromBits(0x7f7fffff)), 0x7f80);
  assert.equal(bf16ToNumber(0x3f81), 1 + 2 ** -7);
  assert.equal(bf16ToNumber(0xc020), -2.5);
});

test('BF16 round trip error is at most half an ulp', () => {
  for (let i = 0; i < 2000; i++) {
    const x = Math.fround(Math.sin(i * 12.9898) * 43758.5453 * 2 ** ((i % 40) - 20));
    const y = bf16ToNumber(bf16Bits(x));
    const ulp = 2 ** (Math.floor(Math.log2(Math.abs(x))) - 7);
    assert.ok(Math.abs(x - y) <= ulp / 2, `${x} -> ${y}`);
  }
});

test('F16 encodes normals, subnormals and overflow with ties to even', () => {
  assert.equal(f16Bits(1), 0x3c00);
  assert.equal(f16Bits(-2), 0xc000);
  assert.equal(f16Bits(65504), 0x7bff);
  assert.equal(f16Bits(65520), 0x7c00); // half way to 2^16 rounds to infinity (even)
  assert.equal(f16Bits(1 + 2 ** -11), 0x3c00); // tie -> even
  assert.equal(f16Bits(1 + 3 * 2 ** -11), 0x3c02); // tie -> even
  assert.equal(f16Bits(2 ** -24), 0x0001); // smallest subnormal
  assert.equal(f16Bits(2 ** -25), 0x0000); // tie between 0 and 2^-24 -> 0
  assert.equal(f16Bits(3 * 2 ** -25), 0x0002); // tie between 1 and 2 units -> 2
  assert.equal(f16Bits(2 ** -14), 0x0400); // smallest normal
  assert.equal(f16Bits(2 ** -14 - 2 ** -25), 0x0400); // rounds up from the subnormal range into the normals
  assert.equal(f16ToNumber(0x0001), 2 ** -24);
  assert.equal(f16ToNumber(0x3555), 0.333251953125);
  assert.equal(f16ToNumber(0xfc00), -Infinity);
  for (let h = 0; h < 0x7c00; h += 7) assert.equal(f16Bits(f16ToNumber(h)), h);
});
