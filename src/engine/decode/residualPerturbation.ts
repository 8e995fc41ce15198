/**
 * The residual perturbation of one sequence (types.ts ResidualPerturbation): its direction, drawn
 * from its seed, and the rule that adds it to the rows a block call computed. The executor calls
 * `perturbRows` right after the block at the perturbed route position, in the prompt step and in
 * every decode step, so the caches of every later block hold keys and values of the perturbed
 * stream, as a full recomputation with the vector added would.
 */
import { InputError } from '../../common';
import { Xoshiro128 } from '../sampling/sampling';
import { PERTURBED_POSITIONS, type ResidualPerturbation } from '../types';

/** The largest scale accepted: ten times the residual's own norm is already noise. */
export const MAX_PERTURBATION_SCALE = 10;

/** A checked perturbation as a sequence carries it. */
export interface AppliedPerturbation {
  readonly spec: ResidualPerturbation;
  /** The route position whose output is perturbed (the first application of `afterBlock`). */
  readonly position: number;
  /** Unit direction, one value per hidden unit. */
  readonly direction: Float64Array;
  /** Tells this perturbation apart in prefix sharing (two rows share a block output only with the same key). */
  readonly key: string;
}

/**
 * A unit vector in R^n, uniform on the sphere: n standard normal draws (Box–Muller on the seed's
 * own Xoshiro128 stream) divided by their norm. The same seed gives the same direction on every
 * machine and in every batch.
 */
export function perturbationDirection(seed: number, n: number): Float64Array {
  const rng = new Xoshiro128(seed);
  const v = new Float64Array(n);
  for (let i = 0; i < n; i += 2) {
    // 1 - u keeps the logarithm's argument in (0, 1].
    const r = Math.sqrt(-2 * Math.log(1 - rng.nextFloat()));
    const theta = 2 * Math.PI * rng.nextFloat();
    v[i] = r * Math.cos(theta);
    if (i + 1 < n) v[i + 1] = r * Math.sin(theta);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < n; i++) v[i] /= norm;
  return v;
}

/** Checks a request's perturbation against its route; `what` names the argument in the error. */
export function checkPerturbation(p: ResidualPerturbation | undefined, route: readonly number[], hiddenSize: number, what = 'perturbation'): AppliedPerturbation | null {
  if (p === undefined) return null;
  if (!Number.isInteger(p.afterBlock) || !route.includes(p.afterBlock)) {
    throw new InputError(`${what}.afterBlock: expected a block of the route (${route.join(',')}), got ${String(p.afterBlock)}`);
  }
  if (!Number.isInteger(p.seed)) throw new InputError(`${what}.seed: expected a whole number, got ${String(p.seed)}`);
  if (!Number.isFinite(p.scale) || p.scale < 0 || p.scale > MAX_PERTURBATION_SCALE) {
    throw new InputError(`${what}.scale: expected a number from 0 to ${MAX_PERTURBATION_SCALE} (a share of the residual's norm), got ${String(p.scale)}`);
  }
  if (!PERTURBED_POSITIONS.includes(p.positions)) {
    throw new InputError(`${what}.positions: expected one of ${PERTURBED_POSITIONS.join(', ')}, got ${String(p.positions)}`);
  }
  const spec: ResidualPerturbation = { afterBlock: p.afterBlock, seed: p.seed, scale: p.scale, positions: p.positions };
  return {
    spec,
    position: route.indexOf(p.afterBlock),
    direction: perturbationDirection(p.seed, hiddenSize),
    key: `p${p.seed}:${p.scale}:${p.positions}`,
  };
}

/** Whether the token at `position` is touched, for a prompt of `promptLength` tokens. */
export function touches(rule: ResidualPerturbation['positions'], position: number, promptLength: number): boolean {
  if (rule === 'all') return true;
  if (rule === 'prompt') return position < promptLength;
  return position >= promptLength - 1;
}

/**
 * Adds scale·‖h_t‖·u to each touched row of `hidden` ([count, H], rows for tokens at positions
 * `first`, `first + 1`, …). The norm is taken in float64 from the stored float32 row.
 */
export function perturbRows(hidden: Float32Array, count: number, first: number, promptLength: number, p: AppliedPerturbation): void {
  const H = p.direction.length;
  for (let t = 0; t < count; t++) {
    if (!touches(p.spec.positions, first + t, promptLength)) continue;
    const at = t * H;
    let ss = 0;
    for (let i = 0; i < H; i++) ss += hidden[at + i] * hidden[at + i];
    const length = p.spec.scale * Math.sqrt(ss);
    for (let i = 0; i < H; i++) hidden[at + i] += length * p.direction[i];
  }
}
