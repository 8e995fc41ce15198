/**
 * The route search over its exploration sweep as a table view (beside random routes vs search):
 * one row per (run, c), the probe's own c marked, and per run whether the comparison's sign holds
 * over the sweep. Shown only for runs audited with --search-sweep.
 */
import { sweepSideText, type Rate } from '../../contract';
import type { SearchSweepRow } from '../results';
import type { TableView } from './tablesReport';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pts = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}` : '—');
const rateText = (r: Rate) => `${pct(r.rate)} [${(100 * r.ci.lo).toFixed(1)}, ${(100 * r.ci.hi).toFixed(1)}] (n = ${r.n})`;
const pText = (p: number) => (p < 0.001 ? '< 0.001' : p.toFixed(3));

/**
 * What c can change, from what the sweep ran: under the 0/1 reward with no length penalty every
 * mean is 0 before the first hit, so c scales every exploration term alike and reach cannot move;
 * a length penalty (λ > 0) makes the means differ before any hit, and an informed reward after it.
 */
export function sweepRewardNote(rows: readonly SearchSweepRow[]): string {
  const inert = rows.filter((r) => r.searchReward === 'correct' && r.searchLambda === 0);
  if (inert.length === rows.length) return 'Every search here used the 0/1 reward with no length penalty (λ = 0): every mean is 0 before the first hit, so c scales every exploration term alike and cannot change reach; the sweep matters for the informed search or a length penalty.';
  const described = rows.map((r) => `${r.model}: ${r.searchReward === 'correct' ? 'reward 0/1' : `reward ${r.searchReward}`}, λ = ${r.searchLambda ?? 'not recorded'}`);
  return `c can change reach here: with a length penalty (λ > 0) the means differ before the first hit, and an informed reward steers after it, so the rows are the sweep's finding (${described.join('; ')}).${inert.length > 0 ? ` Only the ${inert.length} run${inert.length === 1 ? '' : 's'} at reward 0/1 with λ = 0 cannot move with c.` : ''}`;
}

export function searchSweepView(rows: readonly SearchSweepRow[]): TableView {
  return {
    id: 'search-sweep',
    title: 'Route search over its exploration constant c (--search-sweep)',
    notes: [
      rows.map((r) => (rows.length > 1 ? `${r.model}: ${sweepSideText(r.points)}` : sweepSideText(r.points))).join(' '),
      'Each sweep search is the same search (same random stream) at another c, stopped at its first correct route, so this is reach only; routes a question had already evaluated were reused, not generated again. Intervals: Wilson for reach, Newcombe paired score for routes − search; p: exact McNemar, unadjusted.',
      sweepRewardNote(rows),
    ],
    headers: ['model', 'dataset', 'n', 'budget', 'c', 'reachable · routes', 'reachable · search', 'only routes', 'only search', 'routes − search (pts) [95% CI]', 'McNemar p', 'sweep cost'],
    rows: rows.flatMap((r) =>
      r.points.map((p) => [
        r.finished ? r.model : `${r.model} (unfinished)`,
        r.dataset,
        String(r.n),
        String(r.budget),
        p.own ? `${p.c} (the probe's)` : String(p.c),
        rateText(r.routes),
        rateText(p.search),
        String(p.onlyRoutes),
        String(p.onlySearch),
        `${pts(p.difference.delta)} [${pts(p.difference.lo)}, ${pts(p.difference.hi)}]`,
        pText(p.mcnemarP),
        `${r.generations} new generations, ${r.reused} of ${r.evaluated} routes reused`,
      ]),
    ),
    csvHeaders: ['folder', 'model', 'dataset', 'finished', 'n', 'budget', 'c', 'own_c', 'routes_reachable', 'routes_lo', 'routes_hi', 'search_reachable', 'search_lo', 'search_hi', 'only_routes', 'only_search', 'difference', 'difference_lo', 'difference_hi', 'mcnemar_p', 'sweep_generations', 'sweep_reused', 'sweep_evaluated', 'sign_stable'],
    csvRows: rows.flatMap((r) =>
      r.points.map((p) => [
        r.folder, r.model, r.dataset, r.finished, r.n, r.budget, p.c, p.own,
        r.routes.rate, r.routes.ci.lo, r.routes.ci.hi, p.search.rate, p.search.ci.lo, p.search.ci.hi,
        p.onlyRoutes, p.onlySearch, p.difference.delta, p.difference.lo, p.difference.hi, p.mcnemarP,
        r.generations, r.reused, r.evaluated, r.signStable,
      ]),
    ),
    apart: [],
  };
}
