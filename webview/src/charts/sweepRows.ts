/**
 * The route search over its exploration sweep (--search-sweep) as the routes-vs-search card shows
 * it, from the numbers the extension computes from the records (the ones `reach-audit table`'s
 * search-sweep view prints): one row per c, the probe's own marked, with the search's reach (n,
 * Wilson interval), routes − search (Newcombe's paired score interval), the questions only one
 * reached and the exact McNemar p; then the table's sentence on which side of 0 routes − search
 * lies at each c (sweepSideText), and what the sweep cost. Under RATE_MIN_QUESTIONS: counts, no shares,
 * intervals or sign judgement (the panel's rule). The numbers cross postMessage: a row that is not
 * numbers is left out. DOM-free.
 */
import { formatPercent as percent, RATE_MIN_QUESTIONS, sweepSideText, type SearchSweepNumbers, type SweepPointRow } from '../../../src/contract';
import { count, intervalText } from '../common/numberText';
import { pointsInterval, pValueText, questionsDelta, signedPoints } from '../comparison/comparisonModel';

export const SWEEP_HEADERS = ['c', 'reachable · search', '95% CI', 'routes − search', '95% CI', 'only routes / only search', 'McNemar p', 'n'];

export interface SweepView {
  rows: { c: number; own: boolean; cells: string[] }[];
  notes: string[];
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function wellFormed(p: SweepPointRow): boolean {
  return [p?.c, p?.search?.n, p?.search?.successes, p?.search?.rate, p?.search?.ci?.lo, p?.search?.ci?.hi, p?.difference?.delta, p?.difference?.lo, p?.difference?.hi, p?.onlyRoutes, p?.onlySearch, p?.mcnemarP].every(finite);
}

/** Undefined without a sweep (a run audited without --search-sweep, or a malformed one). */
export function sweepView(s: SearchSweepNumbers | undefined): SweepView | undefined {
  if (!s || typeof s !== 'object' || !finite(s.n) || !Array.isArray(s.points) || !s.routes || !finite(s.routes.rate)) return undefined;
  const points = s.points.filter(wellFormed);
  if (points.length === 0) return undefined;
  const few = s.n < RATE_MIN_QUESTIONS;
  const rows = points.map((p) => ({
    c: p.c,
    own: p.own === true,
    cells: [
      p.own ? `${p.c} (the probe's)` : String(p.c),
      few ? `${count(p.search.successes)} of ${count(p.search.n)}` : percent(p.search.rate),
      few ? '—' : intervalText(p.search.ci.lo, p.search.ci.hi),
      few ? questionsDelta(p.onlyRoutes - p.onlySearch) : signedPoints(p.difference.delta),
      few ? '—' : pointsInterval(p.difference),
      `${count(p.onlyRoutes)} / ${count(p.onlySearch)}`,
      pValueText(p.mcnemarP),
      count(p.search.n),
    ],
  }));
  const notes = [
    few
      ? `Random routes reach ${count(s.routes.successes)} of ${count(s.n)} questions at ${s.budget} generations each. Fewer than ${RATE_MIN_QUESTIONS} questions: counts only, without intervals or a judgement of the sign over c.`
      : `Random routes reach ${percent(s.routes.rate)} ${intervalText(s.routes.ci.lo, s.routes.ci.hi)} of n = ${count(s.n)} questions at ${s.budget} generations each. ${sweepSideText(points)}`,
    `Each sweep search is the same search at another c, stopped at its first correct route, so this is reach only. Intervals: Wilson for reach, Newcombe's paired score for routes − search; p: exact McNemar, unadjusted. Sweep cost: ${count(s.generations)} new generations, ${count(s.reused)} of ${count(s.evaluated)} routes reused.`,
  ];
  return { rows, notes };
}
