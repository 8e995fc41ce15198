/**
 * summary.json from records.jsonl alone (a pure function): the run's rates with n and Wilson
 * intervals, pass@k curves, answer-blind accuracy, the global route, the repair analysis and the
 * budget per probe. A resumed run and an uninterrupted one have the same records, so the same summary.
 */
import { addBudget, emptyBudget, type Budget } from '../probes/budget';
import type { QuestionRecord } from '../run/record';
import { analyzeRepair, type RepairSummary } from '../repair/repairScan';
import { chooseGlobalRoute } from '../probes/blindSelectors';
import { splitBySeededKey } from '../repair/seededSplit';
import { passAtK, rateOf, type Rate } from './stats';

export interface GlobalRouteSummary {
  poolSize: number;
  /** Index into the pool and the route itself; null when nothing could be selected. */
  index: number | null;
  route: number[] | null;
  selection: { n: number; accuracy: Rate };
  /** Everything below is over the held-out split only. */
  heldOut: { n: number; accuracy: Rate; realized: Rate; reachable: Record<string, Rate> };
}

export interface RunSummary {
  n: number;
  realized: Rate;
  reachable: Record<string, Rate>;
  /** Reachable by any probe run: the reachable ceiling. */
  reachableAny: Rate;
  passAtK: Record<string, Record<string, number>>;
  /** `unbiased`: Chen et al. estimator over the attempts; `first-k`: solved within the first k attempts (search, whose attempts are ordered). */
  passAtKKind: Record<string, 'unbiased' | 'first-k'>;
  blind: Record<string, Record<string, Rate>>;
  globalRoute?: GlobalRouteSummary;
  repair?: RepairSummary;
  budget: Record<string, Budget>;
  /** Cost outside the probes: the deployment, the global route pool, the repair scan. */
  cost: { deployment: Budget; globalRoutes: Budget; repair: Budget };
  states: { realized: number; reachableNotRealized: number; unreached: number };
  truncated: { realized: number };
  probes: string[];
  selectors: string[];
}

/** A question's state: realized, else reachable by some probe, else unreached. */
export function questionState(r: QuestionRecord): 'realized' | 'reachable' | 'unreached' {
  if (r.realized.correct) return 'realized';
  return Object.values(r.reachable).some(Boolean) ? 'reachable' : 'unreached';
}

function passAtKCurve(records: readonly QuestionRecord[], probe: string, kind: 'unbiased' | 'first-k'): Record<string, number> {
  const budget = Math.max(0, ...records.map((r) => r.probes[probe]?.budget ?? 0));
  const curve: Record<string, number> = {};
  const used = records.filter((r) => r.probes[probe]);
  if (used.length === 0) return curve;
  for (let k = 1; k <= budget; k++) {
    let sum = 0;
    for (const r of used) {
      const correct = r.probes[probe].correct;
      const n = correct.length;
      const c = correct.filter(Boolean).length;
      if (kind === 'first-k') sum += correct.slice(0, k).some(Boolean) ? 1 : 0;
      else if (k > n) sum += c > 0 ? 1 : 0; // fewer attempts than k (route space used up): all of them are in every k-subset
      else sum += passAtK(n, c, k);
    }
    curve[String(k)] = sum / used.length;
  }
  return curve;
}

function orderedKeys(records: readonly QuestionRecord[], pick: (r: QuestionRecord) => Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const r of records) for (const k of Object.keys(pick(r))) if (!keys.includes(k)) keys.push(k);
  return keys;
}

