/**
 * The four-way decision on a paired difference (tuned − base, routes − search) against a stated
 * equivalence margin: the audit computes it (src/audit/stats/pairedDecision.ts), every
 * page shows it with its margin. "No significant difference" is never shown as "the same".
 */
import type { Interval } from './interval';

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

/** One paired yes/no measure on both checkpoints: tuned − base with a paired score interval. */
export interface PairedDelta {
  /** Share of the paired questions, base checkpoint. */
  base: number;
  tuned: number;
  /** tuned − base. */
  delta: number;
  /** 95% interval of the difference: Newcombe's paired score interval (a percentile bootstrap in files without ciMethod). */
  ci: Interval;
  /** Absent in files written before the score interval: their ci is a bootstrap one. */
  ciMethod?: DifferenceIntervalMethod;
  /** better / worse / equivalent within ±margin / inconclusive; absent in older files. */
  decision?: PairedDecision;
  /** Exact McNemar p-value on the discordant pairs. */
  mcnemarP: number;
  /** Base yes, tuned no. */
  lost: number;
  /** Base no, tuned yes. */
  gained: number;
  n: number;
}

const VERDICTS: readonly string[] = ['better', 'worse', 'equivalent', 'inconclusive'];
const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** A stored decision, checked (it comes from a file); undefined for files written before decisions, or a malformed one. */
export function decisionOf(value: unknown): PairedDecision | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.verdict !== 'string' || !VERDICTS.includes(v.verdict) || !finite(v.margin) || v.margin <= 0 || v.margin >= 1) return undefined;
  const needed = finite(v.questionsNeeded) && v.questionsNeeded >= 0 ? Math.round(v.questionsNeeded) : null;
  return { verdict: v.verdict as PairedVerdict, margin: v.margin, questionsNeeded: needed };
}

/** pairedVerdictText of a stored decision; "—" where there is none (an older file). */
export function storedVerdictText(value: unknown): string {
  const d = decisionOf(value);
  return d ? pairedVerdictText(d) : '—';
}

/** "equivalent within ±5 pts", "inconclusive (≈ 840 questions to decide)", "better". */
export function pairedVerdictText(d: PairedDecision): string {
  const margin = `${+(100 * d.margin).toFixed(2)} pts`;
  if (d.verdict === 'equivalent') return `equivalent within ±${margin}`;
  if (d.verdict !== 'inconclusive') return d.verdict;
  return d.questionsNeeded === null ? `inconclusive at ±${margin}` : `inconclusive at ±${margin} (≈ ${d.questionsNeeded.toLocaleString('en-US')} questions to decide)`;
}
