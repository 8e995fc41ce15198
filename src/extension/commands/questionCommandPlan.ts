/**
 * What the per-question editor commands run, and the words that say so before they run, so each
 * command runs what its name says rather than the whole probe set and the repair scan.
 * Probe Layer Routes runs only the route probes (routes, search), no repair scan. Silence MLP Blocks
 * needs the probes too: the scan runs only on a question of the failure set (deployment wrong, a
 * reference probe right), so its title names the probes that decide that first.
 */
export type QuestionCommand = 'all' | 'routes' | 'repair';

export interface QuestionPlanOptions {
  probes?: string[];
  repair?: boolean;
}

/** The probes and repair setting the command runs with, from those the settings and earlier picks give. */
export function questionCommandPlan<T extends QuestionPlanOptions>(kind: QuestionCommand, base: T): T {
  if (kind === 'routes') {
    const routeProbes = (base.probes ?? []).filter((p) => /^(routes|search)(:|$)/.test(p));
    return { ...base, probes: routeProbes.length ? routeProbes : ['routes:16'], repair: false };
  }
  if (kind === 'repair') return { ...base, repair: true };
  return base;
}

/** The notification's title: what runs on the question of `line`. */
export function questionCommandTitle(kind: QuestionCommand, line: number, plan: QuestionPlanOptions): string {
  const probes = (plan.probes ?? []).join(', ') || 'the default probes';
  if (kind === 'routes') return `Reach Audit: probing layer routes (${probes}; no repair scan) for the question on line ${line}`;
  if (kind === 'repair') return `Reach Audit: silencing MLP blocks for the question on line ${line}, after the probes that decide whether it is a failure (${probes})`;
  return `Reach Audit: auditing the question on line ${line}`;
}
