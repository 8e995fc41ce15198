/**
 * The attention mask, element by element against its definition: query s of row b may look at
 * past slot c iff c < past_b, and at new token t iff t <= s and t < fresh_b. The cache hands back
 * the same mask while the call's shape and lengths repeat (the blocks of one step) and a new one
 * when any of them changes.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { MaskCache, type MaskRow, buildAttentionMask } from '../../../src/engine/graphs/attentionMask';
import { Xoshiro128 } from '../../../src/engine/sampling/sampling';

function allowed(rows: readonly MaskRow[], b: number, s: number, j: number, capacity: number): boolean {
  if (j < capacity) return j < rows[b].past;
  const t = j - capacity;
  return t <= s && t < rows[b].fresh;
}

describe('attention mask', () => {
  it('is 0 exactly where the definition allows a look and -inf elsewhere (random shapes)', () => {
    const rng = new Xoshiro128(11);
    for (let trial = 0; trial < 200; trial++) {
      const S = 1 + (rng.nextUint32() % 6);
      const C = 1 + (rng.nextUint32() % 20);
      const rows: MaskRow[] = Array.from({ length: 1 + (rng.nextUint32() % 5) }, () => ({ past: rng.nextUint32() % (C + 1), fresh: 1 + (rng.nextUint32() % S) }));
      const mask = buildAttentionMask(rows, S, C);
      assert.equal(mask.length, rows.length * S * (C + S));
      for (let b = 0; b < rows.length; b++) {
        for (let s = 0; s < S; s++) {
          for (let j = 0; j < C + S; j++) {
            const v = mask[(b * S + s) * (C + S) + j];
            assert.equal(v, allowed(rows, b, s, j, C) ? 0 : -Infinity, `row ${b} query ${s} column ${j} (past ${rows[b].past}, fresh ${rows[b].fresh}, C ${C}, S ${S})`);
          }
        }
      }
    }
  });

  it('lets every query see at least its first new token (no softmax over nothing)', () => {
    const mask = buildAttentionMask([{ past: 0, fresh: 1 }], 3, 4);
    for (let s = 0; s < 3; s++) assert.equal(mask[s * 7 + 4], 0);
  });

  it('refuses lengths the call cannot hold', () => {
    assert.throws(() => buildAttentionMask([{ past: 5, fresh: 1 }], 1, 4), /5 past slots of 4/);
    assert.throws(() => buildAttentionMask([{ past: 0, fresh: 0 }], 1, 4), /0 new tokens of 1/);
    assert.throws(() => buildAttentionMask([{ past: 0, fresh: 3 }], 2, 4), /3 new tokens of 2/);
  });

  it('is built once for the blocks of a step and again when a length, the width or the rows change', () => {
    const cache = new MaskCache();
    const rows = [{ past: 3, fresh: 1 }, { past: 7, fresh: 1 }];
    const first = cache.get(rows, 1, 8);
    assert.equal(cache.get(rows.map((r) => ({ ...r })), 1, 8), first);
    assert.equal(cache.builds, 1);
    const longer = cache.get([{ past: 4, fresh: 1 }, { past: 8, fresh: 1 }], 1, 8);
    assert.notEqual(longer, first);
    assert.deepEqual(longer, buildAttentionMask([{ past: 4, fresh: 1 }, { past: 8, fresh: 1 }], 1, 8));
    cache.get([{ past: 4, fresh: 1 }, { past: 8, fresh: 1 }], 1, 16);
    cache.get([{ past: 4, fresh: 1 }], 1, 16);
    assert.equal(cache.builds, 4);
  });
});
