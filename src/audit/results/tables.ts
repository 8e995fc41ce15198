/**
 * The paper's tables across many runs, computed from the runs' records (never from hand-copied
 * numbers): random routes vs search at a matched budget per setting, the repair analysis per run,
 * and realized vs reachable-ceiling movement per checkpoint comparison. Each row carries its n, 95%
 * intervals, the exact McNemar p beside its Holm adjustment over the table's rows, the chance level
 * of a choice format, and a decision against the stated margin made once per row
 * (headlineVerdicts.ts, every test Holm-adjusted over the rows); each headline ("X of Y") counts
 * those decisions over the unsaturated rows and says how many were inconclusive. Routes vs search
 * is decided on the gain set (questions the deployment does not realize), all questions beside.
 */
import { chanceSaturation, SATURATION_LEVEL, type PairedDecision, type PairedDelta, type ProbeComparison, type ProbePairing, type QuestionRecord, type RepairNull, type SearchReward, rateOf, type Rate } from '../../contract';
import { analyzeRepair } from '../repair';
import { holmAdjust, ALPHA, DEFAULT_MARGIN, checkMargin } from '../stats';
import { adjustOverRows, decideRoutesVsSearch, decideTraining, type Claim, type RoutesVsSearchVerdict, type RowComparison } from './headlineVerdicts';
import { compareProbes, pairAtMatchedBlockApplications } from './probeComparison';
import { compareRecords, insideCeiling } from './compare';
import { chanceLevel } from './chanceLevel';

/** One audited setting: a model on a dataset, with its records. */
export interface RunForTables {
  folder: string;
  model: string;
  dataset: string;
  seed: number;
  records: readonly QuestionRecord[];
  /** False for a run that has not finished (shown only with --allow-unfinished, and marked). */
  finished: boolean;
  /** Most edits in a random route (manifest routeSpace.maxEdits); the search's depth is not bounded by it. Absent: unknown. */
  randomRouteEdits?: number;
  /** The route search's reward (manifest search.reward); absent: correct (0/1). */
  searchReward?: SearchReward;
  /** The route search's exploration constant (manifest search.c), for the exploration sweep's table. */
  searchC?: number;
  /** The route search's length penalty λ (manifest search.lambda); absent: unknown. */
  searchLambda?: number;
}

export interface TableOptions {
  /** Equivalence margin, a proportion (default 0.05). */
  margin?: number;
}

export interface ProbeCost {
  /** Attempts per question (the probe's budget B). */
  budget: number;
  generations: number;
  tokens: number;
  blockApplications: number;
}

/** A choice format's chance reach (uniform guessing with the same options and attempts); null for other formats. */
export interface ChanceColumn {
  level: number;
  aboveChance: boolean;
}

export type { Claim, RoutesVsSearchVerdict } from './headlineVerdicts';

/** Routes and search on one set of paired questions: rates, discordant counts, routes − search and its exact McNemar p. */
export interface RoutesVsSearchPairing {
  n: number;
  routes: Rate;
  search: Rate;
  onlyRoutes: number;
  onlySearch: number;
  /** routes − search with Newcombe's paired score 95% interval. */
  difference: { delta: number; lo: number; hi: number };
  mcnemarP: number;
}

