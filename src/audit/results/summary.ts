/**
 * summary.json from records.jsonl alone (a pure function): the run's rates with n and Wilson
 * intervals, pass@k curves, answer-blind accuracy, the global route, the repair analysis and the
 * budget per probe. A resumed run and an uninterrupted one have the same records, so the same summary.
 */
import { addBudget, emptyBudget, chooseGlobalRoute } from '../probes';
import { interfaceFailures } from './interfaceFailures';
import { analyzeRepair, splitBySeededKey } from '../repair';
import { seedFor, bootstrapColumnMeans } from '../stats';
import { chanceSummary } from './chanceLevel';
import { compareProbes, probeExhaustion } from './probeComparison';
import { blindRetention, blindRetentionByProbe } from './blindRetention';
import { MIN_BOOTSTRAP_QUESTIONS, orderedKeys, passAtKRows, zeroOnePassAtKInterval, runRates, stopsAtFirstCorrect, rateOf, type BlindDropped, type Budget, type GlobalRouteSummary, type LearnedRouteSummary, type Interval, type PassAtKKind, type QuestionRecord, type Rate, type ReadingSummary, type RunSummary, type TruncationCount, isAnswerBlindProbe } from '../../contract';
import { depthSummary } from './depthSummary';
import { foreclosureSummary } from './foreclosureSummary';
import { forkSummary } from './forkSummary';
import { learnedRouteSummary } from './learnedRouteSummary';
import { coverAtTau } from './coverAtTau';
import { unfinishedThoughts } from './thoughtCounts';

/**
 * A probe's pass@k curve (the contract's rows, averaged) with its interval per k: Wilson where every
 * question's value is 0 or 1 (pass@B, and every k of a first-k curve: a plain rate), otherwise the
 * percentile bootstrap over questions, left out below MIN_BOOTSTRAP_QUESTIONS questions.
 */
