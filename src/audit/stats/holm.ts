/**
 * Holm's step-down adjustment (Holm 1979) of a family of p-values: sorted ascending, the i-th
 * smallest (0-based) is multiplied by (m − i), made non-decreasing, capped at 1. Rejecting where
 * the adjusted p is below α controls the family-wise error rate at α for any dependence, and is
 * never less powerful than Bonferroni. Returned in the input order (R's p.adjust(p, "holm")).
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  pValues.forEach((p, i) => {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holmAdjust: p-value ${i} is ${p}; expected a number in [0, 1]`);
  });
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
