/**
 * The additive attention mask a block call's attention reads (attentionGraph.ts), [B,1,1,S,C+S]:
 * for each row b and query s, C past slots then S new tokens; 0 where the query may look, -inf
 * elsewhere. A row sees the first `past` slots of its cache and its own new tokens up to the
 * query's (its `fresh` real tokens; right padding beyond them is never seen).
 *
 * Every block call of a step with the same rows, lengths and capacity reads the same mask, so the
 * executor keeps the last one and rebuilds only when one of those changes (MaskCache).
 */

/** What a row of a call attends to: the filled slots of its cache and its real new tokens. */
export interface MaskRow {
  past: number;
  fresh: number;
}

export function buildAttentionMask(rows: readonly MaskRow[], newTokens: number, capacity: number): Float32Array {
  const S = newTokens;
  const width = capacity + S;
  const mask = new Float32Array(rows.length * S * width).fill(-Infinity);
  rows.forEach(({ past, fresh }, b) => {
    if (past > capacity || fresh < 1 || fresh > S) throw new Error(`internal: attention mask row ${b}: ${past} past slots of ${capacity}, ${fresh} new tokens of ${S}`);
    for (let s = 0; s < S; s++) {
      const at = (b * S + s) * width;
      mask.fill(0, at, at + past);
      mask.fill(0, at + capacity, at + capacity + Math.min(s + 1, fresh));
    }
  });
  return mask;
}

/** The last mask built, reused while the call's shape and every row's lengths stay the same. */
export class MaskCache {
  private key: Int32Array = new Int32Array(0);
  private mask: Float32Array = new Float32Array(0);
  /** Masks built (not reused) since creation: the bench reports it. */
  builds = 0;

  get(rows: readonly MaskRow[], newTokens: number, capacity: number): Float32Array {
    const key = new Int32Array(2 + 2 * rows.length);
    key[0] = newTokens;
    key[1] = capacity;
    rows.forEach((r, b) => {
      key[2 + 2 * b] = r.past;
      key[3 + 2 * b] = r.fresh;
    });
    if (key.length !== this.key.length || key.some((x, i) => x !== this.key[i])) {
      this.mask = buildAttentionMask(rows, newTokens, capacity);
      this.key = key;
      this.builds++;
    }
    return this.mask;
  }
}
