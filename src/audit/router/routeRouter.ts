/**
 * The learned router's model: from a question's features, which route of the shared pool to take.
 * Two small models, each fit on training rows (features, which pool routes reached the gold answer):
 * - `knn`: the k nearest training questions (Euclidean on standardized features) vote per route,
 *   shrunk towards the route's overall rate by `prior` pseudo-questions;
 * - `logistic`: one L2-regularized logistic regression per route, fit by full-batch gradient descent
 *   for a fixed number of steps (deterministic, no tolerance to tune).
 * Both pick the route with the highest predicted chance of reaching the answer; ties (within float
 * rounding) go to the route with the most training wins, then to the lower index, so a router that
 * learns nothing falls back to the global route.
 */

export type RouterModel = { kind: 'knn'; k: number; prior: number } | { kind: 'logistic'; lambda: number; steps: number; learningRate: number };

/** The settings chosen by measurement on constructed landscapes (docs/design/answer-blind-selection.md, "Learned router"). */
export const DEFAULT_ROUTER_MODEL: RouterModel = { kind: 'logistic', lambda: 0.1, steps: 100, learningRate: 1 };
export const KNN_ROUTER_MODEL: RouterModel = { kind: 'knn', k: 10, prior: 2 };

/** One training question: its features and, per pool route, whether that route reached its gold answer. */
export interface RouterRow {
  features: readonly number[];
  correct: readonly boolean[];
}

/** A fitted router: the pool index it takes for a question's features. */
export type Router = (features: readonly number[]) => number;

/** In words, for the manifest and the reports. */
export function routerModelText(m: RouterModel): string {
  return m.kind === 'knn' ? `k-nearest neighbours (k = ${m.k}, prior ${m.prior} questions)` : `L2 logistic regression per route (λ = ${m.lambda}, ${m.steps} full-batch gradient steps at rate ${m.learningRate}, on standardized features)`;
}

/** Per-dimension mean and standard deviation of the training rows; constant dimensions get sd 0 (and are ignored). */
function standardizer(rows: readonly RouterRow[], dims: number): (x: readonly number[]) => number[] {
  const mean = new Array<number>(dims).fill(0);
  const sd = new Array<number>(dims).fill(0);
  for (const r of rows) for (let d = 0; d < dims; d++) mean[d] += r.features[d] / rows.length;
  for (const r of rows) for (let d = 0; d < dims; d++) sd[d] += (r.features[d] - mean[d]) ** 2 / rows.length;
  for (let d = 0; d < dims; d++) sd[d] = Math.sqrt(sd[d]);
  return (x) => x.map((v, d) => (sd[d] > 1e-12 ? (v - mean[d]) / sd[d] : 0));
}

/** Pool routes' training wins. */
function winsOf(rows: readonly RouterRow[], poolSize: number): number[] {
  const wins = new Array<number>(poolSize).fill(0);
  for (const r of rows) for (let i = 0; i < poolSize; i++) if (r.correct[i]) wins[i]++;
  return wins;
}

/** The highest score; near-ties (float rounding) go to more training wins, then to the lower index. */
function pick(scores: readonly number[], wins: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < scores.length; i++) {
    const diff = scores[i] - scores[best];
    if (diff > 1e-9 || (Math.abs(diff) <= 1e-9 && wins[i] > wins[best])) best = i;
  }
  return best;
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

function fitLogistic(xs: Float64Array, n: number, dims: number, ys: readonly boolean[], lambda: number, steps: number, rate: number): (x: readonly number[]) => number {
  const w = new Float64Array(dims);
  const grad = new Float64Array(dims);
  const positives = ys.filter(Boolean).length;
  // Start at the base rate (smoothed), so the weights learn only what the features add to it.
  let b = Math.log((positives + 0.5) / (n - positives + 0.5));
  for (let s = 0; s < steps; s++) {
    grad.fill(0);
    let gb = 0;
    for (let i = 0; i < n; i++) {
      const row = i * dims;
      let z = b;
      for (let d = 0; d < dims; d++) z += w[d] * xs[row + d];
      const e = (sigmoid(z) - (ys[i] ? 1 : 0)) / n;
      gb += e;
      for (let d = 0; d < dims; d++) grad[d] += e * xs[row + d];
    }
    for (let d = 0; d < dims; d++) w[d] -= rate * (grad[d] + lambda * w[d]);
    b -= rate * gb;
  }
  return (x) => {
    let z = b;
    for (let d = 0; d < dims; d++) z += w[d] * x[d];
    return sigmoid(z);
  };
}

/** Fit a router on training rows over a pool of `poolSize` routes. */
export function fitRouter(model: RouterModel, rows: readonly RouterRow[], poolSize: number): Router {
  const dims = rows.length > 0 ? rows[0].features.length : 0;
  const wins = winsOf(rows, poolSize);
  if (rows.length === 0 || poolSize === 0) return () => 0;
  const z = standardizer(rows, dims);
  const xs = rows.map((r) => z(r.features));
  if (model.kind === 'knn') {
    const k = Math.min(model.k, rows.length);
    return (features) => {
      const x = z(features);
      const dist = xs.map((t, i) => ({ i, d: t.reduce((s, v, j) => s + (v - x[j]) ** 2, 0) }));
      dist.sort((a, c) => a.d - c.d || a.i - c.i);
      const scores = new Array<number>(poolSize).fill(0);
      for (let r = 0; r < poolSize; r++) {
        let hits = 0;
        for (let j = 0; j < k; j++) if (rows[dist[j].i].correct[r]) hits++;
        scores[r] = (hits + (model.prior * wins[r]) / rows.length) / (k + model.prior);
      }
      return pick(scores, wins);
    };
  }
  const flat = new Float64Array(rows.length * dims);
  xs.forEach((x, i) => flat.set(x, i * dims));
  const models = Array.from({ length: poolSize }, (_, r) => fitLogistic(flat, rows.length, dims, rows.map((row) => row.correct[r] === true), model.lambda, model.steps, model.learningRate));
  return (features) => {
    const x = z(features);
    return pick(models.map((m) => m(x)), wins);
  };
}
