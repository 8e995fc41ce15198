/**
 * The four-way decision on a paired difference (tuned − base, routes − search) against a stated
 * equivalence margin: the audit computes it (src/audit/results/stats/pairedDecision.ts), every
 * page shows it with its margin. "No significant difference" is never shown as "the same".
 */

/** better / worse: a direction shown; equivalent: inside ±margin; inconclusive: neither. */
export type PairedVerdict = 'better' | 'worse' | 'equivalent' | 'inconclusive';

export interface PairedDecision {
  verdict: PairedVerdict;
  /** The equivalence margin, as a proportion (0.05 = 5 percentage points). */
  margin: number;
  /** Inconclusive only: roughly how many paired questions a decision would take (80% power, observed discordance); null otherwise or when none would. */
  questionsNeeded: number | null;
}

/** How a paired difference's interval was computed: Newcombe's score interval; older files hold a percentile bootstrap. */
export type DifferenceIntervalMethod = 'newcombe-score' | 'bootstrap';

/** "equivalent within ±5 pts", "inconclusive (≈ 840 questions to decide)", "better". */
export function pairedVerdictText(d: PairedDecision): string {
  const margin = `${+(100 * d.margin).toFixed(2)} pts`;
  if (d.verdict === 'equivalent') return `equivalent within ±${margin}`;
  if (d.verdict !== 'inconclusive') return d.verdict;
  return d.questionsNeeded === null ? `inconclusive at ±${margin}` : `inconclusive at ±${margin} (≈ ${d.questionsNeeded.toLocaleString('en-US')} questions to decide)`;
}
