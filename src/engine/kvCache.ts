/**
 * Preallocated KV caches written in place.
 *
 * A block call needs the caches of its members as one [n, KV, capacity, Dp] tensor, row j being
 * member j's cache. A KvBuffer is such a tensor; a KvCache is one sequence's cache for one route
 * position: a row of some buffer plus how many slots of it are filled. The block graph returns
 * only the keys and values of the new tokens, and `append` writes them after the filled slots,
 * so a decode step moves O(new tokens) cache bytes, not O(past).
 *
 * A call whose members are exactly the rows of one buffer, in order, that they own, with room for
 * the new tokens, runs on that buffer as is (the steady decode case). Otherwise (members joined,
 * left or were reordered; the buffer is full; a cache was forked) `gather` copies the filled slots
 * into a fresh buffer whose capacity is the next power of two: once per change, and amortized
 * O(1) per token for growth.
 *
 * Forking (a shared prompt prefilled once for many sequences) gives the child a KvCache that reads
 * the parent's row without owning it: the cache is append-only, so the parent's later writes land
 * beyond the child's filled slots; the child copies its slots out at its first call (copy on write).
 */

/** Smallest capacity allocated; capacities are powers of two from here. */
const MIN_CAPACITY = 16;

export function capacityFor(slots: number): number {
  let c = MIN_CAPACITY;
  while (c < slots) c *= 2;
  return c;
}

export class KvBuffer {
  readonly k: Float32Array;
  readonly v: Float32Array;
  /** Which cache may append to each row (null: none, the row is only read by forks). */
  readonly owner: (KvCache | null)[];

  constructor(readonly rows: number, readonly kvHeads: number, readonly capacity: number, readonly headSize: number) {
    const n = rows * kvHeads * capacity * headSize;
    this.k = new Float32Array(n);
    this.v = new Float32Array(n);
    this.owner = new Array<KvCache | null>(rows).fill(null);
  }

  get bytes(): number {
    return 2 * this.k.byteLength;
  }
}

export class KvCache {
  constructor(public buffer: KvBuffer, public row: number, public length: number) {}

  /** A cache with the same filled slots that reads this one's row until it first writes. */
  fork(): KvCache {
    return new KvCache(this.buffer, this.row, this.length);
  }

  get ownsRow(): boolean {
    return this.buffer.owner[this.row] === this;
  }
}

/** Counters for the bench: how often caches were copied, and how many bytes. */
export interface KvStats {
  kvGathers: number;
  kvGatheredBytes: number;
}

/**
 * The buffer to run a call on for `members` (each with room for `adding` more slots): theirs
 * when it fits as is, else a fresh one they have been copied into and now own.
 */
export function bufferFor(members: readonly KvCache[], adding: number, stats: KvStats): KvBuffer {
  const first = members[0].buffer;
  let need = 0;
  for (const m of members) need = Math.max(need, m.length + adding);
  const inPlace = first.rows === members.length && first.capacity >= need
    && members.every((m, j) => m.buffer === first && m.row === j && m.ownsRow);
  if (inPlace) return first;
  const { kvHeads: KV, headSize: Dp } = first;
  const fresh = new KvBuffer(members.length, KV, capacityFor(need), Dp);
  members.forEach((m, j) => {
    const from = m.buffer;
    for (let h = 0; h < KV; h++) {
      const src = (m.row * KV + h) * from.capacity * Dp;
      const dst = (j * KV + h) * fresh.capacity * Dp;
      const len = m.length * Dp;
      fresh.k.set(from.k.subarray(src, src + len), dst);
      fresh.v.set(from.v.subarray(src, src + len), dst);
    }
    if (m.ownsRow) from.owner[m.row] = null;
    m.buffer = fresh;
    m.row = j;
    fresh.owner[j] = m;
    stats.kvGatheredBytes += 2 * KV * m.length * Dp * 4;
  });
  stats.kvGathers++;
  return fresh;
}

/**
 * Appends `count` new slots to member j's cache from the graph's new_k/new_v ([n, S, KV·Dp],
 * row j's first `count` tokens).
 */
export function append(cache: KvCache, j: number, newK: Float32Array, newV: Float32Array, S: number, count: number): void {
  const b = cache.buffer;
  const { kvHeads: KV, headSize: Dp, capacity } = b;
  if (!cache.ownsRow || cache.length + count > capacity) throw new Error('internal: KV cache append without room');
  for (let t = 0; t < count; t++) {
    const src = (j * S + t) * KV * Dp;
    for (let h = 0; h < KV; h++) {
      const dst = ((cache.row * KV + h) * capacity + cache.length + t) * Dp;
      b.k.set(newK.subarray(src + h * Dp, src + (h + 1) * Dp), dst);
      b.v.set(newV.subarray(src + h * Dp, src + (h + 1) * Dp), dst);
    }
  }
  cache.length += count;
}
