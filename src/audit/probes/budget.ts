/**
 * Budget accounting (docs/design/comparison.md): what a probe, the deployment or the repair scan cost.
 * "Matched budget" means equal generations; tokens and block applications are shown beside it.
 */
import type { Generation } from '../../engine';
import type { Budget } from '../../contract';

export function emptyBudget(): Budget {
  return { generations: 0, tokens: 0, blockApplications: 0 };
}

export function addBudget(into: Budget, add: Budget): Budget {
  into.generations += add.generations;
  into.tokens += add.tokens;
  into.blockApplications += add.blockApplications;
  return into;
}

/** The cost of a set of generations, from each Generation.cost. */
export function costOf(generations: readonly Generation[]): Budget {
  const total = emptyBudget();
  for (const g of generations) {
    total.generations++;
    total.tokens += g.cost.generatedTokens;
    total.blockApplications += g.cost.blockApplications;
  }
  return total;
}
