/**
 * Checkpoint comparison (docs/design/comparison.md): two runs of the same questions under the same
 * deployment, probes, budgets and seeds. Realized Δ and reachable-ceiling Δ with Newcombe's paired
 * score intervals, exact McNemar tests and a four-way decision against the equivalence margin, the
 * per-question transition table between states, and the decomposition of newly realized questions
 * into already-reachable-by-base vs newly-reachable.
 */
import { QUESTION_STATES, questionState, type Comparison, type PairedDelta, type QuestionRecord, rateOf } from '../../contract';
import { DEFAULT_MARGIN, pairedDelta } from '../stats';
import { foreclosureMoves } from './foreclosureMoves';

const anyProbeReached = (r: QuestionRecord) => Object.values(r.reachable).some(Boolean);
/** The reachable ceiling: a question the deployment answers is reachable whatever the probes found. */
export const insideCeiling = (r: QuestionRecord) => r.realized.correct || anyProbeReached(r);

export interface CompareOptions {
  /** Equivalence margin of the decisions (default 5 points). */
  margin?: number;
}

/** Compares two runs question by question. */
export function compareRecords(baseAll: readonly QuestionRecord[], tunedAll: readonly QuestionRecord[], options: CompareOptions = {}): Comparison {
  const margin = options.margin ?? DEFAULT_MARGIN;
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
  for (const p of probes) reachable[p] = pairedDelta(pairs.map(([b]) => b.reachable[p]), pairs.map(([, t]) => t.reachable[p]), margin);

  const transitions = Object.fromEntries(QUESTION_STATES.map((s) => [s, Object.fromEntries(QUESTION_STATES.map((t) => [t, [] as string[]]))])) as Comparison['transitions'];
  const already: string[] = [];
  const fresh: string[] = [];
  for (const [b, t] of pairs) {
    const from = questionState(b);
    const to = questionState(t);
    transitions[from][to].push(b.id);
    if (!b.realized.correct && t.realized.correct) (anyProbeReached(b) ? already : fresh).push(b.id);
  }
  const newly = already.length + fresh.length;
  const foreclosure = foreclosureMoves(pairs);
  return {
    n: pairs.length,
    unmatched: { baseOnly: baseRecords.filter((r) => !tunedById.has(r.id)).map((r) => r.id), tunedOnly: tunedRecords.filter((r) => !baseIds.has(r.id)).map((r) => r.id) },
    realized: pairedDelta(pairs.map(([b]) => b.realized.correct), pairs.map(([, t]) => t.realized.correct), margin),
    reachableCeiling: pairedDelta(pairs.map(([b]) => insideCeiling(b)), pairs.map(([, t]) => insideCeiling(t)), margin),
    realizedNotReached: {
      base: pairs.filter(([b]) => b.realized.correct && !anyProbeReached(b)).length,
      tuned: pairs.filter(([, t]) => t.realized.correct && !anyProbeReached(t)).length,
    },
    reachable,
    transitions,
    newlyRealized: {
      n: newly,
      alreadyReachable: { ...rateOf(already.length, newly), ids: already },
      newlyReachable: { ...rateOf(fresh.length, newly), ids: fresh },
    },
    // Only when both runs ran it, so every other comparison stays as it was.
    ...(foreclosure ? { foreclosure } : {}),
  };
}
