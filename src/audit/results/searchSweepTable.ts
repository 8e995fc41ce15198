/**
 * The route search over its exploration sweep (--search-sweep; docs/design/probes.md "Exploration sweep"),
 * for the routes-vs-search table: per run that recorded a sweep, the search's reach at its own c and
 * at each sweep c, each beside random routes on the same questions (routes − search with Newcombe's
 * paired score interval and the exact McNemar p), so a reader sees whether the comparison's sign
 * depends on c. What the sweep cost in new generations, and how many of its routes were reused.
 * Reach only: the sweep searches stop at their first correct route, so no pass@k.
 */
import { rateOf, type QuestionRecord, type SearchReward, type SearchSweepNumbers, type SweepPointRow } from '../../contract';
import { mcnemarExact, pairedScoreInterval } from '../stats';

export interface SearchSweepRow extends SearchSweepNumbers {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  /** The search's reward and length penalty λ (null: not recorded): what the sweep's c can change depends on them. */
  searchReward: SearchReward;
  searchLambda: number | null;
}

export interface SweepSource {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  records: readonly QuestionRecord[];
  /** The search probe's own c (manifest search.c). */
  searchC?: number;
  searchReward?: SearchReward;
  searchLambda?: number;
}

function pointRow(c: number, own: boolean, routes: readonly boolean[], search: readonly boolean[]): SweepPointRow {
  let both = 0;
  let onlyRoutes = 0;
  let onlySearch = 0;
  routes.forEach((r, i) => {
    if (r && search[i]) both++;
    else if (r) onlyRoutes++;
    else if (search[i]) onlySearch++;
  });
  const n = routes.length;
  const ci = pairedScoreInterval({ both, onlyFirst: onlyRoutes, onlySecond: onlySearch, neither: n - both - onlyRoutes - onlySearch });
  return {
    c,
    own,
    search: rateOf(both + onlySearch, n),
    difference: { delta: n === 0 ? 0 : (onlyRoutes - onlySearch) / n, lo: ci.lo, hi: ci.hi },
    onlyRoutes,
    onlySearch,
    mcnemarP: mcnemarExact(onlyRoutes, onlySearch),
  };
}

const side = (p: SweepPointRow) => (p.difference.lo > 0 ? 1 : p.difference.hi < 0 ? -1 : 0);

/**
 * The sweep of one run's records: over the questions that ran it and both route probes; undefined
 * when none did. `searchC`: the search probe's own c (manifest search.c), its row marked.
 */
export function searchSweepOf(all: readonly QuestionRecord[], searchC: number | undefined): SearchSweepNumbers | undefined {
  const records = all.filter((r) => !r.skipped && r.searchSweep && r.probes.routes && r.probes.search);
  if (records.length === 0) return undefined;
  const routes = records.map((r) => r.reachable.routes === true);
  const constants = records[0].searchSweep!.map((p) => p.c);
  const points = [
    ...(searchC === undefined ? [] : [pointRow(searchC, true, routes, records.map((r) => r.reachable.search === true))]),
    ...constants.map((c, j) => pointRow(c, false, routes, records.map((r) => r.searchSweep![j]?.reached === true))),
  ].sort((a, b) => a.c - b.c);
  const sweep = records.flatMap((r) => r.searchSweep!);
  return {
    n: records.length,
    budget: records[0].probes.search.budget,
    routes: rateOf(routes.filter(Boolean).length, routes.length),
    points,
    generations: sweep.reduce((t, p) => t + p.cost.generations, 0),
    reused: sweep.reduce((t, p) => t + p.reused, 0),
    evaluated: sweep.reduce((t, p) => t + p.evaluated, 0),
    signStable: new Set(points.map(side)).size === 1,
  };
}

/** One row per run whose records carry a sweep and both route probes; runs without one are left out. */
export function searchSweepRows(sources: readonly SweepSource[]): SearchSweepRow[] {
  const rows: SearchSweepRow[] = [];
  for (const s of sources) {
    const sweep = searchSweepOf(s.records, s.searchC);
    if (sweep) rows.push({ folder: s.folder, model: s.model, dataset: s.dataset, finished: s.finished, searchReward: s.searchReward ?? 'correct', searchLambda: s.searchLambda ?? null, ...sweep });
  }
  return rows;
}
