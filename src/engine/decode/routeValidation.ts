/**
 * Checks a route and a silenced-MLP list against the model before anything runs, so a bad value
 * fails with a message naming the argument instead of an onnxruntime error deep in a step.
 */
import { InputError } from '../../common';
import type { Route } from '../types';

export function identityRoute(numBlocks: number): number[] {
  return Array.from({ length: numBlocks }, (_, i) => i);
}

/** Returns the route as a plain array; `what` names the argument in the error ("--route", "request 3 route"). */
export function checkRoute(route: Route | undefined, numBlocks: number, what = 'route'): number[] {
  if (route === undefined) return identityRoute(numBlocks);
  if (!Array.isArray(route) || route.length === 0) {
    throw new InputError(`${what}: expected a non-empty list of block indices in 0..${numBlocks - 1}`);
  }
  for (const b of route) {
    if (!Number.isInteger(b) || b < 0 || b >= numBlocks) {
      throw new InputError(`${what}: block index ${String(b)} is out of range; the model has blocks 0..${numBlocks - 1}`);
    }
  }
  return [...route];
}

export function checkSilenced(blocks: readonly number[] | undefined, numBlocks: number, what = 'silenced MLP blocks'): Set<number> {
  const out = new Set<number>();
  for (const b of blocks ?? []) {
    if (!Number.isInteger(b) || b < 0 || b >= numBlocks) {
      throw new InputError(`${what}: block index ${String(b)} is out of range; the model has blocks 0..${numBlocks - 1}`);
    }
    out.add(b);
  }
  return out;
}

export function checkTokenIds(ids: readonly number[], vocabSize: number, what = 'token ids'): void {
  if (ids.length === 0) throw new InputError(`${what}: expected at least one token id`);
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
      throw new InputError(`${what}: token id ${String(id)} is out of range; the vocabulary has ids 0..${vocabSize - 1}`);
    }
  }
}
