/**
 * Which way routes − search points over the exploration sweep, in words a user can act on: random
 * routes ahead at every c (no c rescues the search), the search ahead at every c, no difference
 * shown at any c (too few questions to tell them apart), or which c put which side ahead. A side is
 * the 95% interval of routes − search lying above 0, below 0, or across it. Pure: the CLI's table
 * view and the panel's routes-vs-search card say the same sentence.
 */
import type { SweepPointRow } from './searchSweep';

type Side = 'routes' | 'search' | 'across';

const sideOf = (p: Pick<SweepPointRow, 'difference'>): Side => (p.difference.lo > 0 ? 'routes' : p.difference.hi < 0 ? 'search' : 'across');

const cList = (cs: readonly number[]) => `c = ${cs.join(', ')}`;

export function sweepSideText(points: readonly Pick<SweepPointRow, 'c' | 'difference'>[]): string {
  if (points.length === 0) return 'No setting of c was swept.';
  const at: Record<Side, number[]> = { routes: [], search: [], across: [] };
  for (const p of points) at[sideOf(p)].push(p.c);
  const every = points.length === 1 ? `at the one c tried (${cList(points.map((p) => p.c))})` : `at every c tried (${cList(points.map((p) => p.c))})`;
  if (at.routes.length === points.length) return `Random routes reach more than the search ${every}: each 95% interval of routes − search is above 0, so changing c does not close the gap.`;
  if (at.search.length === points.length) return `The search reaches more than random routes ${every}: each 95% interval of routes − search is below 0, so it beats random routes whatever c.`;
  if (at.across.length === points.length) return `No difference is shown ${points.length === 1 ? every : `at any c tried (${cList(points.map((p) => p.c))})`}: each 95% interval of routes − search spans 0, so these questions cannot tell the search from random routes; more questions would.`;
  const parts = [
    at.routes.length > 0 ? `random routes reach more at ${cList(at.routes)}` : '',
    at.search.length > 0 ? `the search reaches more at ${cList(at.search)}` : '',
    at.across.length > 0 ? `no difference is shown at ${cList(at.across)}` : '',
  ].filter((s) => s !== '');
  return `Which reaches more depends on c: ${parts.join('; ')} (95% intervals of routes − search against 0).`;
}