function passAtKCurve(records: readonly QuestionRecord[], probe: string): { kind: PassAtKKind; curve: Record<string, number>; ci: Record<string, Interval> } {
  const { kind, budget, rows } = passAtKRows(records, probe);
  const curve: Record<string, number> = {};
  const ci: Record<string, Interval> = {};
  if (rows.length === 0) return { kind, curve, ci };
  for (let k = 1; k <= budget; k++) {
    let sum = 0;
    for (const row of rows) sum += row[k - 1];
    curve[String(k)] = sum / rows.length;
  }
  const boot = rows.length >= MIN_BOOTSTRAP_QUESTIONS ? bootstrapColumnMeans(rows, { seed: seedFor('summary', 'pass-at-k', probe), resamples: 10000 }) : [];
  for (let k = 1; k <= budget; k++) {
    const wilson = zeroOnePassAtKInterval(rows.map((row) => row[k - 1]));
    if (wilson) ci[String(k)] = wilson;
    else if (boot[k - 1]) ci[String(k)] = { lo: boot[k - 1].lo, hi: boot[k - 1].hi };
  }
  return { kind, curve, ci };
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

/** Retention per probe and selector; global-route's over the held-out split of the route pool. */
function blindRetentionWithGlobal(records: readonly QuestionRecord[], probes: readonly string[], globalRoute: GlobalRouteSummary | undefined, learnedRoute: LearnedRouteSummary | undefined): RunSummary['blindRetention'] {
  const out = blindRetentionByProbe(records, probes);
  if (globalRoute && globalRoute.index !== null && probes.includes('routes')) {
    const index = globalRoute.index;
    // The same split as globalRouteSummary's: over every question with the pool.
    const pooled = records.filter((r) => r.globalRoutes);
    const { heldOut } = splitBySeededKey(pooled, (r) => ({ splitKey: r.globalRoutes!.splitKey, id: r.id }));
    (out.routes ??= {})['global-route'] = blindRetention(
      heldOut.filter((r) => r.probes.routes).map((r) => ({ blind: r.globalRoutes!.attempts[index]?.correct === true, realized: r.realized.correct, reachable: r.reachable.routes === true })),
      ['routes', 'global-route'],
    );
  }
  if (learnedRoute?.retention && probes.includes('routes')) (out.routes ??= {})['learned-route'] = learnedRoute.retention.learned;
  return out;
}

function readingSummaries(records: readonly QuestionRecord[], probes: readonly string[]): RunSummary['readings'] {
  const read = records.filter((r) => r.realized.strict && r.realized.flexible);
  if (read.length === 0) return undefined;
  const reading = (which: 'strict' | 'flexible'): ReadingSummary => {
    const reachable: Record<string, Rate> = {};
    // A pool cut at its first hit under the run's reading says nothing of a hit under another.
    for (const p of probes.filter((q) => !stopsAtFirstCorrect(records, q))) {
      const used = read.filter((r) => r.probes[p]);
      reachable[p] = rateOf(used.filter((r) => r.probes[p].attempts.some((a) => a[which]?.correct === true)).length, used.length);
    }
    return { realized: rateOf(read.filter((r) => r.realized[which]?.correct === true).length, read.length), reachable };
  };
  return { strict: reading('strict'), flexible: reading('flexible') };
}

/**
 * Per probe, the candidates its blind selectors left out (every selector cleans the same pool, so
 * one selector's count per question), over the questions whose records carry the count.
 */
function blindDroppedByProbe(records: readonly QuestionRecord[], probes: readonly string[]): Record<string, BlindDropped> {
  const out: Record<string, BlindDropped> = {};
  for (const p of probes) {
    const counts = { dropped: 0, candidates: 0, questions: 0 };
    for (const r of records) {
      const dropped = Object.values(r.blind[p] ?? {}).find((c) => c.dropped !== undefined)?.dropped;
      if (dropped === undefined) continue;
      counts.dropped += dropped;
      counts.candidates += r.probes[p]?.attempts.length ?? 0;
      counts.questions++;
    }
    if (counts.questions > 0) out[p] = counts;
  }
  return out;
}

/** Records in file order (line, then id), so float sums never depend on the order questions finished in. */
function inFileOrder(records: readonly QuestionRecord[]): QuestionRecord[] {
  return records.slice().sort((a, b) => a.line - b.line || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function summarize(unordered: readonly QuestionRecord[]): RunSummary {
  const ordered = inFileOrder(unordered);
  // Questions whose prompt did not fit the context were not audited: counted apart from n.
  const records = ordered.filter((r) => !r.skipped);
  const skipped = ordered.filter((r) => r.skipped);
  // n, realized, reachable, the per-question blind selectors and the states: the contract's
  // runRates, which the Runs view and the panel use for a run without summary.json.
  const rates = runRates(records);
  const n = rates.n;
  const probes = Object.keys(rates.reachable);
  const selectors = orderedKeys(records, (r) => Object.assign({}, ...Object.entries(r.blind).filter(([p]) => isAnswerBlindProbe(p)).map(([, v]) => v)) as Record<string, unknown>);
  const passCurves: RunSummary['passAtK'] = {};
  const passCi: RunSummary['passAtKCi'] = {};
  const reachableNotRealized: RunSummary['reachableNotRealized'] = {};
  const byProbeBudget: Record<string, number> = {};
  const exhausted: RunSummary['exhausted'] = {};
  const passKinds: RunSummary['passAtKKind'] = {};
  const budget: Record<string, Budget> = {};
  for (const p of probes) {
    const used = records.filter((r) => r.probes[p]);
    const curve = passAtKCurve(records, p);
    passKinds[p] = curve.kind;
    passCurves[p] = curve.curve;
    passCi[p] = curve.ci;
    budget[p] = used.reduce((b, r) => addBudget(b, r.probes[p].cost), emptyBudget());
    reachableNotRealized[p] = rateOf(used.filter((r) => r.reachable[p] && !r.realized.correct).length, used.length);
    byProbeBudget[p] = Math.max(0, ...used.map((r) => r.probes[p].budget));
    if (p !== 'sample') exhausted[p] = probeExhaustion(used, p);
  }

  const globalRoute = globalRouteSummary(records, probes);
  const learnedRoute = learnedRouteSummary(records);
  const blind: RunSummary['blind'] = {};
  // Only answer-independent probes: the search chose its outputs with a reward that used the gold
  // answer, so selecting among them is not answer-blind (records of older runs may still hold it).
  const blindProbes = probes.filter(isAnswerBlindProbe);
  for (const p of blindProbes) {
    const perProbe: Record<string, Rate> = { ...rates.blind[p] };
    // global-route is a run-level choice: scored on the held-out split of the shared pool.
    if (globalRoute && p === 'routes') perProbe['global-route'] = globalRoute.heldOut.accuracy;
    // learned-route: cross-fitted over every question with the pool (each fold's route fit on the others).
    if (learnedRoute && p === 'routes') perProbe['learned-route'] = learnedRoute.accuracy.learned;
    if (Object.keys(perProbe).length > 0) blind[p] = perProbe;
  }
  if (globalRoute && !selectors.includes('global-route')) selectors.push('global-route');
  if (learnedRoute && !selectors.includes('learned-route')) selectors.push('learned-route');
  const blindDropped = blindDroppedByProbe(records, blindProbes);

  const cost = { deployment: emptyBudget(), globalRoutes: emptyBudget(), repair: emptyBudget() };
  let truncated = 0;
  for (const r of records) {
    addBudget(cost.deployment, r.realized.cost);
    if (r.globalRoutes) addBudget(cost.globalRoutes, r.globalRoutes.cost);
    if (r.repair) addBudget(cost.repair, r.repair.cost);
    if (r.realized.truncated) truncated++;
  }

  const truncation: RunSummary['truncated'] = { realized: truncated, probes: {} };
  const count = (outputs: readonly { truncated: boolean }[]): TruncationCount => ({ truncated: outputs.filter((o) => o.truncated).length, outputs: outputs.length });
  for (const p of probes) truncation.probes[p] = count(records.flatMap((r) => r.probes[p]?.attempts ?? []));
  const pooled = records.flatMap((r) => r.globalRoutes?.attempts ?? []);
  if (pooled.length > 0) truncation.globalRoutes = count(pooled);
  const repaired = records.flatMap((r) => Object.values(r.repair?.truncatedBySilencedBlock ?? {}).map((t) => ({ truncated: t })));
  if (repaired.length > 0) truncation.repair = count(repaired);
  const thoughts = unfinishedThoughts(records, probes);

  const summary: RunSummary = {
    n,
    realized: rates.realized,
    reachable: rates.reachable,
    reachableAny: rates.reachableAny,
    realizedNotReached: rates.realizedNotReached,
    reachableAnyBudget: { attempts: Object.values(byProbeBudget).reduce((a, b) => a + b, 0), byProbe: byProbeBudget },
    reachableNotRealized,
    passAtK: passCurves,
    passAtKCi: passCi,
    passAtKKind: passKinds,
    blind,
    blindRetention: blindRetentionWithGlobal(records, blindProbes, globalRoute, learnedRoute),
    exhausted,
    budget,
    cost,
    states: rates.states,
    truncated: truncation,
    ...(thoughts ? { unfinishedThoughts: thoughts } : {}),
    skipped: {
      n: skipped.length,
      questions: skipped.flatMap((r) => (r.skipped?.reason === 'context' ? [{ id: r.id, line: r.line, promptTokens: r.skipped.promptTokens, maxNewTokens: r.skipped.maxNewTokens, contextLimit: r.skipped.contextLimit }] : [])),
      fewShotExamples: skipped.flatMap((r) => (r.skipped?.reason === 'exemplar' ? [{ id: r.id, line: r.line }] : [])),
    },
    promptTruncated: records.filter((r) => r.promptTruncated).length,
    probes,
    selectors,
  };
  const untilReached = probes.filter((p) => stopsAtFirstCorrect(records, p));
  if (untilReached.length > 0) summary.untilReached = untilReached;
  if (globalRoute) summary.globalRoute = globalRoute;
  if (learnedRoute) summary.learnedRoute = learnedRoute;
  if (Object.keys(blindDropped).length > 0) summary.blindDropped = blindDropped;
  const chance = chanceSummary(records, probes);
  if (chance) summary.chance = chance;
  const routesVsSearch = probes.includes('routes') && probes.includes('search') ? compareProbes(records, 'routes', 'search') : undefined;
  if (routesVsSearch) summary.routesVsSearch = routesVsSearch;
  const disagreements = interfaceFailures(ordered);
  if (disagreements) summary.interfaceFailures = disagreements;
  const readings = readingSummaries(records, probes);
  if (readings) summary.readings = readings;
  const repair = analyzeRepair(records);
  if (repair) summary.repair = repair;
  const cover = coverAtTau(records, probes);
  if (cover) summary.coverAtTau = cover;
  const depth = depthSummary(records);
  if (depth) summary.depth = depth;
  const foreclosure = foreclosureSummary(records);
  if (foreclosure) summary.foreclosure = foreclosure;
  const fork = forkSummary(records);
  if (fork) summary.fork = fork;
  return summary;
}
