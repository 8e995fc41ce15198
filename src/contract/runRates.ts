/**
 * A run's headline rates from its records, in one pass: n (the audited questions; skipped ones
 * are not part of it), realized, reachable per probe (over the questions the probe ran on) and by
 * any probe, the per-question answer-blind selectors over answer-independent probes, and the
 * question states. summary.json's fields of these names are this function's output (the audit's
 * summarize calls it); the Runs view, the Audit view and the panel use it for a run that has no
 * summary.json yet (running, cancelled, stopped), so every place shows the same numbers.
 */
import { rateOf, type Rate } from './interval';
import { questionState } from './questionState';
import type { QuestionRecord } from './runRecord';

/**
 * Probes whose candidates were produced without the gold answer. The search's candidates were
 * chosen with a reward that graded them, so a selector over them would see the answer indirectly.
 */
export const ANSWER_BLIND_PROBES: readonly string[] = ['sample', 'routes', 'perturb'];

export function isAnswerBlindProbe(probe: string): boolean {
  return ANSWER_BLIND_PROBES.includes(probe);
}

export interface RunRates {
  n: number;
  realized: Rate;
  /** Per probe, in the order the records first name them. */
  reachable: Record<string, Rate>;
  /** The reachable ceiling: realized, or reachable by any probe run. */
  reachableAny: Rate;
  /** Realized questions that no probe reached: inside the ceiling through the deployment alone. */
  realizedNotReached: number;
  /** blind[probe][selector] for the per-question selectors (global-route is a run-level choice, summary.json only). */
  blind: Record<string, Record<string, Rate>>;
  states: { realized: number; reachableNotRealized: number; unreached: number };
}

/** Keys of `pick(record)` over all records, in first-seen order. */
export function orderedKeys(records: readonly QuestionRecord[], pick: (r: QuestionRecord) => Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const r of records) for (const k of Object.keys(pick(r))) if (!keys.includes(k)) keys.push(k);
  return keys;
}

export function runRates(all: readonly QuestionRecord[]): RunRates {
  const records = all.filter((r) => !r.skipped);
  const n = records.length;
  const reachable: Record<string, Rate> = {};
  for (const p of orderedKeys(records, (r) => r.probes)) {
    const used = records.filter((r) => r.probes[p]);
    reachable[p] = rateOf(used.filter((r) => r.reachable[p]).length, used.length);
  }
  const blind: Record<string, Record<string, Rate>> = {};
  for (const p of Object.keys(reachable).filter(isAnswerBlindProbe)) {
    const perProbe: Record<string, Rate> = {};
    for (const s of orderedKeys(records, (r) => r.blind[p] ?? {})) {
      const chosen = records.filter((r) => r.blind[p]?.[s]);
      perProbe[s] = rateOf(chosen.filter((r) => r.blind[p][s].correct).length, chosen.length);
    }
    if (Object.keys(perProbe).length > 0) blind[p] = perProbe;
  }
  const states = { realized: 0, reachableNotRealized: 0, unreached: 0 };
  for (const r of records) {
    const state = questionState(r);
    if (state === 'realized') states.realized++;
    else if (state === 'reachable') states.reachableNotRealized++;
    else states.unreached++;
  }
  return {
    n,
    realized: rateOf(states.realized, n),
    reachable,
    // A question the deployment answers is reachable by definition, even if every probe missed it.
    reachableAny: rateOf(records.filter((r) => r.realized.correct || Object.values(r.reachable).some(Boolean)).length, n),
    realizedNotReached: records.filter((r) => r.realized.correct && !Object.values(r.reachable).some(Boolean)).length,
    blind,
    states,
  };
}
