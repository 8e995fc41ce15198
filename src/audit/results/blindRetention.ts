/**
 * Blind vs oracle (design: "Answer-blind selection"): the share of a probe's gain over the
 * deployment that answer-blind selection keeps, (blind − realized) / (reachable − realized), over
 * the questions the selector chose on. 1 means the selector finds every answer the probe reaches
 * beyond the deployment; 0 means it keeps none of that gain; it can be negative when selection
 * loses answers the deployment had. The interval is the paired percentile bootstrap of the ratio
 * (questions resampled with their three outcomes), from 20 questions on; it is undefined when the
 * probe gains nothing.
 * The ratio nets answers recovered against answers lost, so both are also given apart: the blind
 * pick's right answers on the gain set (questions the deployment does not realize) beside the
 * probe's reach there, and its wrong answers on the realized questions, each a count with its
 * Wilson interval (0/1 per question).
 */
import { MIN_BOOTSTRAP_QUESTIONS, type QuestionRecord, rateOf } from '../../contract';
import { bootstrapRatio, seedFor } from '../stats';
import type { BlindRetention } from '../../contract';

/** One question's outcomes: was the blind choice right, was it realized, was it reachable by the probe. */
export interface RetentionOutcome {
  blind: boolean;
  realized: boolean;
  reachable: boolean;
}

export function blindRetention(outcomes: readonly RetentionOutcome[], seedKey: readonly string[]): BlindRetention {
  const n = outcomes.length;
  const count = (f: (o: RetentionOutcome) => boolean) => outcomes.filter(f).length;
  const gain = count((o) => !o.realized);
  const num = outcomes.map((o) => Number(o.blind) - Number(o.realized));
  const den = outcomes.map((o) => Number(o.reachable) - Number(o.realized));
  const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
  // Below MIN_BOOTSTRAP_QUESTIONS the ratio stands without a percentile interval (the split below has Wilson intervals at any n).
  const boot =
    n >= MIN_BOOTSTRAP_QUESTIONS
      ? bootstrapRatio(num, den, { seed: seedFor('summary', 'blind-retention', ...seedKey), resamples: 10000 })
      : { estimate: sum(den) > 0 ? sum(num) / sum(den) : null, lo: null, hi: null, undefinedResamples: 0 };
  return {
    n,
    blind: rateOf(count((o) => o.blind), n),
    realized: rateOf(count((o) => o.realized), n),
    reachable: rateOf(count((o) => o.reachable), n),
    retained: boot.estimate,
    ci: boot.lo === null || boot.hi === null ? null : { lo: boot.lo, hi: boot.hi },
    undefinedResamples: boot.undefinedResamples,
    recovered: { blind: rateOf(count((o) => !o.realized && o.blind), gain), reachable: rateOf(count((o) => !o.realized && o.reachable), gain) },
    lost: rateOf(count((o) => o.realized && !o.blind), n - gain),
  };
}

/** Per answer-independent probe and per-question selector: the retention over the questions it chose on. */
export function blindRetentionByProbe(records: readonly QuestionRecord[], probes: readonly string[]): Record<string, Record<string, BlindRetention>> {
  const out: Record<string, Record<string, BlindRetention>> = {};
  for (const p of probes) {
    const selectors = new Set<string>();
    for (const r of records) for (const s of Object.keys(r.blind[p] ?? {})) selectors.add(s);
    for (const s of selectors) {
      const chosen = records.filter((r) => r.probes[p] && r.blind[p]?.[s]);
      (out[p] ??= {})[s] = blindRetention(
        chosen.map((r) => ({ blind: r.blind[p][s].correct, realized: r.realized.correct, reachable: r.reachable[p] === true })),
        [p, s],
      );
    }
  }
  return out;
}
