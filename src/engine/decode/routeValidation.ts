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
  route.forEach((b, i) => checkBlock(b, numBlocks, `${what}[${i}]`));
  return [...route];
}

/**
 * One block index; the message names the element and shows the value as given (a string "0" is
 * not the number 0, 0.5 is not out of range but not whole, 1e999 arrives as Infinity).
 */
function checkBlock(b: unknown, numBlocks: number, where: string): void {
  if (typeof b !== 'number' || !Number.isInteger(b)) {
    const shown = typeof b === 'string' ? JSON.stringify(b.length > 40 ? `${b.slice(0, 40)}…` : b) : typeof b === 'number' ? String(b) : typeof b;
    throw new InputError(`${where}: block index ${shown} is not a whole number; expected a block index in 0..${numBlocks - 1}`);
  }
  if (b < 0 || b >= numBlocks) throw new InputError(`${where}: block index ${b} is out of range; the model has blocks 0..${numBlocks - 1}`);
}

export function checkSilenced(blocks: readonly number[] | undefined, numBlocks: number, what = 'silenced MLP blocks'): Set<number> {
  const out = new Set<number>();
  (blocks ?? []).forEach((b, i) => {
    checkBlock(b, numBlocks, `${what}[${i}]`);
    out.add(b);
  });
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
