/**
 * Cover@τ beside pass@k for choice formats (Dragoi et al., *Beyond Pass@k: Breadth-Depth Metrics
 * for Reasoning Boundaries*, arXiv 2510.08325): the share of questions for which at least a share τ
 * of a probe's attempts are correct. On a format with a handful of options, pass@k at the budget
 * is close to 1 for a guesser (the chance level), so "reached once" says little there; requiring a
 * share τ of the attempts drops the questions reached only by luck as τ rises. Each value is a
 * proportion of questions, with its Wilson interval. Pools cut at their first hit
 * (--until-reached) have no share to read, and are left out.
 *
 * Each value has its chance reference: the Cover@τ of a uniform guesser with the question's k
 * options and B attempts, P(Binomial(B, 1/k) ≥ τB) averaged over the questions (at τB ≤ 1 that is
 * 1 − (1 − 1/k)^B, the chance level of reach). The adaptive search is left out: its attempts
 * continue after a hit, each chosen knowing the rewards before it, so they are not draws of one
 * rate and a share of them correct measures the search's path, not the question's coverage.
 */
import { passAtKKindOf, rateOf, type CoverAtTau, type QuestionRecord } from '../../contract';

/** The thresholds shown: a quarter of the attempts up to all of them. */
export const COVER_TAUS: readonly number[] = [0.25, 0.5, 0.75, 1];

const isChoice = (records: readonly QuestionRecord[]) => records.length > 0 && records.every((r) => typeof r.options === 'number' && r.options >= 1);

/** Covered at τ: correct attempts / attempts ≥ τ (a question with no attempts is not covered). */
export function coveredAt(correct: readonly boolean[], tau: number): boolean {
  if (correct.length === 0) return false;
  return correct.filter(Boolean).length >= tau * correct.length;
}

/** P(Binomial(attempts, 1/options) ≥ τ · attempts): a uniform guesser's chance of being covered at τ. */
export function guessCoverProbability(options: number, attempts: number, tau: number): number {
  if (attempts === 0) return 0;
  const p = 1 / options;
  let total = 0;
  let logC = 0;
  for (let j = 0; j <= attempts; j++) {
    if (j > 0) logC += Math.log((attempts - j + 1) / j);
    // The same comparison as coveredAt, so the reference and the measure count alike.
    if (j >= tau * attempts) total += Math.exp(logC + (j > 0 ? j * Math.log(p) : 0) + (attempts - j > 0 ? (attempts - j) * Math.log1p(-p) : 0));
  }
  return Math.min(1, total);
}

/** Per probe (not the adaptive search), Cover@τ over the questions it ran on with its chance reference, for choice-format runs; undefined otherwise. */
export function coverAtTau(records: readonly QuestionRecord[], probes: readonly string[]): Record<string, CoverAtTau[]> | undefined {
  if (!isChoice(records)) return undefined;
  const out: Record<string, CoverAtTau[]> = {};
  for (const p of probes) {
    if (passAtKKindOf(p) === 'first-k') continue;
    const used = records.filter((r) => r.probes[p] && !r.probes[p].untilReached);
    const pools = used.map((r) => r.probes[p].correct);
    if (pools.length === 0) continue;
    const chanceAt = (tau: number) => used.reduce((s, r) => s + guessCoverProbability(r.options!, r.probes[p].correct.length, tau), 0) / used.length;
    out[p] = COVER_TAUS.map((tau) => ({ tau, covered: rateOf(pools.filter((c) => coveredAt(c, tau)).length, pools.length), chance: chanceAt(tau) }));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
