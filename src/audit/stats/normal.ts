/**
 * The standard normal distribution function Φ, for p-values of tests that invert a score interval
 * (stats/pairedBoundPValues.ts). erfc by its Chebyshev fit (Press et al., Numerical Recipes, erfcc), whose
 * relative error is below 1.2e-7 everywhere: far finer than any decision at α = 0.05 needs.
 */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(poly);
  return x >= 0 ? r : 2 - r;
}

/** P(Z ≤ z) for a standard normal Z. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}
