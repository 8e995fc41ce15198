/**
 * Ceilings along k (docs/design/comparison.md, "Ceilings along k"): base → tuned paired Δpass@k for every
 * k ≤ B — realized (one deployed answer, the same at every k), each probe, and the ceiling (the
 * same quantity as the comparison's reachable ceiling: realized, or reached within k by some probe,
 * 1 − (1 − realized) · Π over probes of (1 − pass@k)) — with a 95%
 * interval per k, and where the difference changes sign. The ceiling at B alone cannot say whether
 * training lowered the ceiling or only moved where the curves cross.
 *
 * Intervals: where every per-question value at k is 0 or 1 (realized, the search's "first k",
 * every probe at k = B), Newcombe's paired score interval; otherwise a seeded paired percentile
 * bootstrap of the per-question differences from 20 questions on, and none below (said so).
 */
import { MIN_BOOTSTRAP_QUESTIONS, passAtKRows, type DeltaAtK, type PassAtKDeltaCurve, type QuestionRecord } from '../../contract';
import { pairedBootstrap, pairedScoreInterval, seedFor } from '../stats';

const isZeroOne = (xs: readonly number[]) => xs.every((x) => x === 0 || x === 1);

/**
 * A Δ this close to 0 has no sign: per-question pass@k values are ratios of binomial coefficients, and
 * two curves equal at every k can differ by rounding (∓1e-16), which would read as a crossing.
 */
export const DELTA_SIGN_TOLERANCE = 1e-9;

/** The sign of a Δ, 0 within DELTA_SIGN_TOLERANCE of 0. */
export function deltaSign(delta: number): -1 | 0 | 1 {
  return Math.abs(delta) <= DELTA_SIGN_TOLERANCE ? 0 : delta > 0 ? 1 : -1;
}

function deltaAt(k: number, base: readonly number[], tuned: readonly number[], seedKey: string): DeltaAtK {
  const n = base.length;
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / n;
  const b = mean(base);
  const t = mean(tuned);
  const point = { k, base: b, tuned: t, delta: t - b };
  if (isZeroOne(base) && isZeroOne(tuned)) {
    let both = 0;
    let onlyTuned = 0;
    let onlyBase = 0;
    base.forEach((x, i) => {
      if (x === 1 && tuned[i] === 1) both++;
      else if (tuned[i] === 1) onlyTuned++;
      else if (x === 1) onlyBase++;
    });
    // First = tuned, second = base, so the interval is of tuned − base.
    const ci = pairedScoreInterval({ both, onlyFirst: onlyTuned, onlySecond: onlyBase, neither: n - both - onlyTuned - onlyBase });
    return { ...point, lo: ci.lo, hi: ci.hi, method: 'newcombe' };
  }
  if (n < MIN_BOOTSTRAP_QUESTIONS) return { ...point, lo: null, hi: null, method: 'none' };
  const d = pairedBootstrap(base, tuned, { seed: seedFor('pass-at-k-delta', seedKey, k), resamples: 10000 });
  return { ...point, lo: d.lo, hi: d.hi, method: 'bootstrap' };
}

function curveOf(what: string, base: readonly (readonly number[])[], tuned: readonly (readonly number[])[], budget: number): PassAtKDeltaCurve {
  const points: DeltaAtK[] = [];
  for (let k = 1; k <= budget; k++) points.push(deltaAt(k, base.map((r) => r[k - 1]), tuned.map((r) => r[k - 1]), what));
  const signChanges: number[] = [];
  let sign = 0;
  for (const p of points) {
    const s = deltaSign(p.delta);
    if (s !== 0 && sign !== 0 && s !== sign) signChanges.push(p.k);
    if (s !== 0) sign = s;
  }
  const above = points.some((p) => p.lo !== null && p.lo > 0);
  const below = points.some((p) => p.hi !== null && p.hi < 0);
  return { what, n: base.length, points, signChanges, crossesBeyondNoise: above && below };
}

/**
 * The Δpass@k curves of a base and a tuned run over the questions both audited (paired by id), for
 * k = 1..B, B the smallest budget of the probes both ran with full pools (--until-reached pools have no pass@k).
 */
export function passAtKDeltas(baseRecords: readonly QuestionRecord[], tunedRecords: readonly QuestionRecord[]): PassAtKDeltaCurve[] {
  const tunedById = new Map(tunedRecords.filter((r) => !r.skipped).map((r) => [r.id, r]));
  const base = baseRecords.filter((r) => !r.skipped && tunedById.has(r.id));
  const tuned = base.map((r) => tunedById.get(r.id)!);
  if (base.length === 0) return [];
  const probes = Object.keys(base[0].probes).filter((p) => base.every((r) => r.probes[p]) && tuned.every((r) => r.probes[p]));
  const rows = probes
    .map((p) => ({ probe: p, base: passAtKRows(base, p), tuned: passAtKRows(tuned, p) }))
    .filter((x) => x.base.rows.length === base.length && x.tuned.rows.length === tuned.length);
  if (rows.length === 0) return [];
  const budget = Math.min(...rows.flatMap((x) => [x.base.budget, x.tuned.budget]));
  const realized = (rs: readonly QuestionRecord[]) => rs.map((r) => Array.from({ length: budget }, () => (r.realized.correct ? 1 : 0)));
  // The ceiling within k, the comparison's one ceiling: realized, or some probe reaches the question within its first k attempts (probes drawn independently).
  const ceiling = (side: 'base' | 'tuned') =>
    (side === 'base' ? base : tuned).map((r, i) => Array.from({ length: budget }, (_, k) => (r.realized.correct ? 1 : 1 - rows.reduce((miss, x) => miss * (1 - x[side].rows[i][k]), 1))));
  return [
    curveOf('realized', realized(base), realized(tuned), budget),
    ...rows.map((x) => curveOf(x.probe, x.base.rows, x.tuned.rows, budget)),
    curveOf('ceiling', ceiling('base'), ceiling('tuned'), budget),
  ];
}
