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
 * the new tokens, runs on that buffer as is (the steady decode case). With continuous batching a
 * sequence leaves or joins every few steps, so a gathered buffer also runs with rows whose sequence
 * has left (released, see `release`) as idle rows, and a joining sequence's cache is copied into
 * such a row: a leave or a join moves one sequence's cache, not the batch's (measured on the demo
 * audit: full regathers copied 11 GB in 57 s, a quarter of its time with the allocations and
 * garbage collection). Otherwise (the buffer is full, a row belongs to a sequence in another call,
 * too many rows would idle) the filled slots are gathered into a fresh buffer whose capacity is the
 * next power of two: amortized O(1) per token for growth.
 *
 * Forking (a shared prompt prefilled once for many sequences) gives the child a KvCache that reads
 * the parent's row without owning it: the cache is append-only, so the parent's later writes land
 * beyond the child's filled slots; the child copies its slots out at its first call (copy on write).
 *
 * Values are stored as float32 or as binary16 bit patterns (kvPrecision.ts); every buffer of one
 * engine has the same precision, so copies between buffers move the stored bits as they are.
 */
import { type KvArray, type KvPrecision, kvArray, kvBytesPerValue } from './kvPrecision';

/** Smallest capacity allocated; capacities are powers of two from here. */
const MIN_CAPACITY = 16;

export function capacityFor(slots: number): number {
  let c = MIN_CAPACITY;
  while (c < slots) c *= 2;
  return c;
}

export class KvBuffer {
  readonly k: KvArray;
  readonly v: KvArray;
  /** Which cache may append to each row (null: none, the row is only read by forks). */
  readonly owner: (KvCache | null)[];

  constructor(
    readonly rows: number,
    readonly kvHeads: number,
    readonly capacity: number,
    readonly headSize: number,
    /**
     * Made by gathering: no fork reads its rows (forks read only a prompt's buffer), so a row whose
     * owner released it is free to take another sequence's cache.
     */
    readonly gathered = false,
    readonly precision: KvPrecision = 'f32',
  ) {
    const n = rows * kvHeads * capacity * headSize;
    this.k = kvArray(precision, n);
    this.v = kvArray(precision, n);
    this.owner = new Array<KvCache | null>(rows).fill(null);
  }

  get bytes(): number {
    return 2 * this.k.byteLength;
  }

  /** Bytes of `slots` filled slots of one row (keys and values). */
  slotBytes(slots: number): number {
    return 2 * this.kvHeads * slots * this.headSize * kvBytesPerValue(this.precision);
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

  /** Its sequence is done: the row it owns can take another sequence's cache. */
  release(): void {
    if (this.ownsRow) this.buffer.owner[this.row] = null;
  }
}

/** Counters for the bench: how often caches were copied, and how many bytes. */
export interface KvStats {
  kvGathers: number;
  kvGatheredBytes: number;
  /** Single caches copied into a free row of a gathered buffer (a sequence joining a call). */
  kvRowMoves: number;
  /** Idle rows run beside the members (rows whose sequence left). */
  kvIdleRows: number;
}

/** The buffer a call runs on and the row of each member in it. */
export interface CallBuffer {
  buffer: KvBuffer;
  rowOf: number[];
}

/** At most this share of a buffer's rows may run idle before the members are gathered afresh. */
const MAX_IDLE_SHARE = 0.25;

/** Copies `length` filled slots of row `fromRow` of `from` into row `toRow` of `to`. */
export function copySlots(from: KvBuffer, fromRow: number, to: KvBuffer, toRow: number, length: number): void {
  const { kvHeads: KV, headSize: Dp } = from;
  if (from.precision !== to.precision) throw new Error('internal: KV cache copy between precisions');
  for (let h = 0; h < KV; h++) {
    const src = (fromRow * KV + h) * from.capacity * Dp;
    const dst = (toRow * KV + h) * to.capacity * Dp;
    to.k.set(from.k.subarray(src, src + length * Dp), dst);
    to.v.set(from.v.subarray(src, src + length * Dp), dst);
  }
}

/** Moves `m`'s filled slots into row `row` of `to`, which it then owns. */
function moveTo(m: KvCache, to: KvBuffer, row: number): void {
  copySlots(m.buffer, m.row, to, row, m.length);
  if (m.ownsRow) m.buffer.owner[m.row] = null;
  m.buffer = to;
  m.row = row;
  to.owner[row] = m;
}

/**
 * Runs the call on the gathered buffer where most members own their rows, when its other rows are
 * free: joiners are copied into free rows, the free rows left over run idle.
 */
function reuseRows(members: readonly KvCache[], need: number, stats: KvStats): CallBuffer | undefined {
  const owned = new Map<KvBuffer, number>();
  for (const m of members) if (m.buffer.gathered && m.ownsRow) owned.set(m.buffer, (owned.get(m.buffer) ?? 0) + 1);
  let home: KvBuffer | undefined;
  let most = 0;
  for (const [b, count] of owned) if (count > most) [home, most] = [b, count];
  if (!home || home.capacity < need) return undefined;
  const memberSet = new Set(members);
  const free: number[] = [];
  for (let r = 0; r < home.rows; r++) {
    const o = home.owner[r];
    if (o === null) free.push(r);
    else if (!memberSet.has(o)) return undefined; // a sequence in another call owns this row
  }
  const joiners = members.filter((m) => !(m.buffer === home && m.ownsRow));
  const idle = free.length - joiners.length;
  if (idle < 0 || idle > Math.max(1, Math.floor(home.rows * MAX_IDLE_SHARE))) return undefined;
  joiners.forEach((m, i) => {
    stats.kvGatheredBytes += m.buffer.slotBytes(m.length);
    moveTo(m, home, free[i]);
  });
  stats.kvRowMoves += joiners.length;
  stats.kvIdleRows += idle;
  return { buffer: home, rowOf: members.map((m) => m.row) };
}

/**
 * The buffer to run a call on for `members` (each with room for `adding` more slots) and each
 * member's row: theirs when it fits as is; a gathered buffer with free rows the joiners move into;
 * else a fresh one they have been copied into and now own.
 */
export function bufferFor(members: readonly KvCache[], adding: number, stats: KvStats): CallBuffer {
  const first = members[0].buffer;
  let need = 0;
  for (const m of members) need = Math.max(need, m.length + adding);
  const inPlace = first.rows === members.length && first.capacity >= need
    && members.every((m, j) => m.buffer === first && m.row === j && m.ownsRow);
  if (inPlace) return { buffer: first, rowOf: members.map((_, j) => j) };
  const reused = reuseRows(members, need, stats);
  if (reused) return reused;
  const { kvHeads: KV, headSize: Dp } = first;
  const fresh = new KvBuffer(members.length, KV, capacityFor(need), Dp, true, first.precision);
  members.forEach((m, j) => {
    stats.kvGatheredBytes += fresh.slotBytes(m.length);
    moveTo(m, fresh, j);
  });
  stats.kvGathers++;
  return { buffer: fresh, rowOf: members.map((_, j) => j) };
}

/**
 * Appends `count` new slots to member j's cache from the graph's new_k/new_v ([n, S, KV·Dp],
 * row j's first `count` tokens, in the cache's own precision).
 */
export function append(cache: KvCache, j: number, newK: KvArray, newV: KvArray, S: number, count: number): void {
  const b = cache.buffer;
  if (newK.constructor !== b.k.constructor) throw new Error('internal: KV cache append of another precision');
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
