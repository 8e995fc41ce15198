/**
 * The cross-run tables as `reach-audit table` and the Tables page both assemble them: random routes
 * vs search and repair over the runs, training over the comparisons, each with its view (a
 * training view only when a comparison is among the sources).
 */
import { repairTable, routesVsSearchTable, searchSweepRows, trainingTable, type ComparisonForTables, type RepairRow, type RoutesVsSearchTable, type RunForTables, type SearchSweepRow, type TableOptions, type TrainingTable } from '../results';
import { repairView, routesVsSearchView, trainingView, type TableView } from './tablesReport';
import { searchSweepView } from './searchSweepView';

export const TABLE_KINDS = ['routes-vs-search', 'repair', 'training'] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

export interface TableSet {
  tables: {
    routesVsSearch?: RoutesVsSearchTable;
    /** The search over its exploration sweep: only runs audited with --search-sweep. */
    searchSweep?: SearchSweepRow[];
    repair?: { rows: RepairRow[]; missing: { folder: string; reason: string }[] };
    training?: TrainingTable;
  };
  views: TableView[];
}

/** The tables of `kinds` (default all three), in the order routes vs search, repair, training. */
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
    if (comparisons.length > 0) set.views.push(trainingView(t));
  }
  return set;
}
