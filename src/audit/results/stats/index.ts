/** The audit's statistics: rates with Wilson intervals, pass@k, paired bootstrap, exact McNemar, keyed PRNG. */
export { Z95, type Interval } from './interval';
export { wilsonInterval, rateOf, type Rate } from './wilson';
export { passAtK, passAtKCurve } from './passAtK';
export { pairedBootstrap, type PairedBootstrapOptions, type PairedDifference } from './bootstrap';
export { mcnemarExact } from './mcnemar';
export { seededRandom, seededUint32, seedFor, randomInt } from './prng';