export interface RoutesVsSearchRow {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  /** Everything up to mcnemarP is over all paired questions, shown beside the gain set's decision. */
  n: number;
  routes: { reachable: Rate; cost: ProbeCost; chance: ChanceColumn | null };
  search: { reachable: Rate; cost: ProbeCost; chance: ChanceColumn | null };
  /** search ÷ routes for tokens and block applications (generations are matched). */
  costRatio: { tokens: number; blockApplications: number };
  onlyRoutes: number;
  onlySearch: number;
  /** routes − search with Newcombe's paired score 95% interval. */
  difference: { delta: number; lo: number; hi: number };
  mcnemarP: number;
  /** The all-question verdict on its own p (for reference: it does not count). */
  allDecision: PairedDecision;
  /** The same over the gain set (paired questions the deployment does not realize): everything below is decided on it. */
  gainSet: RoutesVsSearchPairing;
  /** Gain-set mcnemarP Holm-adjusted over the table's rows; it decides better / worse. */
  holmP: number;
  /** Gain-set equivalence (two one-sided tests) and non-inferiority p, each Holm-adjusted over the table's rows. */
  equivalenceHolmP: number;
  nonInferiorHolmP: number;
  decision: PairedDecision;
  /** The row's one verdict, which the headline counts. */
  verdict: RoutesVsSearchVerdict;
  /** The gain set at matched block applications, on its own p: a view beside matched generations, not counted. */
  atMatchedBlockApplications: RoutesVsSearchPairing & { decision: PairedDecision; spent: { routes: number; search: number } };
  /** Routes non-inferior to search: yes for routes better, equivalent or non-inferior (Holm p < 0.025); no for search better. */
  nonInferior: Claim;
  /** Set when chance saturates the setting: the reason; the row is then not counted. */
  saturated: string | null;
  /** Most edits in a random route; the search may go deeper (routes of any number of edits within the same length bounds). */
  randomRouteEdits: number | null;
  searchReward: SearchReward;
}

export interface RoutesVsSearchTable {
  rule: string;
  margin: number;
  rows: RoutesVsSearchRow[];
  /** Settings whose two probes had different budgets: listed, not counted. */
  unmatched: { folder: string; model: string; dataset: string; routesBudget: number; searchBudget: number }[];
  /** Settings that did not run both probes. */
  missing: { folder: string; reason: string }[];
  /** Over the counted rows (matched, not saturated), all rewards together: read byReward for a headline. */
  counted: number;
  nonInferior: number;
  searchBetter: number;
  inconclusive: number;
  saturated: number;
  /**
   * One family per search reward (0/1 correctness, gold log-probability): rows of different
   * rewards answer different questions, so each reward's rows are Holm-adjusted and counted apart.
   */
  byReward: RewardFamily[];
}

/** A reward's rows: their counts and the compute the search spent per probe in them. */
export interface RewardFamily {
  reward: SearchReward;
  counted: number;
  nonInferior: number;
  searchBetter: number;
  inconclusive: number;
  saturated: number;
  /** Per question, over the family's rows: generations and block applications each probe spent (the gold-logprob search's scoring passes included). */
  perQuestion: { generations: { routes: number; search: number }; blockApplications: { routes: number; search: number } };
}

export interface RepairRow {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  failureSetSize: number;
  identifiedBlock: number | null;
  selectionSize: number;
  heldOutSize: number;
  /** l*'s repair rate on the held-out half of the failure set. */
  heldOutRepair: Rate | null;
  /** l*'s damage over the realized questions. */
  damage: Rate | null;
  /** l* against a random block on the held-out half, by truncation, and its net effect; null without a held-out half. */
  null: RepairNull | null;
  /** null.pValue Holm-adjusted over the table's rows. */
  nullHolmP: number | null;
}

export interface TrainingRow {
  folder: string;
  base: string;
  tuned: string;
  dataset: string;
  finished: boolean;
  n: number;
  /** Decisions use the Holm-adjusted p (holmP, and equivalenceHolmP for equivalence) over the table's rows. */
  realized: PairedDelta & { holmP: number; equivalenceHolmP: number };
  /** The ceiling: realized, or reachable by any probe; notRisingHolmP: one-sided p of Δ < +margin, Holm-adjusted over the rows. */
  ceiling: PairedDelta & { holmP: number; equivalenceHolmP: number; notRisingHolmP: number };
  /** Realized questions no probe reached, per checkpoint (inside the ceiling through the deployment alone). */
  realizedNotReached: { base: number; tuned: number };
  newlyRealized: { n: number; alreadyReachable: number; newlyReachable: number };
  /** Chance reach of the ceiling (deployment and every probe attempt as guesses), per checkpoint. */
  chance: { base: ChanceColumn; tuned: ChanceColumn } | null;
  /** Realized up (better after Holm) while the ceiling does not rise (Holm-adjusted one-sided p < 0.025) and is not better. */
  claim: Claim;
  saturated: string | null;
}

export interface TrainingTable {
  rule: string;
  margin: number;
  rows: TrainingRow[];
  counted: number;
  realizedUpCeilingFlat: number;
  notSo: number;
  inconclusive: number;
  saturated: number;
}

