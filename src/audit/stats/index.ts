/** The audit's statistics, used by results and repair alike: paired bootstrap (for statistics with no closed form), exact McNemar, paired score intervals and the one-sided tests that invert them, the paired decision, Holm, chance levels, keyed PRNG (rates with Wilson intervals and pass@k are the contract's). Everything outside this folder reaches it through here. */
export { pairedBootstrap, quantileSorted, type PairedBootstrapOptions, type PairedDifference } from './bootstrap';
export { bootstrapColumnMeans, bootstrapRatio } from './bootstrapStatistics';
export { guessReachProbability, poissonBinomialUpperTail } from './chance';
export { holmAdjust } from './holm';
export { pAbove, pBelow, pEquivalent } from './pairedBoundPValues';
export { mcnemarExact } from './mcnemar';
export { ALPHA, DEFAULT_MARGIN, ONE_SIDED_ALPHA, checkMargin, pairedDecision, questionsToClear, wholeQuestions, type DecisionScope, type PairedEvidence } from './pairedDecision';
export { pairedDelta } from './pairedDelta';
export { pairedScoreInterval, type PairedCounts } from './pairedScoreInterval';
export { seededRandom, seededUint32, seedFor, randomInt } from './prng';
export { MOST_TEST_ERROR, decide, decisionAt, operatingCharacteristic, sequentialRateTest, type RateDecision, type SequentialRateTest } from './sequentialRateTest';
export { medianInterval } from './medianInterval';
