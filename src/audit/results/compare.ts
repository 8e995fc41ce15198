/**
 * Checkpoint comparison (docs/design.md section 1): two runs of the same questions under the same
 * deployment, probes, budgets and seeds. Realized Δ and reachable-ceiling Δ with paired bootstrap
 * intervals, exact McNemar tests, the per-question transition table between states, and the
 * decomposition of newly realized questions into already-reachable-by-base vs newly-reachable.
 */
import { QUESTION_STATES, questionState, type Comparison, type PairedDelta, type QuestionRecord } from '../../contract';
import { pairedBootstrap, mcnemarExact, rateOf, seedFor } from './stats';

function pairedDelta(base: boolean[], tuned: boolean[], seed: number): PairedDelta {
  const a = base.map(Number);
  const b = tuned.map(Number);
  const boot = pairedBootstrap(a, b, { seed, resamples: 10000 });
  let lost = 0;
  let gained = 0;
  base.forEach((x, i) => {
    if (x && !tuned[i]) lost++;
    if (!x && tuned[i]) gained++;
  });
  const mean = (v: number[]) => (v.length === 0 ? 0 : v.reduce((s, x) => s + x, 0) / v.length);
  return { base: mean(a), tuned: mean(b), delta: boot.delta, ci: { lo: boot.lo, hi: boot.hi }, mcnemarP: mcnemarExact(lost, gained), lost, gained, n: base.length };
}

const anyReachable = (r: QuestionRecord) => Object.values(r.reachable).some(Boolean);

/** Compares two runs question by question; `seed` keys the bootstrap (the runs' common seed). */
export function compareRecords(baseAll: readonly QuestionRecord[], tunedAll: readonly QuestionRecord[], seed: number): Comparison {
  // A question skipped (prompt too long for the context) in either run has no outcome to pair.
  const baseRecords = baseAll.filter((r) => !r.skipped);
  const tunedRecords = tunedAll.filter((r) => !r.skipped);
  const tunedById = new Map(tunedRecords.map((r) => [r.id, r]));
  const baseIds = new Set(baseRecords.map((r) => r.id));
  const pairs: [QuestionRecord, QuestionRecord][] = [];
  for (const b of baseRecords) {
    const t = tunedById.get(b.id);
    if (t) pairs.push([b, t]);
  }
  const probes = Object.keys(pairs[0]?.[0].reachable ?? {}).filter((p) => pairs.every(([b, t]) => p in b.reachable && p in t.reachable));
  const reachable: Record<string, PairedDelta> = {};
  for (const p of probes) reachable[p] = pairedDelta(pairs.map(([b]) => b.reachable[p]), pairs.map(([, t]) => t.reachable[p]), seedFor(seed, 'compare', 'reachable', p));

  const transitions = Object.fromEntries(QUESTION_STATES.map((s) => [s, Object.fromEntries(QUESTION_STATES.map((t) => [t, [] as string[]]))])) as Comparison['transitions'];
  const already: string[] = [];
  const fresh: string[] = [];
  for (const [b, t] of pairs) {
    const from = questionState(b);
    const to = questionState(t);
    transitions[from][to].push(b.id);
    if (!b.realized.correct && t.realized.correct) (anyReachable(b) ? already : fresh).push(b.id);
  }
  const newly = already.length + fresh.length;
  return {
    n: pairs.length,
    unmatched: { baseOnly: baseRecords.filter((r) => !tunedById.has(r.id)).map((r) => r.id), tunedOnly: tunedRecords.filter((r) => !baseIds.has(r.id)).map((r) => r.id) },
    realized: pairedDelta(pairs.map(([b]) => b.realized.correct), pairs.map(([, t]) => t.realized.correct), seedFor(seed, 'compare', 'realized')),
    reachableCeiling: pairedDelta(pairs.map(([b]) => anyReachable(b)), pairs.map(([, t]) => anyReachable(t)), seedFor(seed, 'compare', 'ceiling')),
    reachable,
    transitions,
    newlyRealized: {
      n: newly,
      alreadyReachable: { ...rateOf(already.length, newly), ids: already },
      newlyReachable: { ...rateOf(fresh.length, newly), ids: fresh },
    },
  };
}
