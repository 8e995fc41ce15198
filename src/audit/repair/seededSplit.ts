/**
 * Seeded two-way splits of a question set (global-route selection, repair selection). Each
 * question carries a split key derived from (run seed, question id, purpose) alone; the set is
 * ordered by key (then id) and the first half — rounded up — selects, the rest is held out. So a
 * question's key never depends on the other questions, the split is exactly balanced, and the
 * split of a resumed run equals the split of an uninterrupted one.
 */

export interface Split<T> {
  selection: T[];
  heldOut: T[];
}

export function splitBySeededKey<T>(items: readonly T[], keyOf: (item: T) => { splitKey: number; id: string }): Split<T> {
  const ordered = items.slice().sort((a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka.splitKey - kb.splitKey || (ka.id < kb.id ? -1 : ka.id > kb.id ? 1 : 0);
  });
  const half = Math.ceil(ordered.length / 2);
  return { selection: ordered.slice(0, half), heldOut: ordered.slice(half) };
}
