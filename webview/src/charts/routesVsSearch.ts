/**
 * Random routes against the route search at a matched budget, as the Charts tab shows it, from
 * summary.json's `routesVsSearch` (the audit's paired comparison; design "Budget accounting"):
 * whether the budgets match, what each probe spent and the ratio, the questions reached only by
 * one of them, the exact McNemar p, the paired score interval of the difference and the verdict
 * against the equivalence margin (a bootstrap interval and no verdict in older files). The verdict
 * is the gain set's (the questions the deployment does not realize: where a probe can add an
 * answer), with the all-question difference and verdict beside it. The
 * summary crosses postMessage from a file on disk, so a part that is not there is left out rather
 * than shown wrong. DOM-free.
 */
import { chanceSaturation, decisionOf, storedVerdictText, type ChanceSummary, type ProbeComparison, RATE_MIN_QUESTIONS } from '../../../src/contract';
import { intervalMethodText, pointsInterval, pValueClause, signedPoints, verdictRule } from '../comparison/comparisonModel';
import { count } from '../common/numberText';

export interface CostRow {
  measure: string;
  a: string;
  b: string;
  /** a / b, "—" when b spent nothing. */
  ratio: string;
}

export interface Tile {
  key: string;
  label: string;
  value: string;
  detail: string;
  title?: string;
}

