/** The audit's statistics: rates with Wilson intervals, pass@k, paired bootstrap, exact McNemar, keyed PRNG. */
// Wilson rates and pass@k are part of the run-format contract: the panel computes them too.
export { Z95, wilsonInterval, rateOf, passAtK, passAtKCurve, type Interval, type Rate } from '../../../contract';
export { pairedBootstrap, type PairedBootstrapOptions, type PairedDifference } from './bootstrap';
export { mcnemarExact } from './mcnemar';
export { seededRandom, seededUint32, seedFor, randomInt } from './prng';