export interface ComparisonForTables {
  folder: string;
  dataset: string;
  base: RunForTables;
  tuned: RunForTables;
}

const pts = (margin: number) => `${+(100 * margin).toFixed(2)} pts`;

function routesRule(margin: number): string {
  return [
    `decided on the gain set (the paired questions the deployment does not realize, where a probe can add an answer), with the all-question figures beside`,
    `interval: Newcombe's paired score 95% interval of the reachable-rate difference (routes − search)`,
    `rows of different search rewards (0/1, gold log-probability) are separate families, adjusted and counted apart`,
    `each test is Holm-adjusted over its reward's rows: the exact McNemar p, the equivalence p (two one-sided tests against ±${pts(margin)}) and the non-inferiority p (one-sided, against −${pts(margin)}; both by inverting the score interval)`,
    `verdict: "search better" is a veto, decided on the unadjusted McNemar p < ${ALPHA} with the interval below 0 (so adding rows never turns it into a counted claim); "routes better" needs Holm p < ${ALPHA} and the interval above 0; else "equivalent" needs the equivalence Holm p < ${ALPHA / 2}; else "routes non-inferior" needs the non-inferiority Holm p < ${ALPHA / 2}; otherwise "inconclusive"`,
    `the headline counts routes better, equivalent and routes non-inferior as non-inferior, search better as search better, the rest as inconclusive`,
    `settings with unequal budgets, and choice-format settings that chance saturates (a uniform guesser's reach ≥ ${100 * SATURATION_LEVEL}% with the same attempts, or a probe's reachable rate not above it), are listed apart and not counted`,
  ].join('; ');
}

function trainingRule(margin: number): string {
  return [
    `ceiling = realized, or reachable by any probe; intervals: Newcombe's paired score 95% interval of tuned − base`,
    `each test is Holm-adjusted over this table's rows: exact McNemar p of realized and of the ceiling, their equivalence p (two one-sided tests against ±${pts(margin)}), and the ceiling's one-sided p of Δ < +${pts(margin)} (by inverting the score interval)`,
    `realized up: lower bound > 0 and Holm p < ${ALPHA}; the ceiling does not rise: its one-sided Holm p < ${ALPHA / 2}`,
    `"no" when realized is equivalent within ±${pts(margin)} (equivalence Holm p < ${ALPHA / 2}) or down, or the ceiling is better; realized down and the ceiling better are vetoes, decided on the unadjusted McNemar p < ${ALPHA} with the interval on that side of 0, so adding rows never turns a "no" into a "yes"; otherwise inconclusive`,
    `choice-format comparisons whose ceiling chance saturates (≥ ${100 * SATURATION_LEVEL}%, or not above chance) are not counted`,
  ].join('; ');
}

const costOf = (budget: number, spent: { generations: number; tokens: number; blockApplications: number }): ProbeCost => ({ budget, ...spent });

const isChoice = (records: readonly QuestionRecord[]) => records.length > 0 && records.every((r) => typeof r.options === 'number' && r.options >= 1);

function probeChance(records: readonly QuestionRecord[], probe: string): ChanceColumn | null {
  if (!isChoice(records)) return null;
  const c = chanceLevel(records.filter((r) => r.probes[probe]).map((r) => ({ options: r.options!, attempts: r.probes[probe].attempts.length, reached: r.reachable[probe] === true })));
  return { level: c.level, aboveChance: c.aboveChance };
}

/** The ceiling's chance: a guesser given the deployment's one answer and every probe attempt. */
function ceilingChance(records: readonly QuestionRecord[]): ChanceColumn | null {
  if (!isChoice(records)) return null;
  const c = chanceLevel(records.map((r) => ({ options: r.options!, attempts: 1 + Object.values(r.probes).reduce((s, p) => s + p.attempts.length, 0), reached: insideCeiling(r) })));
  return { level: c.level, aboveChance: c.aboveChance };
}

function saturation(columns: readonly (readonly [string, ChanceColumn | null])[]): string | null {
  const reasons: string[] = [];
  for (const [what, c] of columns) {
    if (!c) continue;
    const why = chanceSaturation(c);
    if (why === 'chance-reach') reasons.push(`${what}: chance reach ${(100 * c.level).toFixed(1)}%`);
    else if (why === 'not-above-chance') reasons.push(`${what}: not above chance (${(100 * c.level).toFixed(1)}%)`);
  }
  return reasons.length > 0 ? reasons.join('; ') : null;
}

