/**
 * Ceilings along k in comparison.json: base → tuned paired Δpass@k for every k ≤ B — realized, each
 * probe, and the ceiling within k — each k with its 95% interval, and where the difference changes sign.
 */

/** Which interval a Δ at one k has: Newcombe's paired score (every value 0/1), a seeded paired percentile bootstrap, or none (too few questions). */
export type DeltaAtKMethod = 'newcombe' | 'bootstrap' | 'none';

export interface DeltaAtK {
  k: number;
  /** Mean pass@k over the paired questions, base checkpoint. */
  base: number;
  tuned: number;
  /** tuned − base. */
  delta: number;
  /** 95% interval of delta; null where no interval applies (method 'none'). */
  lo: number | null;
  hi: number | null;
  method: DeltaAtKMethod;
}

export interface PassAtKDeltaCurve {
  /** 'realized', a probe's name, or 'ceiling'. */
  what: string;
  /** Paired questions. */
  n: number;
  points: DeltaAtK[];
  /** k where Δ changes sign from the k before it (point estimates; zeros carry the earlier sign). */
  signChanges: number[];
  /** Some k's interval lies above 0 and another's below: the curves cross beyond noise. */
  crossesBeyondNoise: boolean;
}
