/**
 * The cross-run tables as `reach-audit table` and the Tables page both assemble them: random routes
 * vs search and repair over the runs, training over the comparisons, the perturbation probe against
 * sampling and routes, depth of loss, the learned router, each with its view (a training view only when a comparison is
 * among the sources, a perturbation, depth or learned-route view only when a run has those results).
 */
import { perturbationTable, repairTable, routesVsSearchTable, searchSweepRows, trainingTable, type ComparisonForTables, type PerturbationTable, type RepairRow, type RoutesVsSearchTable, type RunForTables, type SearchSweepRow, type TableOptions, type TrainingTable } from '../results';
import { repairView, routesVsSearchView, trainingView, type TableView } from './tablesReport';
import { perturbationView } from './perturbationView';
import { depthRows, depthView, type DepthRow } from './depthView';
import { forkRows, forkTransitionView, forkView, type ForkRow, type ForkTransitionRow } from './forkView';
import { searchSweepView } from './searchSweepView';
import { learnedRouteRows, learnedRouteView, type LearnedRouteRow } from './learnedRouteView';
import { passAtKDeltaRows, passAtKDeltaView, type PassAtKDeltaRow } from './passAtKDeltaView';

export const TABLE_KINDS = ['routes-vs-search', 'repair', 'training', 'perturbation', 'depth', 'forks', 'learned-route'] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

export interface TableSet {
  tables: {
    routesVsSearch?: RoutesVsSearchTable;
    /** The search over its exploration sweep: only runs audited with --search-sweep. */
    searchSweep?: SearchSweepRow[];
    repair?: { rows: RepairRow[]; missing: { folder: string; reason: string }[] };
    training?: TrainingTable;
    /** Ceilings along k per comparison, beside the training table. */
    passAtKDeltas?: PassAtKDeltaRow[];
    perturbation?: PerturbationTable;
    depth?: { rows: DepthRow[]; missing: { folder: string; reason: string }[] };
    forks?: { rows: ForkRow[]; transitions: ForkTransitionRow[]; missing: { folder: string; reason: string }[] };
    learnedRoute?: { rows: LearnedRouteRow[]; missing: { folder: string; reason: string }[] };
  };
  views: TableView[];
}

/** The tables of `kinds` (default all seven), in the order routes vs search, repair, training, perturbation, depth, forks, learned route. */
export function tableSet(runs: readonly RunForTables[], comparisons: readonly ComparisonForTables[], options: TableOptions & { kinds?: readonly TableKind[] } = {}): TableSet {
  const { kinds = TABLE_KINDS, ...tableOptions } = options;
  const set: TableSet = { tables: {}, views: [] };
  if (kinds.includes('routes-vs-search')) {
    const t = routesVsSearchTable(runs, tableOptions);
    set.tables.routesVsSearch = t;
    set.views.push(routesVsSearchView(t));
    const sweep = searchSweepRows(runs);
    if (sweep.length > 0) {
      set.tables.searchSweep = sweep;
      set.views.push(searchSweepView(sweep));
    }
  }
  if (kinds.includes('repair')) {
    const t = repairTable(runs);
    set.tables.repair = t;
    set.views.push(repairView(t.rows, t.missing));
  }
  if (kinds.includes('training')) {
    const t = trainingTable(comparisons, tableOptions);
    set.tables.training = t;
    if (comparisons.length > 0) {
      set.views.push(trainingView(t));
      const deltas = passAtKDeltaRows(comparisons);
      set.tables.passAtKDeltas = deltas;
      set.views.push(passAtKDeltaView(deltas));
    }
  }
  if (kinds.includes('perturbation')) {
    const t = perturbationTable(runs);
    set.tables.perturbation = t;
    // Shown only where a run tried the probe, so tables of runs without it read as before.
    if (t.rows.length > 0) set.views.push(perturbationView(t));
  }
  if (kinds.includes('depth')) {
    const t = depthRows(runs);
    set.tables.depth = t;
    if (t.rows.length > 0) set.views.push(depthView(t.rows, t.missing));
  }
  if (kinds.includes('forks')) {
    const t = forkRows(runs, comparisons, tableOptions.margin);
    set.tables.forks = t;
    // Shown only where a run forked, so tables of runs without the probe read as before.
    if (t.rows.length > 0) set.views.push(forkView(t.rows, t.missing));
    if (t.transitions.length > 0) set.views.push(forkTransitionView(t.transitions));
  }

  if (kinds.includes('learned-route')) {
    const t = learnedRouteRows(runs);
    set.tables.learnedRoute = t;
    // Shown only where a run used the selector, so tables of other runs read as before.
    if (t.rows.length > 0) set.views.push(learnedRouteView(t.rows, t.missing));
  }
  return set;
}