const realRecords = (records: readonly QuestionRecord[]) => records.filter((r) => !r.skipped);

/** A probe pairing as the test families read it (routes first). */
function rowComparison(g: ProbePairing | ProbeComparison | undefined): RowComparison {
  if (!g || !g.difference) return { counts: { both: 0, onlyFirst: 0, onlySecond: 0, neither: 0 }, estimate: 0, lo: -1, hi: 1, mcnemarP: 1 };
  return { counts: { both: g.both, onlyFirst: g.onlyA, onlySecond: g.onlyB, neither: g.neither }, estimate: g.difference.estimate, lo: g.difference.lo, hi: g.difference.hi, mcnemarP: g.mcnemarP };
}

function pairingOf(g: ProbePairing | ProbeComparison | undefined): RoutesVsSearchPairing {
  const c = rowComparison(g);
  const n = c.counts.both + c.counts.onlyFirst + c.counts.onlySecond + c.counts.neither;
  return {
    n,
    routes: rateOf(c.counts.both + c.counts.onlyFirst, n),
    search: rateOf(c.counts.both + c.counts.onlySecond, n),
    onlyRoutes: c.counts.onlyFirst,
    onlySearch: c.counts.onlySecond,
    difference: { delta: c.estimate, lo: c.lo, hi: c.hi },
    mcnemarP: c.mcnemarP,
  };
}

function matchedCompute(c: ProbeComparison, records: readonly QuestionRecord[], margin: number): RoutesVsSearchRow['atMatchedBlockApplications'] {
  const m = c.gainSetAtMatchedBlockApplications ?? pairAtMatchedBlockApplications(records.filter((r) => r.probes.routes && r.probes.search && !r.realized.correct), 'routes', 'search', margin);
  return { ...pairingOf(m), decision: m.decision, spent: { routes: m.spent.a, search: m.spent.b } };
}

/** tuned − base of a stored paired delta as the test families read it (tuned first). */
function deltaComparison(d: PairedDelta): RowComparison {
  const both = Math.round(d.base * d.n) - d.lost;
  return { counts: { both, onlyFirst: d.gained, onlySecond: d.lost, neither: d.n - both - d.gained - d.lost }, estimate: d.delta, lo: d.ci.lo, hi: d.ci.hi, mcnemarP: d.mcnemarP };
}

