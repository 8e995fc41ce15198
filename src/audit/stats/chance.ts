/**
 * Chance level of a choice-format reachability number: how often a uniform guesser would "reach"
 * the gold label. One guess among k options is right with probability 1/k; B independent guesses
 * reach it with probability 1 - (1 - 1/k)^B (the complement of B misses). With 4 options and 16
 * attempts that is already 99%, so a choice-format reachable rate means little until it is set
 * against this level.
 */

/** 1 - (1 - 1/options)^attempts, computed as -expm1(B·log1p(-1/k)) so small levels keep their precision. */
export function guessReachProbability(options: number, attempts: number): number {
  if (!Number.isInteger(options) || options < 1) throw new RangeError(`guessReachProbability: options must be a positive integer, got ${options}`);
  if (!Number.isInteger(attempts) || attempts < 0) throw new RangeError(`guessReachProbability: attempts must be a non-negative integer, got ${attempts}`);
  if (attempts === 0) return 0;
  if (options === 1) return 1;
  if (attempts === 1) return 1 / options; // exactly, without the expm1 round trip
  return -Math.expm1(attempts * Math.log1p(-1 / options));
}

/**
 * P(X ≥ observed) for X the number of successes among independent trials with the given success
 * probabilities (a Poisson-binomial variable): the exact one-sided p-value of "no better than
 * chance" when each question has its own chance level. Dynamic programming over the count
 * distribution, O(n · observed) after cutting the tail at `observed`.
 */
export function poissonBinomialUpperTail(probabilities: readonly number[], observed: number): number {
  if (!Number.isInteger(observed) || observed < 0) throw new RangeError(`poissonBinomialUpperTail: observed must be a non-negative integer, got ${observed}`);
  for (const [i, p] of probabilities.entries()) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`poissonBinomialUpperTail: probability ${i} is ${p}; expected a number in [0, 1]`);
  }
  if (observed === 0) return 1;
  if (observed > probabilities.length) return 0;
  // below[j] = P(exactly j successes so far) for j < observed; the mass at ≥ observed is `atLeast`.
  const below = new Float64Array(observed);
  below[0] = 1;
  let atLeast = 0;
  let top = 0; // highest j with possibly nonzero mass below `observed`
  for (const p of probabilities) {
    atLeast += below[observed - 1] * p;
    const q = 1 - p;
    const upto = Math.min(top + 1, observed - 1);
    for (let j = upto; j >= 1; j--) below[j] = below[j] * q + below[j - 1] * p;
    below[0] *= q;
    top = upto;
  }
  return Math.min(1, Math.max(0, atLeast));
}
