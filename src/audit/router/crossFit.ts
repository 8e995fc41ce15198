/**
 * Cross-fitting (docs/design/answer-blind-selection.md, "Learned router"): the questions fall into K folds by a seeded hash
 * of their id; each fold's questions get their route from a router fit only on the other folds'
 * rows, so no question's own outcomes, and so no gold answer of its own, ever reach the choice made
 * for it. The same folds give the baselines paired with it: the global route of the other folds
 * (one route for every question of the fold) and the same router fit on the other folds' rows with
 * their outcomes shuffled among questions (the shuffled-label control).
 */
import { seededRandom } from '../stats';
import { fitRouter, type Router, type RouterModel, type RouterRow } from './routeRouter';

export interface FoldRow extends RouterRow {
  id: string;
  fold: number;
}

/** Per row (in input order): the pool index each rule took for it. */
export interface CrossFitChoices {
  learned: number[];
  global: number[];
  shuffled: number[];
}

/** A router fitter, replaceable so that a test can see exactly which rows each fit was given. */
export type RouterFitter = (rows: readonly RouterRow[], poolSize: number, fold: number) => Router;

/** The pool route with the most training wins (ties: lower index), as chooseGlobalRoute picks. */
function globalOf(rows: readonly RouterRow[], poolSize: number): number {
  const wins = new Array<number>(poolSize).fill(0);
  for (const r of rows) for (let i = 0; i < poolSize; i++) if (r.correct[i]) wins[i]++;
  let best = 0;
  for (let i = 1; i < poolSize; i++) if (wins[i] > wins[best]) best = i;
  return best;
}

/** The training rows with their outcome vectors shuffled among them (seeded Fisher–Yates, per fold). */
export function shuffledLabels(rows: readonly RouterRow[], seedKey: readonly (string | number)[]): RouterRow[] {
  const labels = rows.map((r) => r.correct);
  const rand = seededRandom('learned-route-shuffle', ...seedKey);
  for (let i = labels.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [labels[i], labels[j]] = [labels[j], labels[i]];
  }
  return rows.map((r, i) => ({ features: r.features, correct: labels[i] }));
}

/**
 * Cross-fitted choices for every row. `fit` defaults to fitRouter with `model`; the shuffled control
 * uses the same fitter on shuffled training rows (seeded by `seedKey` and the fold).
 */
export function crossFit(rows: readonly FoldRow[], folds: number, poolSize: number, model: RouterModel, seedKey: readonly (string | number)[] = [], fit: RouterFitter = (train, size) => fitRouter(model, train, size)): CrossFitChoices {
  const out: CrossFitChoices = { learned: new Array<number>(rows.length).fill(0), global: new Array<number>(rows.length).fill(0), shuffled: new Array<number>(rows.length).fill(0) };
  for (let f = 0; f < folds; f++) {
    const held = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.fold === f);
    if (held.length === 0) continue;
    const train = rows.filter((r) => r.fold !== f).map((r) => ({ features: r.features, correct: r.correct }));
    const router = fit(train, poolSize, f);
    const control = fit(shuffledLabels(train, [...seedKey, f]), poolSize, f);
    const global = globalOf(train, poolSize);
    for (const { r, i } of held) {
      out.learned[i] = router(r.features);
      out.shuffled[i] = control(r.features);
      out.global[i] = global;
    }
  }
  return out;
}
