/**
 * The learned router's features of one question, from what the deployment already computes: its
 * prompt's token ids (the input of its own prefill). A hashed bag of those ids is, up to the hash's
 * collisions, what the embedding layer's mean-pooled output is a linear function of (the pooled
 * state before block 0 is Eᵀ·counts / length), so it carries the information of the pooled hidden
 * state at block 0's input at no extra pass. Stored as whole counts so that a record, and every fit
 * made from it, is byte-for-byte the same in every run, shard and resume.
 */
import { seedFor } from '../stats';

/** Buckets of the hashed bag of prompt tokens. */
export const ROUTER_FEATURE_DIMS = 64;

/** Knuth's multiplicative hash spreads neighbouring token ids (one word's pieces) over the buckets. */
function bucketOf(token: number, dims: number): number {
  return (Math.imul(token >>> 0, 2654435761) >>> 0) % dims;
}

/** Counts of the prompt's token ids per hash bucket. */
export function promptFeatures(promptIds: readonly number[], dims: number = ROUTER_FEATURE_DIMS): number[] {
  const counts = new Array<number>(dims).fill(0);
  for (const t of promptIds) counts[bucketOf(t, dims)]++;
  return counts;
}

/** Default number of cross-fitting folds. */
export const DEFAULT_ROUTER_FOLDS = 5;

/**
 * A question's fold, from a seeded hash of its id alone: every shard, a resumed run and the question
 * audited by itself put it in the same fold, whatever else the run holds.
 */
export function foldOf(seed: number, questionId: string, folds: number): number {
  return seedFor(seed, questionId, 'learned-route-fold') % folds;
}

/** A fold count a user may ask for: at least 2 (one to fit on, one held out), at most 20. */
export function checkRouterFolds(folds: number): string | undefined {
  if (Number.isInteger(folds) && folds >= 2 && folds <= 20) return undefined;
  return `expected a whole number of folds from 2 to 20 (default ${DEFAULT_ROUTER_FOLDS}), got '${folds}'`;
}
