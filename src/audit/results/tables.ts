/**
 * The paper's tables across many runs, computed from the runs' records (never from hand-copied
 * numbers): random routes vs search at a matched budget per setting, the repair analysis per run,
 * and realized vs reachable-ceiling movement per checkpoint comparison. Each row carries its n and
 * 95% intervals; each table's headline ("X of Y") states the rule that decided it.
 */
import type { PairedDelta, QuestionRecord } from '../../contract';
import { analyzeRepair } from '../repair/repairScan';
import { rateOf, type Rate } from './stats';
import { compareProbes } from './probeComparison';
import { compareRecords } from './compare';

/** One audited setting: a model on a dataset, with its records. */
export interface RunForTables {
  folder: string;
  model: string;
  dataset: string;
  seed: number;
  records: readonly QuestionRecord[];
}

export interface ProbeCost {
  /** Attempts per question (the probe's budget B). */
  budget: number;
  generations: number;
  tokens: number;
  blockApplications: number;
}

export interface RoutesVsSearchRow {
  folder: string;
  model: string;
  dataset: string;
  n: number;
  routes: { reachable: Rate; cost: ProbeCost };
  search: { reachable: Rate; cost: ProbeCost };
  /** search ÷ routes for tokens and block applications (generations are matched). */
  costRatio: { tokens: number; blockApplications: number };
  onlyRoutes: number;
  onlySearch: number;
  /** routes − search, paired bootstrap 95% interval. */
  difference: { delta: number; lo: number; hi: number };
  mcnemarP: number;
  verdict: 'routes better' | 'no difference' | 'search better';
}

export interface RoutesVsSearchTable {
  rule: string;
  rows: RoutesVsSearchRow[];
  /** Settings whose two probes had different budgets: listed, not counted. */
  unmatched: { folder: string; model: string; dataset: string; routesBudget: number; searchBudget: number }[];
  /** Settings that did not run both probes. */
  missing: { folder: string; reason: string }[];
  routesAtLeastSearch: number;
}

export interface RepairRow {
  folder: string;
  model: string;
  dataset: string;
  failureSetSize: number;
  identifiedBlock: number | null;
  selectionSize: number;
  heldOutSize: number;
  /** l*'s repair rate on the held-out half of the failure set. */
  heldOutRepair: Rate | null;
  /** l*'s damage over the realized questions. */
  damage: Rate | null;
}

export interface TrainingRow {
  folder: string;
  base: string;
  tuned: string;
  dataset: string;
  n: number;
  realized: PairedDelta;
  ceiling: PairedDelta;
  newlyRealized: { n: number; alreadyReachable: number; newlyReachable: number };
  realizedUp: boolean;
  ceilingFlatOrDown: boolean;
}

export interface TrainingTable {
  rule: string;
  rows: TrainingRow[];
  realizedUpCeilingFlat: number;
}

export interface ComparisonForTables {
  folder: string;
  dataset: string;
  base: RunForTables;
  tuned: RunForTables;
}

const ROUTES_RULE =
  'routes ≥ search when the paired-bootstrap 95% interval of (routes − search) reachable rate does not lie below 0 ("routes better": it lies above 0; "no difference": it contains 0); settings whose probes had unequal budgets are listed apart and not counted';
const TRAINING_RULE =
  'realized up: the 95% paired interval of realized Δ lies above 0; ceiling flat or down: the interval of reachable-ceiling Δ does not lie above 0';

const costOf = (budget: number, spent: { generations: number; tokens: number; blockApplications: number }): ProbeCost => ({ budget, ...spent });

/** One row per run, from the same paired comparison summary.json carries (compareProbes). */
export function routesVsSearchTable(runs: readonly RunForTables[]): RoutesVsSearchTable {
  const table: RoutesVsSearchTable = { rule: ROUTES_RULE, rows: [], unmatched: [], missing: [], routesAtLeastSearch: 0 };
  for (const run of runs) {
    const c = compareProbes(run.records, 'routes', 'search');
    if (!c || !c.difference) {
      table.missing.push({ folder: run.folder, reason: 'did not run both the routes and the search probe' });
      continue;
    }
    if (c.match === 'unmatched') {
      table.unmatched.push({ folder: run.folder, model: run.model, dataset: run.dataset, routesBudget: c.budget.a, searchBudget: c.budget.b });
      continue;
    }
    const d = c.difference;
    const verdict = d.lo > 0 ? 'routes better' : d.hi < 0 ? 'search better' : 'no difference';
    if (verdict !== 'search better') table.routesAtLeastSearch++;
    const inverse = (x: number | null) => (x === null || x === 0 ? Number.NaN : 1 / x);
    table.rows.push({
      folder: run.folder,
      model: run.model,
      dataset: run.dataset,
      n: c.n,
      routes: { reachable: rateOf(c.both + c.onlyA, c.n), cost: costOf(c.budget.a, c.cost.a) },
      search: { reachable: rateOf(c.both + c.onlyB, c.n), cost: costOf(c.budget.b, c.cost.b) },
      costRatio: { tokens: inverse(c.cost.ratio.tokens), blockApplications: inverse(c.cost.ratio.blockApplications) },
      onlyRoutes: c.onlyA,
      onlySearch: c.onlyB,
      difference: { delta: d.estimate, lo: d.lo, hi: d.hi },
      mcnemarP: c.mcnemarP,
      verdict,
    });
  }
  return table;
}

export function repairTable(runs: readonly RunForTables[]): { rows: RepairRow[]; missing: { folder: string; reason: string }[] } {
  const rows: RepairRow[] = [];
  const missing: { folder: string; reason: string }[] = [];
  for (const run of runs) {
    const repair = analyzeRepair(run.records);
    if (!repair) {
      missing.push({ folder: run.folder, reason: 'no repair scan (audit with --repair)' });
      continue;
    }
    rows.push({
      folder: run.folder,
      model: run.model,
      dataset: run.dataset,
      failureSetSize: repair.failureSetSize,
      identifiedBlock: repair.identifiedBlock,
      selectionSize: repair.selectionSize,
      heldOutSize: repair.n,
      heldOutRepair: repair.identifiedBlock === null || repair.n === 0 ? null : rateOf(repair.repaired, repair.n),
      damage: repair.byBlock.find((b) => b.block === repair.identifiedBlock)?.damage ?? null,
    });
  }
  return { rows, missing };
}

export function trainingTable(comparisons: readonly ComparisonForTables[]): TrainingTable {
  const table: TrainingTable = { rule: TRAINING_RULE, rows: [], realizedUpCeilingFlat: 0 };
  for (const c of comparisons) {
    const cmp = compareRecords(c.base.records, c.tuned.records, c.base.seed);
    const realizedUp = cmp.realized.ci.lo > 0;
    const ceilingFlatOrDown = !(cmp.reachableCeiling.ci.lo > 0);
    if (realizedUp && ceilingFlatOrDown) table.realizedUpCeilingFlat++;
    table.rows.push({
      folder: c.folder,
      base: c.base.model,
      tuned: c.tuned.model,
      dataset: c.dataset,
      n: cmp.n,
      realized: cmp.realized,
      ceiling: cmp.reachableCeiling,
      newlyRealized: { n: cmp.newlyRealized.n, alreadyReachable: cmp.newlyRealized.alreadyReachable.successes, newlyReachable: cmp.newlyRealized.newlyReachable.successes },
      realizedUp,
      ceilingFlatOrDown,
    });
  }
  return table;
}
