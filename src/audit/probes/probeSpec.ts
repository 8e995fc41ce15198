/**
 * Probe settings (docs/design/probes.md): which probes a run uses and their budgets, parsed from
 * `--probe name:B`. A probe with budget B produces B candidate outputs for a question.
 */
import { InputError } from '../../common';
import { PROBE_NAMES, SELECTOR_NAMES, type ProbeName, type ProbeSpec, type SelectorName } from '../../contract';

/**
 * The most attempts one probe (or the depth probe, per prefix, or the global-route pool) may take
 * for a question. Every attempt is kept in the question's one record line, at a few hundred bytes
 * and up with its output: a budget of a million passed 2.9 GB before a record that could never be
 * written (the line limit is 256 MB). Ten thousand is the largest budget pass@k studies report.
 */
export const MAX_PROBE_BUDGET = 10_000;

/** Refuses a budget over MAX_PROBE_BUDGET, naming the flag as given. */
export function checkProbeBudget(flag: string, budget: number): void {
  if (budget > MAX_PROBE_BUDGET) {
    throw new InputError(
      `${flag}: a budget of ${budget.toLocaleString('en-US')} attempts a question is over the most allowed, ${MAX_PROBE_BUDGET.toLocaleString('en-US')} ` +
        "(every attempt is kept in the question's record line, which may not pass 256 MB); give a budget up to that",
    );
  }
}

/** Probes whose attempts are routes: the global-route selector applies to them. */
export function isRouteProbe(name: ProbeName): boolean {
  return name === 'routes' || name === 'search';
}

/** Parses `name:B` (e.g. `routes:16`); the message names the argument and what was expected. */
export function parseProbeSpec(text: string): ProbeSpec {
  const match = /^([a-z-]+)(?::(.*))?$/.exec(text.trim());
  const name = match?.[1];
  if (!match || !name || !(PROBE_NAMES as readonly string[]).includes(name)) {
    throw new InputError(`--probe ${text}: expected NAME:BUDGET with NAME one of ${PROBE_NAMES.join(', ')} (e.g. routes:16)`);
  }
  const budgetText = match[2];
  if (budgetText === undefined) throw new InputError(`--probe ${text}: missing budget; expected ${name}:B with B a positive integer (e.g. ${name}:16)`);
  const budget = Number(budgetText);
  if (budgetText.trim() === '' || !Number.isInteger(budget) || budget < 1) {
    throw new InputError(`--probe ${text}: the budget must be a positive integer, got '${budgetText}'`);
  }
  checkProbeBudget(`--probe ${text}`, budget);
  return { name: name as ProbeName, budget };
}

export function parseProbeSpecs(texts: readonly string[]): ProbeSpec[] {
  const specs = texts.map(parseProbeSpec);
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.name)) throw new InputError(`--probe ${s.name} is given twice; give each probe once`);
    seen.add(s.name);
  }
  return specs;
}

export function parseSelectors(text: string): SelectorName[] {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const n of names) {
    if (!(SELECTOR_NAMES as readonly string[]).includes(n)) throw new InputError(`--select ${text}: unknown selector '${n}'; expected a comma-separated list of ${SELECTOR_NAMES.join(', ')}`);
  }
  return [...new Set(names)] as SelectorName[];
}
