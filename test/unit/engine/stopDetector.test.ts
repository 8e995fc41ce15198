/**
 * Incremental stop-string detection gives, token by token, exactly what cutting the full decode
 * gives: on byte tokens whose characters span several tokens (UTF-8), with invalid bytes, and
 * with a decoder that drops the leading space of a text (SentencePiece style).
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { StopDetector, cutAtStop } from '../../../src/engine/text/stopDetector';
import { Xoshiro128 } from '../../../src/engine/sampling/sampling';

const utf8 = (ids: readonly number[]): string => Buffer.from(ids).toString('utf8');
const dropLeadingSpace = (ids: readonly number[]): string => utf8(ids).replace(/^ /, '');

/** Byte tokens of a text made of ASCII, 2-, 3- and 4-byte characters, spaces and a few bad bytes. */
function randomBytes(rng: Xoshiro128, n: number): number[] {
  const pieces = ['a', 'b', ' ', '\n', 'é', '€', '😀', 'ab', '#'];
  const out: number[] = [];
  while (out.length < n) {
    const r = rng.nextUint32() % 12;
    if (r < pieces.length) out.push(...Buffer.from(pieces[r], 'utf8'));
    else out.push(0x80 + (rng.nextUint32() % 64)); // a stray continuation byte
  }
  return out.slice(0, n);
}

describe('incremental stop strings', () => {
  for (const [name, decode] of [['utf8 bytes', utf8], ['leading space dropped', dropLeadingSpace]] as const) {
    it(`stops at the same token with the same text as the full decode: ${name}`, () => {
      const rng = new Xoshiro128(5);
      const stopSets = [['€ab'], ['\n\n', '😀'], ['é '], ['#', 'never'], ['b a']];
      let hits = 0;
      for (let trial = 0; trial < 300; trial++) {
        const tokens = randomBytes(rng, 40);
        const stops = stopSets[trial % stopSets.length];
        const detector = new StopDetector(stops, decode);
        let got: { at: number; text: string } | null = null;
        let want: { at: number; text: string } | null = null;
        for (let t = 1; t <= tokens.length; t++) {
          const prefix = tokens.slice(0, t);
          if (!want) {
            const cut = cutAtStop(decode(prefix), stops);
            if (cut !== null) want = { at: t, text: cut };
          }
          if (!got) {
            const cut = detector.push(prefix);
            if (cut !== null) got = { at: t, text: cut };
          }
        }
        assert.deepEqual(got, want, `trial ${trial}: ${JSON.stringify(decode(tokens))} with ${JSON.stringify(stops)}`);
        if (want) hits++;
      }
      assert.ok(hits > 50, `only ${hits} of 300 trials met a stop string`);
    });
  }

  it('never stops without stop strings', () => {
    const d = new StopDetector([], utf8);
    assert.equal(d.push([0x61]), null);
  });
});
