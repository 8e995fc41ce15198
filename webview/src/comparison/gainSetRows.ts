/**
 * Random routes vs search on each checkpoint of a comparison, as the Comparison section shows it:
 * the verdict on the gain set (the questions that checkpoint's deployment does not realize, where a
 * probe can add an answer) beside the all-question one, from each run's summary.json
 * (`routesVsSearch.gainSet`). A summary from a file: a part that is missing or not numbers leaves
 * the row out. DOM-free.
 */
import { decisionOf, storedVerdictText, type ProbeComparison, RATE_MIN_QUESTIONS } from '../../../src/contract';
import { pointsInterval, pValueText, signedPoints } from './comparisonModel';

export interface GainSetRow {
  checkpoint: string;
  /** Gain-set questions, only routes / only search, the difference with its interval (— below 20 questions), McNemar p, verdict; then the all-question verdict. */
  cells: string[];
}

export const GAIN_SET_HEADERS = ['checkpoint', 'gain set n', 'only routes / only search', 'Δ (routes − search)', '95% CI', 'McNemar p', 'verdict (gain set)', 'all questions'];

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

export function gainSetRows(runs: readonly { checkpoint: string; routesVsSearch: ProbeComparison | undefined }[]): GainSetRow[] {
  const rows: GainSetRow[] = [];
  for (const { checkpoint, routesVsSearch: c } of runs) {
    const g = c?.gainSet;
    if (!g || typeof g !== 'object' || ![g.n, g.onlyA, g.onlyB, g.mcnemarP, g.difference?.estimate, g.difference?.lo, g.difference?.hi].every(finite)) continue;
    const decision = decisionOf(g.decision);
    // Under RATE_MIN_QUESTIONS a difference is counted in questions, without interval or verdict (the panel's rule).
    const few = g.n < RATE_MIN_QUESTIONS;
    const k = g.onlyA - g.onlyB;
    rows.push({
      checkpoint,
      cells: [
        String(g.n),
        `${g.onlyA} / ${g.onlyB}`,
        few ? `${k > 0 ? '+' : k < 0 ? '−' : '±'}${Math.abs(k)} question${Math.abs(k) === 1 ? '' : 's'}` : signedPoints(g.difference.estimate),
        few ? '—' : pointsInterval(g.difference),
        pValueText(g.mcnemarP),
        few ? 'counted (under 20)' : decision ? storedVerdictText(decision) : '—',
        c && finite(c.n) && c.n < RATE_MIN_QUESTIONS ? 'counted (under 20)' : storedVerdictText(c?.decision),
      ],
    });
  }
  return rows;
}