/** One row per run, from the same paired comparison summary.json carries (compareProbes). */
export function routesVsSearchTable(runs: readonly RunForTables[], options: TableOptions = {}): RoutesVsSearchTable {
  const margin = checkMargin(options.margin ?? DEFAULT_MARGIN);
  const table: RoutesVsSearchTable = { rule: routesRule(margin), margin, rows: [], unmatched: [], missing: [], counted: 0, nonInferior: 0, searchBetter: 0, inconclusive: 0, saturated: 0, byReward: [] };
  const matched: { run: RunForTables; records: QuestionRecord[]; c: ProbeComparison }[] = [];
  for (const run of runs) {
    const records = realRecords(run.records);
    const c = compareProbes(records, 'routes', 'search', { margin });
    if (!c || !c.difference) {
      table.missing.push({ folder: run.folder, reason: 'did not run both the routes and the search probe' });
      continue;
    }
    if (c.match === 'unmatched') {
      table.unmatched.push({ folder: run.folder, model: run.model, dataset: run.dataset, routesBudget: c.budget.a, searchBudget: c.budget.b });
      continue;
    }
    matched.push({ run, records, c });
  }
  const gainSets = matched.map((m) => m.c.gainSet ?? compareProbes(m.records.filter((r) => !r.realized.correct), 'routes', 'search', { margin }));
  const comparisons = gainSets.map((g): RowComparison => rowComparison(g));
  // Each reward is its own Holm family: its rows are adjusted among themselves, never pooled.
  const rewardOf = (i: number): SearchReward => matched[i].run.searchReward ?? 'correct';
  const rewards = [...new Set(matched.map((_, i) => rewardOf(i)))];
  const tests = new Array<ReturnType<typeof adjustOverRows>[number]>(matched.length);
  const familySize = new Array<number>(matched.length);
  for (const reward of rewards) {
    const members = matched.map((_, i) => i).filter((i) => rewardOf(i) === reward);
    adjustOverRows(members.map((i) => comparisons[i]), margin).forEach((t, j) => {
      tests[members[j]] = t;
      familySize[members[j]] = members.length;
    });
  }
  const families = new Map<SearchReward, RewardFamily>(rewards.map((reward) => [reward, { reward, counted: 0, nonInferior: 0, searchBetter: 0, inconclusive: 0, saturated: 0, perQuestion: { generations: { routes: 0, search: 0 }, blockApplications: { routes: 0, search: 0 } } }]));
  const questions = new Map<SearchReward, number>();
  matched.forEach(({ run, records, c }, i) => {
    const d = c.difference!;
    const inverse = (x: number | null) => (x === null || x === 0 ? Number.NaN : 1 / x);
    const paired = records.filter((r) => r.probes.routes && r.probes.search);
    const chance = { routes: probeChance(paired, 'routes'), search: probeChance(paired, 'search') };
    const saturated = saturation([['routes', chance.routes], ['search', chance.search]]);
    // One function decides the row from its Holm-adjusted tests; the headline counts its answer.
    const { decision, verdict, nonInferior } = decideRoutesVsSearch(comparisons[i], tests[i], margin, { familySize: familySize[i], totalN: paired.length });
    const family = families.get(rewardOf(i))!;
    for (const counts of [table, family]) {
      if (saturated) counts.saturated++;
      else {
        counts.counted++;
        if (verdict === 'search better') counts.searchBetter++;
        else if (verdict === 'inconclusive') counts.inconclusive++;
        else counts.nonInferior++;
      }
    }
    family.perQuestion.generations.routes += c.cost.a.generations;
    family.perQuestion.generations.search += c.cost.b.generations;
    family.perQuestion.blockApplications.routes += c.cost.a.blockApplications;
    family.perQuestion.blockApplications.search += c.cost.b.blockApplications;
    questions.set(rewardOf(i), (questions.get(rewardOf(i)) ?? 0) + c.n);
    table.rows.push({
      folder: run.folder,
      model: run.model,
      dataset: run.dataset,
      finished: run.finished,
      n: c.n,
      routes: { reachable: rateOf(c.both + c.onlyA, c.n), cost: costOf(c.budget.a, c.cost.a), chance: chance.routes },
      search: { reachable: rateOf(c.both + c.onlyB, c.n), cost: costOf(c.budget.b, c.cost.b), chance: chance.search },
      costRatio: { tokens: inverse(c.cost.ratio.tokens), blockApplications: inverse(c.cost.ratio.blockApplications) },
      onlyRoutes: c.onlyA,
      onlySearch: c.onlyB,
      difference: { delta: d.estimate, lo: d.lo, hi: d.hi },
      mcnemarP: c.mcnemarP,
      allDecision: c.decision!,
      gainSet: pairingOf(gainSets[i]),
      holmP: tests[i].difference,
      equivalenceHolmP: tests[i].equivalence,
      nonInferiorHolmP: tests[i].aboveMinusMargin,
      decision,
      verdict,
      atMatchedBlockApplications: matchedCompute(c, records, margin),
      nonInferior,
      saturated,
      randomRouteEdits: run.randomRouteEdits ?? null,
      searchReward: run.searchReward ?? 'correct',
    });
  });
  for (const family of families.values()) {
    const n = questions.get(family.reward) ?? 0;
    if (n > 0) for (const what of [family.perQuestion.generations, family.perQuestion.blockApplications]) {
      what.routes /= n;
      what.search /= n;
    }
    table.byReward.push(family);
  }
  return table;
}

