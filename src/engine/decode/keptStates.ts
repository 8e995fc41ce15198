/**
 * Finished generations' KV caches, kept for the requests that continue them (`keepState` and
 * `continues` in types.ts): the fork probe's branches start from the deployed output's own caches
 * at the fork's position instead of computing the prompt and the prefix again.
 *
 * A kept state is a copy of the sequence's caches into buffers of its own that nothing appends to;
 * a continuation forks it cut to the length it needs (copy on write, kvCache.ts), so any number of
 * branches read one state. States are found by the prompt's key (prompt ids, route, silenced MLPs,
 * perturbation) and the tokens fed after the prompt, longest match first.
 *
 * Memory is bounded: states are kept up to `budgetBytes`, the least recently used dropped first. A
 * dropped state changes speed only: a continuation that finds none feeds its tokens one at a time
 * after the prompt, as the generation did, and gets the same numbers.
 */
import { KvBuffer, KvCache, copySlots } from './kvCache';
import { SequenceSlot } from './routeExecutor';

interface KeptState {
  /** Tokens fed after the prompt, in order: the slot's caches hold the prompt and these. */
  fed: readonly number[];
  slot: SequenceSlot;
  bytes: number;
}

export class KeptStates {
  /** By prompt key, in order of last use, least recent first (a Map keeps insertion order). */
  private readonly states = new Map<string, KeptState[]>();
  private bytes = 0;
  /** States found by a continuation, and continuations that found none. */
  hits = 0;
  misses = 0;

  constructor(private readonly budget: () => number) {}

  get usedBytes(): number {
    return this.bytes;
  }

  /**
   * Keeps a copy of `slot`'s caches (the prompt and the `fed` tokens after it); nothing when it
   * alone is over the budget. Older states are dropped to make room.
   */
  keep(key: string, slot: SequenceSlot, fed: readonly number[]): void {
    const budget = this.budget();
    let bytes = 0;
    for (const c of slot.kv) if (c) bytes += c.buffer.slotBytes(c.length);
    if (bytes > budget || fed.length !== slot.length - slot.promptLength) return;
    for (const [k, list] of this.states) {
      if (this.bytes + bytes <= budget) break;
      while (list.length > 0 && this.bytes + bytes > budget) this.bytes -= (list.shift() as KeptState).bytes;
      if (list.length === 0) this.states.delete(k);
    }
    const copy = slot.fork();
    copy.kv.forEach((c, p) => { if (c) copy.kv[p] = ownCopy(c); });
    const list = this.states.get(key) ?? [];
    this.states.delete(key);
    list.push({ fed: [...fed], slot: copy, bytes });
    this.states.set(key, list);
    this.bytes += bytes;
  }

  /**
   * A slot holding the prompt of `key` and the longest run of `forced` a kept state has fed, at
   * most `most` of its tokens, with how many it holds; null when no state of this prompt is kept.
   */
  resume(key: string, forced: readonly number[], most: number): { slot: SequenceSlot; fed: number } | null {
    const list = this.states.get(key);
    if (!list || list.length === 0) {
      this.misses++;
      return null;
    }
    this.states.delete(key);
    this.states.set(key, list);
    let best = list[0];
    let bestFed = -1;
    for (const s of list) {
      let m = 0;
      const limit = Math.min(most, s.fed.length);
      while (m < limit && s.fed[m] === forced[m]) m++;
      if (m > bestFed) [best, bestFed] = [s, m];
    }
    this.hits++;
    const slot = best.slot.fork();
    const length = best.slot.promptLength + bestFed;
    slot.length = length;
    slot.kv.forEach((c, p) => { if (c) slot.kv[p] = new KvCache(c.buffer, c.row, length); });
    return { slot, fed: bestFed };
  }
}

/** `kv`'s filled slots in a one-row buffer of their own, which no sequence owns (read by forks only). */
function ownCopy(kv: KvCache): KvCache {
  const to = new KvBuffer(1, kv.buffer.kvHeads, kv.length, kv.buffer.headSize, false, kv.buffer.precision);
  copySlots(kv.buffer, kv.row, to, 0, kv.length);
  return new KvCache(to, 0, kv.length);
}