export interface RoutesVsSearchView {
  heading: string;
  /** Set when the two probes had different generation budgets: every figure is labelled with it. */
  unmatched?: string;
  tiles: Tile[];
  costs: CostRow[];
  /** Sentences under the tiles: exhausted route spaces, a difference interval left out for few questions. */
  notes: string[];
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function ratioText(x: number | null | undefined): string {
  return finite(x) ? `${x.toFixed(2)}×` : '—';
}

/** Why chance saturates the comparison (a probe's chance reach ≥ 95%, or its rate not above chance); undefined when it does not. */
function saturation(chance: ChanceSummary | undefined, probes: readonly string[]): string | undefined {
  if (!chance || typeof chance !== 'object' || typeof chance.probes !== 'object' || chance.probes === null) return undefined;
  const reasons: string[] = [];
  for (const p of probes) {
    const c = chance.probes[p];
    if (!c || !finite(c.level)) continue;
    const why = chanceSaturation({ level: c.level, aboveChance: c.aboveChance !== false });
    if (why === 'chance-reach') reasons.push(`${p}: a uniform guesser reaches ${(100 * c.level).toFixed(1)}%`);
    else if (why === 'not-above-chance') reasons.push(`${p}: not above chance (${(100 * c.level).toFixed(1)}%)`);
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

/** The view of a summary's `routesVsSearch`; undefined when the summary has none. */
export function routesVsSearchView(c: ProbeComparison | undefined, chance?: ChanceSummary): RoutesVsSearchView | undefined {
  if (!c || typeof c !== 'object' || !finite(c.n) || !c.cost?.a || !c.cost?.b || !c.cost.ratio || !c.budget) return undefined;
  const matched = c.match === 'matched';
  const unmatched = matched ? undefined : `UNMATCHED budgets: ${c.a} ${c.budget.a} vs ${c.b} ${c.budget.b} generations per question`;
  const heading = matched ? `${c.a} and ${c.b}: ${c.budget.a} generations per question each, ${count(c.n)} paired questions` : `${c.a} ${c.budget.a} and ${c.b} ${c.budget.b} generations per question, ${count(c.n)} paired questions`;
  const few = c.n < RATE_MIN_QUESTIONS;
  const tiles: Tile[] = [];
  const d = c.difference;
  const g = c.gainSet && typeof c.gainSet === 'object' && finite(c.gainSet.n) && c.gainSet.difference && finite(c.gainSet.difference.estimate) ? c.gainSet : undefined;
  if (g && !few) {
    const fewGain = g.n < RATE_MIN_QUESTIONS;
    tiles.push({
      key: 'gain',
      label: `Δ reachable on the gain set (${c.a} − ${c.b})`,
      value: signedPoints(g.difference.estimate),
      detail: fewGain ? `${count(g.onlyA)} − ${count(g.onlyB)} of n=${count(g.n)}` : `${pointsInterval(g.difference)} n=${count(g.n)}`,
      title: `reachable by ${c.a} − reachable by ${c.b} over the ${count(g.n)} paired questions the deployment does not realize (the only ones on which a probe can add an answer); 95% Newcombe's paired score interval${fewGain ? `, left out below ${RATE_MIN_QUESTIONS} questions` : ''}; exact McNemar p ${pValueClause(g.mcnemarP)} (${count(g.onlyA)} vs ${count(g.onlyB)})`,
    });
  }
  if (d && finite(d.estimate) && !few) {
    tiles.push({
      key: 'difference',
      label: `Δ reachable${g ? ', all questions' : ''} (${c.a} − ${c.b})`,
      value: signedPoints(d.estimate),
      detail: `${pointsInterval(d)} n=${count(c.n)}`,
      title: `reachable by ${c.a} − reachable by ${c.b} over the ${count(c.n)} questions both ran; 95% ${intervalMethodText(d.method)}`,
    });
    // The gain set's decision decides where the file has one; the all-question one stands beside it.
    const allDecision = decisionOf(c.decision);
    const decision = g ? decisionOf(g.decision) : allDecision;
    const saturated = saturation(chance, [c.a, c.b]);
    const label = `Verdict${g ? ' on the gain set' : ''} (${c.a} vs ${c.b})`;
    if (decision && saturated) {
      tiles.push({ key: 'verdict', label, value: 'saturated', detail: 'by chance: no evidence either way', title: `Saturated by chance (${saturated}): the cross-run tables do not count this setting.` });
    } else if (decision) {
      const margin = `±${+(100 * decision.margin).toFixed(2)} pts`;
      const needed = decision.questionsNeeded !== null ? ` · ≈ ${count(decision.questionsNeeded)} questions to decide` : '';
      tiles.push({ key: 'verdict', label, value: decision.verdict, detail: `margin ${margin}${needed}`, title: `${storedVerdictText(decision)}${g ? ` on the ${count(g.n)} questions the deployment does not realize` : ''}. ${verdictRule(decision)}` });
      if (g && allDecision && !saturated) {
        tiles.push({ key: 'allVerdict', label: 'All questions (beside)', value: allDecision.verdict, detail: `n=${count(c.n)}`, title: `${storedVerdictText(allDecision)} over all ${count(c.n)} paired questions, most of which the deployment already answers: shown beside the gain set's verdict, which decides.` });
      }
    }
  }
  const m = c.gainSetAtMatchedBlockApplications;
  if (m && typeof m === 'object' && finite(m.n) && m.difference && finite(m.difference.estimate) && m.spent && finite(m.spent.a) && finite(m.spent.b) && !few) {
    const verdict = decisionOf(m.decision);
    tiles.push({
      key: 'matchedCompute',
      label: 'Gain set at matched block applications',
      value: m.n < RATE_MIN_QUESTIONS ? `${count(m.onlyA)} − ${count(m.onlyB)}` : signedPoints(m.difference.estimate),
      detail: `${m.n < RATE_MIN_QUESTIONS ? '' : `${pointsInterval(m.difference)} `}n=${count(m.n)}${verdict && m.n >= RATE_MIN_QUESTIONS ? ` · ${verdict.verdict}` : ''}`,
      title: `On each gain-set question the probe that spent more keeps only its first attempts up to the other's block applications (${count(Math.round(m.spent.a))} ${c.a} / ${count(Math.round(m.spent.b))} ${c.b} in all): ${count(m.onlyA)} only ${c.a}, ${count(m.onlyB)} only ${c.b}, exact McNemar p ${pValueClause(m.mcnemarP)}; ${storedVerdictText(verdict)}. Beside the matched-generations verdict, not instead of it.`,
    });
  }
  tiles.push(
    { key: 'onlyA', label: `Only ${c.a}`, value: count(c.onlyA), detail: `of n=${count(c.n)}`, title: `Questions reached by ${c.a} and not by ${c.b}` },
    { key: 'onlyB', label: `Only ${c.b}`, value: count(c.onlyB), detail: `of n=${count(c.n)}`, title: `Questions reached by ${c.b} and not by ${c.a}` },
    { key: 'both', label: 'Both', value: count(c.both), detail: `neither ${count(c.neither)}`, title: 'Questions reached by both probes; neither: by none' },
    {
      key: 'mcnemar',
      label: 'McNemar (exact)',
      value: pValueClause(c.mcnemarP),
      detail: `${count(c.onlyA + c.onlyB)} discordant`,
      title: `Exact two-sided McNemar test on the ${count(c.onlyA + c.onlyB)} questions only one probe reached (${count(c.onlyA)} vs ${count(c.onlyB)})`,
    },
  );
  const costs: CostRow[] = [
    { measure: 'generations', a: count(c.cost.a.generations), b: count(c.cost.b.generations), ratio: ratioText(c.cost.ratio.generations) },
    { measure: 'generated tokens', a: count(c.cost.a.tokens), b: count(c.cost.b.tokens), ratio: ratioText(c.cost.ratio.tokens) },
    { measure: 'block applications', a: count(c.cost.a.blockApplications), b: count(c.cost.b.blockApplications), ratio: ratioText(c.cost.ratio.blockApplications) },
  ];
  const notes: string[] = [];
  const saturatedBy = saturation(chance, [c.a, c.b]);
  if (saturatedBy) notes.push(`Saturated by chance — ${saturatedBy}: reaching the gold label says little here, so this comparison is not evidence for either probe.`);
  if (few) notes.push(`Over ${count(c.n)} question${c.n === 1 ? '' : 's'} the interval of the difference is left out (shown from ${RATE_MIN_QUESTIONS} questions on); the counts and the exact test stand.`);
  for (const [probe, e] of [[c.a, c.exhausted?.a], [c.b, c.exhausted?.b]] as const) {
    if (e && e.questions > 0) {
      const evaluated = e.examples.map((x) => x.evaluated);
      const budget = e.examples[0]?.budget;
      notes.push(`${probe} ran out of distinct routes on ${count(e.questions)} question${e.questions === 1 ? '' : 's'} (evaluated ${Math.min(...evaluated)}–${Math.max(...evaluated)} of ${budget ?? '?'}).`);
    }
  }
  return { heading, ...(unmatched ? { unmatched } : {}), tiles, costs, notes };
}
