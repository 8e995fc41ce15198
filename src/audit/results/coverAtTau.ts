/**
 * Cover@τ beside pass@k for choice formats (Dragoi et al., *Beyond Pass@k: Breadth-Depth Metrics
 * for Reasoning Boundaries*, arXiv 2510.08325): the share of questions for which at least a share τ
 * of a probe's attempts are correct. On a format with a handful of options, pass@k at the budget
 * is close to 1 for a guesser (the chance level), so "reached once" says little there; requiring a
 * share τ of the attempts drops the questions reached only by luck as τ rises. Each value is a
 * proportion of questions, with its Wilson interval. Pools cut at their first hit
 * (--until-reached) have no share to read, and are left out.
 */
import { rateOf, type CoverAtTau, type QuestionRecord } from '../../contract';

/** The thresholds shown: a quarter of the attempts up to all of them. */
export const COVER_TAUS: readonly number[] = [0.25, 0.5, 0.75, 1];

const isChoice = (records: readonly QuestionRecord[]) => records.length > 0 && records.every((r) => typeof r.options === 'number' && r.options >= 1);

/** Covered at τ: correct attempts / attempts ≥ τ (a question with no attempts is not covered). */
export function coveredAt(correct: readonly boolean[], tau: number): boolean {
  if (correct.length === 0) return false;
  return correct.filter(Boolean).length >= tau * correct.length;
}

/** Per probe, Cover@τ over the questions it ran on, for choice-format runs; undefined otherwise. */
export function coverAtTau(records: readonly QuestionRecord[], probes: readonly string[]): Record<string, CoverAtTau[]> | undefined {
  if (!isChoice(records)) return undefined;
  const out: Record<string, CoverAtTau[]> = {};
  for (const p of probes) {
    const pools = records.filter((r) => r.probes[p] && !r.probes[p].untilReached).map((r) => r.probes[p].correct);
    if (pools.length === 0) continue;
    out[p] = COVER_TAUS.map((tau) => ({ tau, covered: rateOf(pools.filter((c) => coveredAt(c, tau)).length, pools.length) }));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
