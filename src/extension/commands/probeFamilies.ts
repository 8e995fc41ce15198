/**
 * The probes the Run Reachability Audit picker offers, one line each, and the picker's items.
 * Typed by the contract's probe names so that a probe the engine gains cannot be left out of the
 * picker (the perturbation probe once was: the settings accepted it, the picker never showed it).
 */
import type { ProbeName } from '../../contract';

export const PROBE_FAMILIES: Readonly<Record<ProbeName, string>> = {
  sample: 'temperature sampling, one seed per attempt',
  routes: 'random layer routes (skip or repeat blocks)',
  search: "route search guided by the model's own confidence",
  perturb: 'greedy deployment with one seeded random push to the residual stream after one block',
};

export interface ProbeItem {
  label: string;
  description: string;
  detail: string;
  picked: boolean;
}

/** One item per probe, picked where `current` (probe:budget strings) names it, with its budget. */
export function probeItems(current: readonly string[]): ProbeItem[] {
  const budgetOf = new Map(current.map((p) => [p.split(':')[0], p.split(':')[1] ?? '16']));
  return (Object.keys(PROBE_FAMILIES) as ProbeName[]).map((name) => ({
    label: name,
    description: `budget ${budgetOf.get(name) ?? '16'}`,
    detail: PROBE_FAMILIES[name],
    picked: budgetOf.has(name),
  }));
}