function globalRouteSummary(records: readonly QuestionRecord[], probes: readonly string[]): GlobalRouteSummary | undefined {
  const pooled = records.filter((r) => r.globalRoutes);
  if (pooled.length === 0) return undefined;
  const poolSize = Math.min(...pooled.map((r) => r.globalRoutes!.attempts.length));
  const { selection, heldOut } = splitBySeededKey(pooled, (r) => ({ splitKey: r.globalRoutes!.splitKey, id: r.id }));
  const index = chooseGlobalRoute(selection.map((r) => r.globalRoutes!.attempts.map((a) => a.correct)), poolSize);
  const correctOn = (set: readonly QuestionRecord[]) => (index === undefined ? 0 : set.filter((r) => r.globalRoutes!.attempts[index].correct).length);
  const reachable: Record<string, Rate> = {};
  for (const p of probes) reachable[p] = rateOf(heldOut.filter((r) => r.reachable[p]).length, heldOut.length);
  return {
    poolSize,
    index: index ?? null,
    route: index === undefined ? null : (pooled[0].globalRoutes!.attempts[index].route ?? null),
    selection: { n: selection.length, accuracy: rateOf(correctOn(selection), selection.length) },
    heldOut: {
      n: heldOut.length,
      accuracy: rateOf(correctOn(heldOut), heldOut.length),
      realized: rateOf(heldOut.filter((r) => r.realized.correct).length, heldOut.length),
      reachable,
    },
  };
}

/** Records in file order (line, then id), so float sums never depend on the order questions finished in. */
function inFileOrder(records: readonly QuestionRecord[]): QuestionRecord[] {
  return records.slice().sort((a, b) => a.line - b.line || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function summarize(unordered: readonly QuestionRecord[]): RunSummary {
  const records = inFileOrder(unordered);
  const n = records.length;
  const probes = orderedKeys(records, (r) => r.probes);
  const selectors = orderedKeys(records, (r) => Object.assign({}, ...Object.values(r.blind)) as Record<string, unknown>);
  const reachable: Record<string, Rate> = {};
  const passCurves: RunSummary['passAtK'] = {};
  const passKinds: RunSummary['passAtKKind'] = {};
  const budget: Record<string, Budget> = {};
  for (const p of probes) {
    const used = records.filter((r) => r.probes[p]);
    reachable[p] = rateOf(used.filter((r) => r.reachable[p]).length, used.length);
    passKinds[p] = p === 'search' ? 'first-k' : 'unbiased';
    passCurves[p] = passAtKCurve(records, p, passKinds[p]);
    budget[p] = used.reduce((b, r) => addBudget(b, r.probes[p].cost), emptyBudget());
  }

  const globalRoute = globalRouteSummary(records, probes);
  const blind: RunSummary['blind'] = {};
  for (const p of probes) {
    const perProbe: Record<string, Rate> = {};
    for (const s of orderedKeys(records, (r) => r.blind[p] ?? {})) {
      const chosen = records.filter((r) => r.blind[p]?.[s]);
      perProbe[s] = rateOf(chosen.filter((r) => r.blind[p][s].correct).length, chosen.length);
    }
    // global-route is a run-level choice: scored on the held-out split of the shared pool.
    if (globalRoute && (p === 'routes' || p === 'search')) perProbe['global-route'] = globalRoute.heldOut.accuracy;
    if (Object.keys(perProbe).length > 0) blind[p] = perProbe;
  }
  if (globalRoute && !selectors.includes('global-route')) selectors.push('global-route');

  const cost = { deployment: emptyBudget(), globalRoutes: emptyBudget(), repair: emptyBudget() };
  const states = { realized: 0, reachableNotRealized: 0, unreached: 0 };
  let truncated = 0;
  for (const r of records) {
    addBudget(cost.deployment, r.realized.cost);
    if (r.globalRoutes) addBudget(cost.globalRoutes, r.globalRoutes.cost);
    if (r.repair) addBudget(cost.repair, r.repair.cost);
    const state = questionState(r);
    if (state === 'realized') states.realized++;
    else if (state === 'reachable') states.reachableNotRealized++;
    else states.unreached++;
    if (r.realized.truncated) truncated++;
  }

  const summary: RunSummary = {
    n,
    realized: rateOf(records.filter((r) => r.realized.correct).length, n),
    reachable,
    reachableAny: rateOf(records.filter((r) => Object.values(r.reachable).some(Boolean)).length, n),
    passAtK: passCurves,
    passAtKKind: passKinds,
    blind,
    budget,
    cost,
    states,
    truncated: { realized: truncated },
    probes,
    selectors,
  };
  if (globalRoute) summary.globalRoute = globalRoute;
  const repair = analyzeRepair(records);
  if (repair) summary.repair = repair;
  return summary;
}
