/**
 * The cross-run tables as the formats a paper needs: Markdown and terminal text with rates as
 * "42.0% [35.1, 49.2] (n = 200)", CSV with every number in its own column (rate, interval bounds, n),
 * and a self-contained HTML page (the report's CSP; every value escaped).
 */
import { MIN_BOOTSTRAP_QUESTIONS, pairedVerdictText, type Interval, type RepairNull, type TableData, type TrajectoryPoint, type Rate, type TrajectoryResult } from '../../contract';
import type { ChanceColumn, Claim, RepairRow, RoutesVsSearchTable, TrainingTable } from '../results';
import { lineChart, page, type Series } from './htmlReport';
import { html, type Html } from './safeHtml';

/** One table in two renderings: formatted cells for reading (the page's TableData), raw cells for CSV. */
export interface TableView extends TableData {
  csvHeaders: string[];
  csvRows: (string | number | boolean | null)[][];
}

const pct = (x: number | null | undefined, d = 1) => (typeof x !== 'number' || !Number.isFinite(x) ? '—' : `${(100 * x).toFixed(d)}%`);
const pts = (x: number, d = 1) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(100 * x).toFixed(d)}` : '—');
const rateText = (r: Rate | null) => (!r || r.n === 0 ? '—' : `${pct(r.rate)} [${(100 * r.ci.lo).toFixed(1)}, ${(100 * r.ci.hi).toFixed(1)}] (n = ${r.n})`);
const rateCsv = (r: Rate | null) => (!r || r.n === 0 ? [null, null, null, r?.n ?? 0] : [r.rate, r.ci.lo, r.ci.hi, r.n]);
/** A mean with its interval and n (pass@k: a mean of per-question values, so not a Rate). */
const meanText = (x: number | null, ci: Interval | null, n: number) =>
  x === null || !Number.isFinite(x) || n === 0 ? '—' : `${pct(x)}${ci ? ` [${(100 * ci.lo).toFixed(1)}, ${(100 * ci.hi).toFixed(1)}]` : ''} (n = ${n}${ci ? '' : `; no interval below ${MIN_BOOTSTRAP_QUESTIONS} questions`})`;
const meanCsv = (x: number | null, ci: Interval | null, n: number) => (x === null ? [null, null, null, n] : [x, ci?.lo ?? null, ci?.hi ?? null, n]);
const passAt1Text = (p: TrajectoryPoint) => meanText(p.passAt1, p.passAt1Ci, p.passAtKN);
const passAtKText = (p: TrajectoryPoint) => meanText(p.passAtK, p.passAtKCi, p.passAtKN);
const pText = (p: number) => (!Number.isFinite(p) ? '—' : p < 0.001 ? '< 0.001' : p.toFixed(3));
const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '—');

const chanceText = (c: ChanceColumn | null) => (c ? `${pct(c.level)}${c.aboveChance ? '' : ' (not above)'}` : 'n/a');
const claimText = (c: Claim) =>
  c.holds !== 'inconclusive' ? c.holds : c.questionsNeeded !== null ? `inconclusive (≈ ${c.questionsNeeded.toLocaleString('en-US')} questions)` : c.why ? `inconclusive (${c.why})` : 'inconclusive';
const marked = (name: string, finished: boolean) => (finished ? name : `${name} (unfinished)`);
const intervalPts = (delta: number, ci: Interval) => `${pts(delta)} [${pts(ci.lo)}, ${pts(ci.hi)}]`;

/** What the search is and is not, said wherever it is compared with random routes (docs/design/probes.md, "Search"). */
function searchCaveat(t: RoutesVsSearchTable): string {
  const blind = t.rows.filter((r) => r.searchReward === 'correct').length;
  const reward =
    blind === 0
      ? 'The search here is informed (--search-reward gold-logprob: a wrong route scores its probability of the gold answer).'
      : `The search ${blind === t.rows.length ? 'here' : `in ${blind} of these settings`} rewards 0/1 correctness: until its first correct route it is steered by visit counts and its random stream alone, and once it hits the question already counts as reachable, so it is not an informed search (--search-reward gold-logprob is).`;
  return `${reward} Route spaces differ: a random route applies at most the listed number of edits; the search adds one edit per tree level, within the same length bounds.`;
}

/** Hits per `unit` of spend ("12.3"), "—" with no spend. */
const perUnit = (hits: number, spend: number, unit: number) => (spend > 0 ? ((hits * unit) / spend).toPrecision(3) : '—');

/** The row's one verdict (what the headline counts), with its margin where it has one. */
function verdictCell(r: RoutesVsSearchTable['rows'][number]): string {
  if (r.verdict === 'equivalent' || r.verdict === 'inconclusive') return pairedVerdictText(r.decision);
  if (r.verdict === 'routes non-inferior') return `routes non-inferior at −${+(100 * r.decision.margin).toFixed(2)} pts`;
  return r.verdict;
}

const rewardName = (reward: string) => (reward === 'correct' ? 'reward 0/1' : `reward ${reward}`);
const perQuestion = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : +x.toFixed(1));

/**
 * One headline per search reward (each its own Holm family; never pooled into one count), naming the
 * reward and the compute each probe spent per question: generations and block applications (the
 * gold-logprob search's scoring passes included).
 */
export function routesHeadlines(t: RoutesVsSearchTable): string[] {
  const m = `${+(100 * t.margin).toFixed(2)} pts`;
  if (t.byReward.length === 0) return [`Random routes non-inferior to search (gain set, Holm-adjusted, margin ±${m}) in 0 of 0 settings.`];
  return t.byReward.map((f) => {
    const g = f.perQuestion.generations;
    const b = f.perQuestion.blockApplications;
    const spent = `per question: generations ${perQuestion(g.routes)} routes / ${perQuestion(g.search)} search, block applications ${perQuestion(b.routes)} / ${perQuestion(b.search)}`;
    return `Search at ${rewardName(f.reward)} (${spent}): random routes non-inferior to search (gain set, Holm-adjusted over the ${f.counted + f.saturated} ${rewardName(f.reward)} setting${f.counted + f.saturated === 1 ? '' : 's'}, margin ±${m}; "search better" unadjusted) in ${f.nonInferior} of ${f.counted} settings; search better in ${f.searchBetter}; ${f.inconclusive} inconclusive${f.saturated > 0 ? `; ${f.saturated} saturated by chance, not counted` : ''}.`;
  });
}

export function routesVsSearchView(t: RoutesVsSearchTable): TableView {
  const m = `${+(100 * t.margin).toFixed(2)} pts`;
  return {
    id: 'routes-vs-search',
    title: 'Random routes vs route search at a matched budget',
    notes: [...routesHeadlines(t), `Margin: ±${m}. Rule: ${t.rule}. Reachable rates: Wilson score 95% intervals.`, searchCaveat(t)],
    headers: [
      'model', 'dataset', 'n', 'budget (gen/question)', 'route space: routes / search', 'routes tokens', 'search tokens', 'search/routes tokens', 'search/routes block applications',
      'gain set n', 'gain set: reachable · routes', 'gain set: reachable · search', 'gain set: only routes / only search', 'gain set: routes − search (pts) [95% CI]', 'McNemar p', 'Holm p', 'equivalence / non-inferiority Holm p', 'verdict',
      'gain set at matched block applications: routes − search (pts) [95% CI] · verdict (not counted)', 'hits per 10⁶ block applications · routes / search', 'hits per 10³ tokens · routes / search',
      'reachable · routes', 'reachable · search', 'chance · routes / search', 'all questions: routes − search (pts) [95% CI] · verdict', 'routes non-inferior',
    ],
    rows: t.rows.map((r) => [
      marked(r.model, r.finished),
      r.dataset,
      String(r.n),
      String(r.routes.cost.budget),
      `${r.randomRouteEdits === null ? '?' : `≤ ${r.randomRouteEdits}`} edits / one per tree level, reward ${r.searchReward === 'correct' ? '0/1' : 'gold-logprob'}`,
      String(r.routes.cost.tokens),
      String(r.search.cost.tokens),
      ratio(r.costRatio.tokens),
      ratio(r.costRatio.blockApplications),
      String(r.gainSet.n),
      rateText(r.gainSet.routes),
      rateText(r.gainSet.search),
      `${r.gainSet.onlyRoutes} / ${r.gainSet.onlySearch}`,
      intervalPts(r.gainSet.difference.delta, r.gainSet.difference),
      pText(r.gainSet.mcnemarP),
      pText(r.holmP),
      `${pText(r.equivalenceHolmP)} / ${pText(r.nonInferiorHolmP)}`,
      verdictCell(r),
      `${intervalPts(r.atMatchedBlockApplications.difference.delta, r.atMatchedBlockApplications.difference)} (${r.atMatchedBlockApplications.onlyRoutes} / ${r.atMatchedBlockApplications.onlySearch}) · ${pairedVerdictText(r.atMatchedBlockApplications.decision)}`,
      `${perUnit(r.routes.reachable.successes, r.routes.cost.blockApplications, 1e6)} / ${perUnit(r.search.reachable.successes, r.search.cost.blockApplications, 1e6)}`,
      `${perUnit(r.routes.reachable.successes, r.routes.cost.tokens, 1e3)} / ${perUnit(r.search.reachable.successes, r.search.cost.tokens, 1e3)}`,
      rateText(r.routes.reachable),
      rateText(r.search.reachable),
      r.routes.chance || r.search.chance ? `${chanceText(r.routes.chance)} / ${chanceText(r.search.chance)}` : 'n/a',
      `${intervalPts(r.difference.delta, r.difference)} p ${pText(r.mcnemarP)} · ${pairedVerdictText(r.allDecision)}`,
      r.saturated ? `saturated (${r.saturated}); not counted` : claimText(r.nonInferior),
    ]),
    csvHeaders: [
      'folder', 'model', 'dataset', 'finished', 'n', 'budget', 'random_route_max_edits', 'search_reward', 'routes_generations', 'routes_tokens', 'routes_block_applications', 'search_generations', 'search_tokens', 'search_block_applications',
      'routes_reachable', 'routes_lo', 'routes_hi', 'routes_n', 'search_reachable', 'search_lo', 'search_hi', 'search_n', 'routes_chance', 'search_chance', 'only_routes', 'only_search', 'difference', 'difference_lo', 'difference_hi', 'mcnemar_p', 'all_questions_verdict',
      'gain_set_n', 'gain_set_routes', 'gain_set_routes_lo', 'gain_set_routes_hi', 'gain_set_search', 'gain_set_search_lo', 'gain_set_search_hi', 'gain_set_only_routes', 'gain_set_only_search', 'gain_set_difference', 'gain_set_difference_lo', 'gain_set_difference_hi', 'gain_set_mcnemar_p',
      'holm_p', 'equivalence_holm_p', 'non_inferiority_holm_p', 'margin', 'verdict', 'questions_to_decide', 'routes_non_inferior', 'non_inferior_questions_needed', 'saturated',
      'matched_block_applications_only_routes', 'matched_block_applications_only_search', 'matched_block_applications_difference', 'matched_block_applications_lo', 'matched_block_applications_hi', 'matched_block_applications_mcnemar_p', 'matched_block_applications_verdict', 'matched_block_applications_routes', 'matched_block_applications_search',
    ],
    csvRows: t.rows.map((r) => [
      r.folder, r.model, r.dataset, r.finished, r.n, r.routes.cost.budget, r.randomRouteEdits, r.searchReward,
      r.routes.cost.generations, r.routes.cost.tokens, r.routes.cost.blockApplications,
      r.search.cost.generations, r.search.cost.tokens, r.search.cost.blockApplications,
      ...rateCsv(r.routes.reachable), ...rateCsv(r.search.reachable), r.routes.chance?.level ?? null, r.search.chance?.level ?? null,
      r.onlyRoutes, r.onlySearch, r.difference.delta, r.difference.lo, r.difference.hi, r.mcnemarP, r.allDecision.verdict,
      r.gainSet.n, ...rateCsv(r.gainSet.routes).slice(0, 3), ...rateCsv(r.gainSet.search).slice(0, 3), r.gainSet.onlyRoutes, r.gainSet.onlySearch,
      r.gainSet.difference.delta, r.gainSet.difference.lo, r.gainSet.difference.hi, r.gainSet.mcnemarP,
      r.holmP, r.equivalenceHolmP, r.nonInferiorHolmP, t.margin, r.verdict, r.decision.questionsNeeded,
      r.nonInferior.holds, r.nonInferior.questionsNeeded, r.saturated,
      r.atMatchedBlockApplications.onlyRoutes, r.atMatchedBlockApplications.onlySearch, r.atMatchedBlockApplications.difference.delta, r.atMatchedBlockApplications.difference.lo, r.atMatchedBlockApplications.difference.hi,
      r.atMatchedBlockApplications.mcnemarP, r.atMatchedBlockApplications.decision.verdict, r.atMatchedBlockApplications.spent.routes, r.atMatchedBlockApplications.spent.search,
    ]),
    apart: [
      ...t.unmatched.map((u) => `Not counted, unmatched budgets: ${u.model} on ${u.dataset} (routes ${u.routesBudget}, search ${u.searchBudget} generations per question) — ${u.folder}`),
      ...t.missing.map((m) => `Not counted: ${m.folder} ${m.reason}`),
    ],
  };
}

export function repairView(rows: readonly RepairRow[], missing: readonly { folder: string; reason: string }[]): TableView {
  const bounds = (lo: number | null, hi: number | null) => (lo === null || hi === null ? ' [no interval: n < 20]' : ` [${(100 * lo).toFixed(1)}, ${(100 * hi).toFixed(1)}]`);
  const nullText = (r: RepairRow) => (r.null ? `${pct(r.null.randomBlock.rate)}${bounds(r.null.randomBlock.lo, r.null.randomBlock.hi)} (median block ${pct(r.null.medianBlock)})` : '—');
  const difference = (d: RepairNull['difference']) => (d.lo === null || d.hi === null ? `${pts(d.estimate)} [no interval: n < 20]` : intervalPts(d.estimate, { lo: d.lo, hi: d.hi }));
  const vsNull = (r: RepairRow) => (r.null ? `${difference(r.null.difference)} p ${pText(r.null.pValue)}, Holm ${pText(r.nullHolmP ?? Number.NaN)}` : '—');
  const net = (r: RepairRow) => (r.null ? `${intervalPts(r.null.netEffect.delta, r.null.netEffect.ci)} (n = ${r.null.netEffect.n}; ${r.null.netEffect.gained} repaired, ${r.null.netEffect.lost} broken) · ${pairedVerdictText(r.null.netEffect.decision!)}` : '—');
  return {
    id: 'repair',
    title: 'Repair: silencing one identified MLP block',
    notes: [
      'The block is chosen on a seeded selection half of the failure set; its repair rate is measured on the other (held-out) half, its damage on every realized question (both rates with Wilson score 95% intervals).',
      "Null: on the same held-out questions, a block drawn at random per question (mean share of blocks that repair each, percentile-bootstrap interval from 20 held-out questions on, none below); identified − random with its bootstrap interval (likewise) and the exact one-sided p (Poisson-binomial), Holm-adjusted over the rows. Net effect: deployed → silenced correctness over the held-out failure set and every realized question (Newcombe's paired score interval, exact McNemar, verdict at ±5 pts).",
    ],
    headers: ['model', 'dataset', 'failure set', 'selection / held-out', 'identified block', 'held-out repair', 'random block (null)', 'identified − random (pts) [95% CI]', 'held-out repair: output cut / not cut', 'damage to realized', 'net effect (pts) [95% CI]'],
    rows: rows.map((r) => [
      marked(r.model, r.finished),
      r.dataset,
      String(r.failureSetSize),
      `${r.selectionSize} / ${r.heldOutSize}`,
      r.identifiedBlock === null ? '—' : String(r.identifiedBlock),
      rateText(r.heldOutRepair),
      nullText(r),
      vsNull(r),
      r.null ? `${rateText(r.null.byTruncation.truncated)} / ${rateText(r.null.byTruncation.notTruncated)}` : '—',
      rateText(r.damage),
      net(r),
    ]),
    csvHeaders: ['folder', 'model', 'dataset', 'finished', 'failure_set', 'selection', 'held_out', 'identified_block', 'repair', 'repair_lo', 'repair_hi', 'repair_n', 'random_block', 'random_block_lo', 'random_block_hi', 'median_block', 'identified_minus_random', 'identified_minus_random_lo', 'identified_minus_random_hi', 'null_p', 'null_holm_p', 'repair_cut', 'repair_cut_lo', 'repair_cut_hi', 'repair_cut_n', 'repair_not_cut', 'repair_not_cut_lo', 'repair_not_cut_hi', 'repair_not_cut_n', 'damage', 'damage_lo', 'damage_hi', 'damage_n', 'net_effect', 'net_effect_lo', 'net_effect_hi', 'net_effect_n', 'net_effect_mcnemar_p', 'net_effect_verdict'],
    csvRows: rows.map((r) => [
      r.folder, r.model, r.dataset, r.finished, r.failureSetSize, r.selectionSize, r.heldOutSize, r.identifiedBlock, ...rateCsv(r.heldOutRepair),
      r.null?.randomBlock.rate ?? null, r.null?.randomBlock.lo ?? null, r.null?.randomBlock.hi ?? null, r.null?.medianBlock ?? null,
      r.null?.difference.estimate ?? null, r.null?.difference.lo ?? null, r.null?.difference.hi ?? null, r.null?.pValue ?? null, r.nullHolmP,
      ...rateCsv(r.null?.byTruncation.truncated ?? null), ...rateCsv(r.null?.byTruncation.notTruncated ?? null),
      ...rateCsv(r.damage),
      r.null?.netEffect.delta ?? null, r.null?.netEffect.ci.lo ?? null, r.null?.netEffect.ci.hi ?? null, r.null?.netEffect.n ?? null, r.null?.netEffect.mcnemarP ?? null, r.null?.netEffect.decision?.verdict ?? null,
    ]),
    apart: missing.map((m) => `Not in the table: ${m.folder} — ${m.reason}`),
  };
}

export function trainingView(t: TrainingTable): TableView {
  const m = `${+(100 * t.margin).toFixed(2)} pts`;
  const headline = `Realized up while the reachable ceiling does not rise (Holm-adjusted; a realized fall or a ceiling rise vetoes, unadjusted; margin +${m}) in ${t.realizedUpCeilingFlat} of ${t.counted} comparisons; not so in ${t.notSo}; ${t.inconclusive} inconclusive${t.saturated > 0 ? `; ${t.saturated} saturated by chance, not counted` : ''}.`;
  const delta = (d: TrainingTable['rows'][number]['realized']) => `${intervalPts(d.delta, d.ci)} p ${pText(d.mcnemarP)}, Holm ${pText(d.holmP)} · ${pairedVerdictText(d.decision!)}`;
  return {
    id: 'training',
    title: 'Training: realized vs reachable ceiling, base → tuned',
    notes: [headline, `Margin: ±${m}. Rule: ${t.rule}.`],
    headers: ['base → tuned', 'dataset', 'n', 'realized', 'Δ realized (pts) [95% CI]', 'ceiling', 'Δ ceiling (pts) [95% CI]', 'realized, no probe reached (base / tuned)', 'ceiling chance (base / tuned)', 'newly realized: already reachable / newly reachable', 'realized up, ceiling not rising'],
    rows: t.rows.map((r) => [
      marked(`${r.base} → ${r.tuned}`, r.finished),
      r.dataset,
      String(r.n),
      `${pct(r.realized.base)} → ${pct(r.realized.tuned)}`,
      delta(r.realized),
      `${pct(r.ceiling.base)} → ${pct(r.ceiling.tuned)}`,
      `${delta(r.ceiling)} · not rising by +${m}: Holm p ${pText(r.ceiling.notRisingHolmP)}`,
      `${r.realizedNotReached.base} / ${r.realizedNotReached.tuned}`,
      r.chance ? `${chanceText(r.chance.base)} / ${chanceText(r.chance.tuned)}` : 'n/a',
      `${r.newlyRealized.alreadyReachable} / ${r.newlyRealized.newlyReachable} of ${r.newlyRealized.n}`,
      r.saturated ? `saturated (${r.saturated}); not counted` : claimText(r.claim),
    ]),
    csvHeaders: ['folder', 'base', 'tuned', 'dataset', 'finished', 'n', 'realized_base', 'realized_tuned', 'realized_delta', 'realized_lo', 'realized_hi', 'realized_mcnemar_p', 'realized_holm_p', 'realized_verdict', 'ceiling_base', 'ceiling_tuned', 'ceiling_delta', 'ceiling_lo', 'ceiling_hi', 'ceiling_mcnemar_p', 'ceiling_holm_p', 'ceiling_verdict', 'ceiling_not_rising_holm_p', 'margin', 'realized_not_reached_base', 'realized_not_reached_tuned', 'ceiling_chance_base', 'ceiling_chance_tuned', 'newly_realized', 'already_reachable', 'newly_reachable', 'realized_up_ceiling_not_rising', 'questions_needed', 'saturated'],
    csvRows: t.rows.map((r) => [
      r.folder, r.base, r.tuned, r.dataset, r.finished, r.n,
      r.realized.base, r.realized.tuned, r.realized.delta, r.realized.ci.lo, r.realized.ci.hi, r.realized.mcnemarP, r.realized.holmP, r.realized.decision!.verdict,
      r.ceiling.base, r.ceiling.tuned, r.ceiling.delta, r.ceiling.ci.lo, r.ceiling.ci.hi, r.ceiling.mcnemarP, r.ceiling.holmP, r.ceiling.decision!.verdict, r.ceiling.notRisingHolmP, t.margin,
      r.realizedNotReached.base, r.realizedNotReached.tuned, r.chance?.base.level ?? null, r.chance?.tuned.level ?? null,
      r.newlyRealized.n, r.newlyRealized.alreadyReachable, r.newlyRealized.newlyReachable, r.claim.holds, r.claim.questionsNeeded, r.saturated,
    ]),
    apart: [],
  };
}

/** Per checkpoint: realized, each probe's reachable rate and the ceiling; then the flows between steps. */
export function trajectoryViews(t: TrajectoryResult): TableView[] {
  const probes = t.probes;
  const passNote = t.passAtKProbe
    ? [`pass@1 and pass@${t.passAtKMax} of the ${t.passAtKProbe} probe: the mean over the n questions that ran it of each question's unbiased pass@k, with its 95% interval as in each run's summary.json: Wilson where every question's value is 0 or 1 (pass@${t.passAtKMax} at a budget of ${t.passAtKMax}), otherwise the percentile bootstrap (10,000 resamples of the questions; none below 20 questions).`]
    : [];
  const points: TableView = {
    id: 'trajectory',
    title: 'Trajectory: realized and reachable per checkpoint',
    notes: [`${t.points.length} checkpoint${t.points.length === 1 ? '' : 's'} in training order, each audited with the same settings; ceiling = realized, or reachable by any of ${probes.join(', ')} (${t.ceilingBudget} generations per question); "realized only" counts the realized questions no probe reached.`, ...passNote],
    headers: ['checkpoint', 'n', 'realized', ...probes.map((p) => `reachable · ${p}`), 'ceiling', 'realized only', ...(t.passAtKProbe ? [`pass@1 · ${t.passAtKProbe}`, `pass@${t.passAtKMax} · ${t.passAtKProbe}`] : [])],
    rows: t.points.map((p) => [p.label, String(p.n), rateText(p.realized), ...probes.map((q) => rateText(p.reachable[q] ?? null)), rateText(p.ceiling), String(p.realizedNotReached), ...(t.passAtKProbe ? [passAt1Text(p), passAtKText(p)] : [])]),
    csvHeaders: ['checkpoint', 'folder', 'n', 'realized', 'realized_lo', 'realized_hi', 'realized_n', ...probes.flatMap((q) => [`${q}`, `${q}_lo`, `${q}_hi`, `${q}_n`]), 'ceiling', 'ceiling_lo', 'ceiling_hi', 'ceiling_n', 'realized_not_reached', 'pass_at_1', 'pass_at_1_lo', 'pass_at_1_hi', 'pass_at_1_n', 'pass_at_k', 'pass_at_k_lo', 'pass_at_k_hi', 'pass_at_k_n'],
    csvRows: t.points.map((p) => [
      p.label, p.folder, p.n, ...rateCsv(p.realized), ...probes.flatMap((q) => rateCsv(p.reachable[q] ?? null)), ...rateCsv(p.ceiling), p.realizedNotReached,
      ...meanCsv(p.passAt1, p.passAt1Ci, p.passAtKN), ...meanCsv(p.passAtK, p.passAtKCi, p.passAtKN),
    ]),
    apart: [],
  };
  const flows: TableView = {
    id: 'trajectory-flows',
    title: 'Trajectory: questions moving between states at each step',
    notes: [
      'States: realized; reachable, not realized (by any probe); unreached. Counts of questions present in both checkpoints.',
      // A watched training run after its first checkpoint: say why the table is empty.
      ...(t.points.length === 1 ? ['One checkpoint so far: the first step appears with the second checkpoint.'] : []),
    ],
    headers: ['step', 'n', 'stayed realized', 'reachable → realized', 'unreached → realized', 'realized → reachable', 'stayed reachable', 'unreached → reachable', 'realized → unreached', 'reachable → unreached', 'stayed unreached'],
    rows: t.flows.map((f) => [`${f.from} → ${f.to}`, String(f.n), ...FLOW_KEYS.map((k) => String(f.counts[k]))]),
    csvHeaders: ['from', 'to', 'n', ...FLOW_KEYS],
    csvRows: t.flows.map((f) => [f.from, f.to, f.n, ...FLOW_KEYS.map((k) => f.counts[k])]),
    apart: [],
  };
  return [points, flows];
}

