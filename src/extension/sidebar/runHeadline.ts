/**
 * The headline numbers of a run, worded for the Runs view and the Audit side view: from its
 * (validated) summary.json when it has one, else from its finished records through the contract's
 * runRates — the numbers summary.json and the panel give for the same records. Pure functions: no
 * vscode, no file system.
 */
import { formatPercent, identifiedBlockDamage, type Rate, type RepairSummary, type RunRates, ofText, RATE_MIN_QUESTIONS } from '../../contract';

export interface BlindRate extends Rate {
  probe: string;
  selector: string;
}

export interface RepairHeadline {
  failureSetSize: number;
  /** Absent when no block could be identified (an empty selection half). */
  identifiedBlock?: number;
  /** The identified block's repair rate on the held-out half of the failure set; absent when that half is empty. */
  repairRate?: Rate;
  /** Share of realized questions the identified block breaks; absent when there are none. */
  damageRate?: Rate;
}

export interface RunHeadline {
  n: number;
  realized: Rate;
  /** One entry per probe, in the order the summary lists them. */
  reachable: { probe: string; rate: Rate }[];
  /** Reachable by any probe: the reachable ceiling. */
  reachableAny: Rate;
  /** global-route is scored on a held-out split: its n is its own, not the run's. */
  blind: BlindRate[];
  states: RunRates['states'];
  repair?: RepairHeadline;
}

/** From summary.json (a RunSummary) or from runRates(records) of a run without one. */
export function runHeadline(summary: Omit<RunRates, 'realizedNotReached'> & { repair?: RepairSummary }): RunHeadline {
  const reachable = Object.entries(summary.reachable).map(([probe, rate]) => ({ probe, rate }));
  const blind: BlindRate[] = [];
  for (const [probe, selectors] of Object.entries(summary.blind)) {
    for (const [selector, rate] of Object.entries(selectors)) blind.push({ probe, selector, ...rate });
  }
  let repair: RepairHeadline | undefined;
  if (summary.repair) {
    // The audit writes null where it had nothing to measure on; those stay out of the headline.
    const r = summary.repair;
    repair = { failureSetSize: r.failureSetSize };
    if (r.identifiedBlock !== null) repair.identifiedBlock = r.identifiedBlock;
    if (r.repairRate !== null && r.ci !== null && r.n > 0) repair.repairRate = { n: r.n, successes: r.repaired, rate: r.repairRate, ci: r.ci };
    const damage = identifiedBlockDamage(r);
    if (damage) repair.damageRate = damage;
  }
  return { n: summary.n, realized: summary.realized, reachable, reachableAny: summary.reachableAny, blind, states: summary.states, ...(repair ? { repair } : {}) };
}

/** "37.5% (3/8, 95% CI 13.7–69.4%)"; with n = 0 "— (n=0)". */
export function formatRateDetail(value: Rate): string {
  if (value.n === 0) return `${formatPercent(null)} (n=0)`;
  return `${formatPercent(value.rate)} (${value.successes}/${value.n}, 95% CI ${(value.ci.lo * 100).toFixed(1)}–${formatPercent(value.ci.hi)})`;
}

/**
 * A number over fewer than RATE_MIN_QUESTIONS questions is its count, "3 of 8" (an interval over so
 * few spans most of 0–100%); from there on the rate with its interval and n, as formatRateDetail.
 * The threshold is the number's own n (a held-out half, the realized questions a block can break).
 */
export function formatCountOrRate(value: Rate): string {
  if (value.n === 0 || value.n >= RATE_MIN_QUESTIONS) return formatRateDetail(value);
  return ofText(value.successes, value.n);
}

/** A run read question by question (fewer than RATE_MIN_QUESTIONS): counted, not rated. */
export function isCountedRun(headline: Pick<RunHeadline, 'n'>): boolean {
  return headline.n < RATE_MIN_QUESTIONS;
}

/** "n = 8 questions · counted, not rated (rates with 95% intervals from 20 questions on)". */
export function countedText(n: number): string {
  return `n = ${n} question${n === 1 ? '' : 's'} · counted, not rated (rates with 95% intervals from ${RATE_MIN_QUESTIONS} questions on)`;
}

/**
 * One line for the run's row: "realized 42.5% · reachable sample 62.5%, routes 70.0% · n=40"; a run of
 * fewer than RATE_MIN_QUESTIONS in counts, "realized 3 of 8 · reachable sample 6 of 8, routes 7 of 8".
 */
export function formatHeadlineLine(headline: RunHeadline): string {
  if (isCountedRun(headline)) {
    const parts: string[] = [`realized ${ofText(headline.realized.successes, headline.realized.n)}`];
    if (headline.reachable.length) parts.push('reachable ' + headline.reachable.map((r) => `${r.probe} ${ofText(r.rate.successes, r.rate.n)}`).join(', '));
    return parts.join(' · ');
  }
  const parts: string[] = [`realized ${formatPercent(headline.realized.rate)}`];
  if (headline.reachable.length) parts.push('reachable ' + headline.reachable.map((r) => `${r.probe} ${formatPercent(r.rate.rate)}`).join(', '));
  parts.push(`n=${headline.n}`);
  return parts.join(' · ');
}
