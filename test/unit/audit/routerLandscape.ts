/**
 * Constructed route landscapes for the learned router's tests: questions of a few types, a pool of
 * routes, and which routes reach each question's gold answer. `predictive`: on the gain set a
 * question's type decides the route that saves it, and the type shows in its features (as a
 * question template shows in its prompt's tokens); otherwise the saving route is drawn at random,
 * whatever the features say.
 */
import { seededRandom } from '../../../src/audit/stats';
import type { FoldRow } from '../../../src/audit/router';

export interface LandscapeRow extends FoldRow {
  realized: boolean;
}

export interface LandscapeOptions {
  n: number;
  folds: number;
  poolSize: number;
  types: number;
  dims: number;
  predictive: boolean;
  seed: number;
  /** Chance the saving route reaches a gain-set question's answer; other routes reach it at `background`. */
  save?: number;
  background?: number;
  realizedShare?: number;
}

export function landscape(o: LandscapeOptions): LandscapeRow[] {
  const rand = seededRandom('router-landscape', o.seed);
  const save = o.save ?? 0.85;
  const background = o.background ?? 0.05;
  const rows: LandscapeRow[] = [];
  for (let q = 0; q < o.n; q++) {
    const type = Math.floor(rand() * o.types);
    const realized = rand() < (o.realizedShare ?? 0.4);
    // Token-count-like features: a noisy background in every bucket, the type's own buckets stand out.
    const features = Array.from({ length: o.dims }, () => Math.floor(rand() * 4));
    features[type] += 3;
    const saving = o.predictive ? type % o.poolSize : Math.floor(rand() * o.poolSize);
    const correct = Array.from({ length: o.poolSize }, (_, r) => (realized ? rand() < 0.8 : rand() < (r === saving ? save : background)));
    rows.push({ id: `q${q}`, fold: Math.floor(rand() * o.folds), features, correct, realized });
  }
  return rows;
}