export function repairTable(runs: readonly RunForTables[]): { rows: RepairRow[]; missing: { folder: string; reason: string }[] } {
  const rows: RepairRow[] = [];
  const missing: { folder: string; reason: string }[] = [];
  for (const run of runs) {
    const repair = analyzeRepair(realRecords(run.records));
    if (!repair) {
      missing.push({ folder: run.folder, reason: 'no repair scan (audit with --repair)' });
      continue;
    }
    rows.push({
      folder: run.folder,
      model: run.model,
      dataset: run.dataset,
      finished: run.finished,
      failureSetSize: repair.failureSetSize,
      identifiedBlock: repair.identifiedBlock,
      selectionSize: repair.selectionSize,
      heldOutSize: repair.n,
      heldOutRepair: repair.identifiedBlock === null || repair.n === 0 ? null : rateOf(repair.repaired, repair.n),
      damage: repair.byBlock.find((b) => b.block === repair.identifiedBlock)?.damage ?? null,
      null: repair.null ?? null,
      nullHolmP: null,
    });
  }
  const tested = rows.filter((r) => r.null !== null);
  holmAdjust(tested.map((r) => r.null!.pValue)).forEach((p, i) => {
    tested[i].nullHolmP = p;
  });
  return { rows, missing };
}

/** Paired outcomes of both checkpoints over the questions present (and audited) in both. */
function pairs(c: ComparisonForTables): [QuestionRecord, QuestionRecord][] {
  const tuned = new Map(realRecords(c.tuned.records).map((r) => [r.id, r]));
  return realRecords(c.base.records).flatMap((b): [QuestionRecord, QuestionRecord][] => {
    const t = tuned.get(b.id);
    return t ? [[b, t]] : [];
  });
}

export function trainingTable(comparisons: readonly ComparisonForTables[], options: TableOptions = {}): TrainingTable {
  const margin = checkMargin(options.margin ?? DEFAULT_MARGIN);
  const table: TrainingTable = { rule: trainingRule(margin), margin, rows: [], counted: 0, realizedUpCeilingFlat: 0, notSo: 0, inconclusive: 0, saturated: 0 };
  const cmps = comparisons.map((c) => compareRecords(c.base.records, c.tuned.records, { margin }));
  const realizedRows = cmps.map((c) => deltaComparison(c.realized));
  const ceilingRows = cmps.map((c) => deltaComparison(c.reachableCeiling));
  const realizedTests = adjustOverRows(realizedRows, margin);
  const ceilingTests = adjustOverRows(ceilingRows, margin);
  comparisons.forEach((c, i) => {
    const cmp = cmps[i];
    const paired = pairs(c);
    // compareRecords decided each difference on its own p; in the table one function decides the row on the Holm-adjusted tests.
    const decided = decideTraining(realizedRows[i], realizedTests[i], ceilingRows[i], ceilingTests[i], margin, comparisons.length);
    const realized = { ...cmp.realized, decision: decided.realized, holmP: realizedTests[i].difference, equivalenceHolmP: realizedTests[i].equivalence };
    const ceiling = { ...cmp.reachableCeiling, decision: decided.ceiling, holmP: ceilingTests[i].difference, equivalenceHolmP: ceilingTests[i].equivalence, notRisingHolmP: ceilingTests[i].belowMargin };
    const claim = decided.claim;
    const baseChance = ceilingChance(paired.map(([b]) => b));
    const tunedChance = ceilingChance(paired.map(([, t]) => t));
    const chance = baseChance && tunedChance ? { base: baseChance, tuned: tunedChance } : null;
    const saturated = saturation([['base ceiling', chance?.base ?? null], ['tuned ceiling', chance?.tuned ?? null]]);
    if (saturated) table.saturated++;
    else {
      table.counted++;
      if (claim.holds === 'yes') table.realizedUpCeilingFlat++;
      else if (claim.holds === 'no') table.notSo++;
      else table.inconclusive++;
    }
    table.rows.push({
      folder: c.folder,
      base: c.base.model,
      tuned: c.tuned.model,
      dataset: c.dataset,
      finished: c.base.finished && c.tuned.finished,
      n: cmp.n,
      realized,
      ceiling,
      realizedNotReached: cmp.realizedNotReached ?? { base: 0, tuned: 0 },
      newlyRealized: { n: cmp.newlyRealized.n, alreadyReachable: cmp.newlyRealized.alreadyReachable.successes, newlyReachable: cmp.newlyRealized.newlyReachable.successes },
      chance,
      claim,
      saturated,
    });
  });
  return table;
}
