/**
 * Random routes vs route search at a matched budget (design: "Budget accounting"): the paired
 * comparison of two probes over the questions both ran on. "Matched" means equal generation
 * budgets B; unequal ones are labelled `unmatched` wherever the comparison is shown. Beside the
 * budget: what each probe actually spent (generations, generated tokens, block applications) and
 * the ratios, because equal generations can still differ in tokens and block applications.
 * The paired test is exact McNemar on the discordant questions; the interval of reachable(a) −
 * reachable(b) is Newcombe's paired score interval; the decision (a better / worse / equivalent
 * within ±margin / inconclusive) takes both (stats/pairedDecision.ts). The comparison that decides
 * is the one on the gain set (inGainSet); the all-question one stands beside it.
 */
import { addBudget, emptyBudget } from '../probes';
import type { QuestionRecord } from '../../contract';
import { mcnemarExact, pairedScoreInterval, DEFAULT_MARGIN, pairedDecision, type DecisionScope } from '../stats';
import type { ProbeComparison, ProbeExhaustion, ProbePairing } from '../../contract';

/**
 * The gain set: questions the deployment does not realize. Only there can a probe add an answer;
 * on realized questions both probes mostly reach it too, so a difference over all questions is
 * diluted towards 0 by them and a ±margin on it is a looser bar than it reads.
 */
export const inGainSet = (r: QuestionRecord): boolean => !r.realized.correct;

export function probeExhaustion(records: readonly QuestionRecord[], probe: string): ProbeExhaustion {
  // Under --until-reached a probe stops short at its first hit; only a miss that stopped short ran out of routes.
  const short = records.filter((r) => r.probes[probe] && r.probes[probe].attempts.length < r.probes[probe].budget && !(r.probes[probe].untilReached && r.reachable[probe]));
  return {
    questions: short.length,
    examples: short.slice(0, 100).map((r) => ({ id: r.id, evaluated: r.probes[probe].attempts.length, budget: r.probes[probe].budget })),
  };
}

const ratio = (x: number, y: number): number | null => (y > 0 ? x / y : null);

/** Whether a probe reached a question: its record's verdict, or one decided otherwise (at matched compute). */
type Reached = (r: QuestionRecord, probe: string) => boolean;
const recordedReach: Reached = (r, probe) => r.reachable[probe] === true;

/** a's and b's reach over `records` (each ran both): the 2×2 counts, exact McNemar, Newcombe's interval and the decision on them. */
export function pairProbes(records: readonly QuestionRecord[], a: string, b: string, margin: number = DEFAULT_MARGIN, reached: Reached = recordedReach, scope: DecisionScope = {}): ProbePairing {
  let onlyA = 0;
  let onlyB = 0;
  let both = 0;
  let neither = 0;
  for (const r of records) {
    const x = reached(r, a);
    const y = reached(r, b);
    if (x && y) both++;
    else if (x) onlyA++;
    else if (y) onlyB++;
    else neither++;
  }
  const n = records.length;
  const interval = pairedScoreInterval({ both, onlyFirst: onlyA, onlySecond: onlyB, neither });
  const estimate = n === 0 ? 0 : (onlyA - onlyB) / n;
  const mcnemarP = mcnemarExact(onlyA, onlyB);
  const decision = pairedDecision({ estimate, lo: interval.lo, hi: interval.hi, p: mcnemarP, n, discordant: onlyA + onlyB }, margin, scope);
  return { n, onlyA, onlyB, both, neither, mcnemarP, difference: { estimate, lo: interval.lo, hi: interval.hi, method: 'newcombe-score' }, decision };
}

/**
 * The attempts of `probe` on `r` that fit in `spend` block applications, at the probe's mean cost per
 * attempt on that question (per-attempt costs are not recorded; within a probe and a question the
 * routes' lengths vary little next to the difference between probes).
 */
function attemptsWithin(r: QuestionRecord, probe: string, spend: number): number {
  const p = r.probes[probe];
  const n = p.attempts.length;
  const perAttempt = n > 0 ? p.cost.blockApplications / n : 0;
  return perAttempt > 0 ? Math.min(n, Math.floor(spend / perAttempt + 1e-9)) : n;
}

/** The gain set at matched block applications: each question's costlier probe cut to the other's spend. */
export function pairAtMatchedBlockApplications(records: readonly QuestionRecord[], a: string, b: string, margin: number = DEFAULT_MARGIN, scope: DecisionScope = {}): ProbePairing & { spent: { a: number; b: number } } {
  const kept = new Map<QuestionRecord, Record<string, number>>();
  const spent = { a: 0, b: 0 };
  for (const r of records) {
    const spend = Math.min(r.probes[a].cost.blockApplications, r.probes[b].cost.blockApplications);
    const k = { [a]: attemptsWithin(r, a, spend), [b]: attemptsWithin(r, b, spend) };
    kept.set(r, k);
    for (const [side, probe] of [['a', a], ['b', b]] as const) {
      const p = r.probes[probe];
      spent[side] += p.attempts.length > 0 ? (p.cost.blockApplications * k[probe]) / p.attempts.length : 0;
    }
  }
  const reached: Reached = (r, probe) => r.probes[probe].correct.slice(0, kept.get(r)![probe]).some(Boolean);
  return { ...pairProbes(records, a, b, margin, reached, scope), spent };
}

/** Compares probe a with probe b; undefined when no question ran both. */
export function compareProbes(records: readonly QuestionRecord[], a: string, b: string, options: { margin?: number } = {}): ProbeComparison | undefined {
  const paired = records.filter((r) => r.probes[a] && r.probes[b]);
  if (paired.length === 0) return undefined;
  const budgetOf = (p: string) => Math.max(...paired.map((r) => r.probes[p].budget));
  const budget = { a: budgetOf(a), b: budgetOf(b) };
  const matched = paired.every((r) => r.probes[a].budget === r.probes[b].budget);
  const costA = paired.reduce((s, r) => addBudget(s, r.probes[a].cost), emptyBudget());
  const costB = paired.reduce((s, r) => addBudget(s, r.probes[b].cost), emptyBudget());
  const margin = options.margin ?? DEFAULT_MARGIN;
  const all = pairProbes(paired, a, b, margin);
  return {
    a,
    b,
    budget,
    match: matched ? 'matched' : 'unmatched',
    cost: {
      a: costA,
      b: costB,
      ratio: { generations: ratio(costA.generations, costB.generations), tokens: ratio(costA.tokens, costB.tokens), blockApplications: ratio(costA.blockApplications, costB.blockApplications) },
    },
    n: all.n,
    onlyA: all.onlyA,
    onlyB: all.onlyB,
    both: all.both,
    neither: all.neither,
    mcnemarP: all.mcnemarP,
    difference: all.difference,
    decision: all.decision,
    // The gain set's "questions to decide" count whole questions: scaled by the gain set's share of the paired ones.
    gainSet: pairProbes(paired.filter(inGainSet), a, b, margin, recordedReach, { totalN: paired.length }),
    gainSetAtMatchedBlockApplications: pairAtMatchedBlockApplications(paired.filter(inGainSet), a, b, margin, { totalN: paired.length }),
    exhausted: { a: probeExhaustion(paired, a), b: probeExhaustion(paired, b) },
  };
}
