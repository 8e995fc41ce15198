/** The audit's statistics: paired bootstrap (for statistics with no closed form), exact McNemar, keyed PRNG (rates with Wilson intervals and pass@k are the contract's). */
export { pairedBootstrap, type PairedBootstrapOptions, type PairedDifference } from './bootstrap';
export { mcnemarExact } from './mcnemar';
export { seededRandom, seededUint32, seedFor, randomInt } from './prng';