export const FLOW_KEYS = [
  'realized->realized',
  'reachable->realized',
  'unreached->realized',
  'realized->reachable',
  'reachable->reachable',
  'unreached->reachable',
  'realized->unreached',
  'reachable->unreached',
  'unreached->unreached',
] as const;

// Model folder names and --labels are text: HTML in them would render in a Markdown viewer, so <, > and & become entities.
const mdText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const mdCell = (s: string) => mdText(s).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function tablesMarkdown(views: readonly TableView[]): string {
  return views
    .map((v) =>
      [
        `### ${mdText(v.title)}`,
        '',
        ...v.notes.map(mdText),
        '',
        `| ${v.headers.map(mdCell).join(' | ')} |`,
        `|${v.headers.map(() => '---').join('|')}|`,
        ...v.rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`),
        ...(v.apart.length > 0 ? ['', ...v.apart.map((a) => `- ${mdCell(a)}`)] : []),
        '',
      ].join('\n'),
    )
    .join('\n');
}

/** RFC 4180 fields; a text cell that a spreadsheet would run as a formula gets a leading quote. */
function csvField(v: string | number | boolean | null): string {
  if (v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function tableCsv(v: TableView): string {
  return [v.csvHeaders, ...v.csvRows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export function tablesText(views: readonly TableView[]): string {
  return views
    .map((v) => {
      const widths = v.headers.map((h, i) => Math.max(h.length, ...v.rows.map((r) => r[i].length)));
      const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
      return [v.title, ...v.notes.map((n) => `  ${n}`), '', line(v.headers), ...v.rows.map(line), ...v.apart.map((a) => `  ${a}`), ''].join('\n');
    })
    .join('\n');
}

export function tablesHtml(title: string, views: readonly TableView[], charts: Html[] = []): string {
  const body = html`<h1>${title}</h1>${charts}${views.map(
    (v) =>
      html`<section><h2>${v.title}</h2>${v.notes.map((n) => html`<p>${n}</p>`)}<table><thead><tr>${v.headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${v.rows.map(
        (r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`,
      )}</tbody></table>${v.apart.length > 0 ? html`<ul>${v.apart.map((a) => html`<li>${a}</li>`)}</ul>` : ''}</section>`,
  )}`;
  return page(title, body);
}

/** Realized, each probe and the ceiling over the checkpoints, as the HTML report draws lines. */
export function trajectoryChart(t: TrajectoryResult): Html {
  const series: Series[] = [
    { label: 'realized', points: t.points.map((p, i) => [i, p.realized.rate]) },
    ...t.probes.map((q) => ({ label: `reachable · ${q}`, points: t.points.map((p, i): [number, number] => [i, p.reachable[q]?.rate ?? Number.NaN]), dashed: true })),
    { label: 'ceiling', points: t.points.map((p, i) => [i, p.ceiling.rate]) },
  ];
  return lineChart(`Realized and reachable per checkpoint (0 = ${t.points[0]?.label ?? ''})`, series, 'checkpoint');
}

/** pass@1 and pass@k of the sampling probe over the checkpoints, each with its bootstrap interval shaded. */
export function trajectoryPassChart(t: TrajectoryResult): Html {
  if (!t.passAtKProbe) return html``;
  const line = (value: (p: TrajectoryPoint) => number | null, ci: (p: TrajectoryPoint) => Interval | null) => ({
    points: t.points.map((p, i): [number, number] => [i, value(p) ?? Number.NaN]),
    band: t.points.map((p, i): [number, number, number] => [i, ci(p)?.lo ?? Number.NaN, ci(p)?.hi ?? Number.NaN]),
  });
  const series: Series[] = [
    { label: 'pass@1', ...line((p) => p.passAt1, (p) => p.passAt1Ci) },
    { label: `pass@${t.passAtKMax}`, ...line((p) => p.passAtK, (p) => p.passAtKCi), dashed: true },
  ];
  const n = [...new Set(t.points.map((p) => p.passAtKN))];
  return lineChart(`pass@1 vs pass@${t.passAtKMax} of the ${t.passAtKProbe} probe per checkpoint (n = ${n.join(' / ')})`, series, 'checkpoint');
}
