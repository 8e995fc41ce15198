/**
 * The perturbation probe's draws (docs/design/probes.md, "Perturbation probe"): each attempt is the
 * deployment, decoded as the deployment decodes, with one random direction added to the residual
 * stream after one block. Per attempt, independently:
 * - the block: uniform over 0..L-1;
 * - the tokens it touches: uniform over `all`, `prompt`, `continuation`;
 * - the scale (the added vector's length as a share of the residual's norm at each token):
 *   log-uniform on [PERTURBATION_SCALE.min, PERTURBATION_SCALE.max], rounded to 3 decimals so the
 *   record shows the number that ran;
 * - the direction: uniform on the unit sphere, from the attempt's own seed (the engine draws it).
 * Attempts are exchangeable draws, so pass@k reads them with the unbiased estimator.
 */
import type { AttemptPerturbation } from '../../contract';

export const PERTURBATION_POSITIONS: readonly AttemptPerturbation['positions'][] = ['all', 'prompt', 'continuation'];

/** The scale's range: 5% of the residual's norm barely moves a greedy output, 50% moves most. */
export const PERTURBATION_SCALE = { min: 0.05, max: 0.5 } as const;

/**
 * One attempt's draw from its own uniform stream and direction seed (both keyed by run seed,
 * question and attempt, so a question alone draws what it draws in a full run).
 */
export function drawPerturbation(numBlocks: number, random: () => number, directionSeed: number): AttemptPerturbation {
  const afterBlock = Math.min(numBlocks - 1, Math.floor(random() * numBlocks));
  const positions = PERTURBATION_POSITIONS[Math.min(PERTURBATION_POSITIONS.length - 1, Math.floor(random() * PERTURBATION_POSITIONS.length))];
  const { min, max } = PERTURBATION_SCALE;
  const scale = Number(Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min))).toFixed(3));
  return { afterBlock, positions, scale, seed: directionSeed };
}
