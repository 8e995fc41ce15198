/**
 * Chance levels of a choice-format run (design: "Chance"): for the deployment (one attempt) and for
 * each probe (the attempts it made on each question), the rate a uniform guesser would reach,
 * the "reachable beyond chance" share with its interval (only where that interval lies in [0, 1];
 * the difference from the level is given always), and whether the measured rate is above
 * chance at all. Questions carry their option count in the record (`options`); a run whose
 * records lack it (not a choice format) has no chance section.
 */
import { type ProbeResult, type QuestionRecord, rateOf } from '../../contract';
import { guessReachProbability, poissonBinomialUpperTail } from '../stats';
import type { ChanceLevel, ChanceSummary } from '../../contract';

/** The chance level of a set of (options, attempts, reached) questions. */
export function chanceLevel(questions: readonly { options: number; attempts: number; reached: boolean }[]): ChanceLevel {
  const n = questions.length;
  const levels = questions.map((q) => guessReachProbability(q.options, q.attempts));
  const expected = levels.reduce((s, x) => s + x, 0);
  const successes = questions.filter((q) => q.reached).length;
  const observed = rateOf(successes, n);
  const level = n === 0 ? 0 : expected / n;
  const map = (x: number) => (x - level) / (1 - level);
  const span = (pick: (q: { options: number; attempts: number }) => number) =>
    n === 0 ? { min: 0, max: 0 } : { min: Math.min(...questions.map(pick)), max: Math.max(...questions.map(pick)) };
  return {
    n,
    observed,
    level,
    expected,
    options: span((q) => q.options),
    attempts: span((q) => q.attempts),
    // A share only where its whole interval is one (calibration row "chance-corrected share"); else the difference.
    beyondChance: n === 0 || level >= 1 || observed.ci.lo < level ? null : { estimate: map(observed.rate), lo: map(observed.ci.lo), hi: map(observed.ci.hi) },
    overChance: { estimate: observed.rate - level, lo: observed.ci.lo - level, hi: observed.ci.hi - level },
    pValue: poissonBinomialUpperTail(levels, successes),
    aboveChance: n > 0 && observed.ci.lo > level,
  };
}

/** The chance section of summary.json, or undefined when the records are not a choice format. */
export function chanceSummary(records: readonly QuestionRecord[], probes: readonly string[]): ChanceSummary | undefined {
  const choice = records.filter((r) => typeof r.options === 'number' && r.options >= 1);
  if (choice.length === 0 || choice.length !== records.length) return undefined;
  const realized = chanceLevel(choice.map((r) => ({ options: r.options!, attempts: 1, reached: r.realized.correct })));
  const byProbe: Record<string, ChanceLevel> = {};
  for (const p of probes) {
    const used = choice.filter((r) => r.probes[p]);
    byProbe[p] = chanceLevel(used.map((r) => ({ options: r.options!, attempts: chanceAttempts(r.probes[p]), reached: r.reachable[p] === true })));
  }
  return { realized, probes: byProbe };
}

/**
 * The attempts a guesser gets for one probe's result: those the probe made, or under
 * --until-reached, where a hit ends the attempts, the budget it could have spent (a guesser
 * stopping at its own first hit reaches with the same probability as one that spends it all).
 */
function chanceAttempts(result: ProbeResult): number {
  return result.untilReached && result.correct[result.correct.length - 1] ? result.budget : result.attempts.length;
}
