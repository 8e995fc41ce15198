/**
 * Every method behind a printed interval or test, with the name its calibration row carries
 * (docs/design/statistics.md "Calibration", test/calibration/) and the words a surface uses to name it. A
 * surface that prints a statistic names one of these; a method lands here only with its
 * calibration row (test/unit/contract/statisticMethods.test.ts holds both ends).
 */

/** What a printed figure is: a rate (or a share, a mean in [0, 1]), a signed difference, or a test's p. */
export type StatisticKind = 'rate' | 'difference' | 'test';

export interface StatisticMethod {
  /** The start of the method column of its calibration rows. */
  readonly calibration: string;
  readonly measures: readonly StatisticKind[];
  /** Words that name it in a report, a table or the panel (matched as written, case-sensitive). */
  readonly printed: readonly string[];
}

export const STATISTIC_METHODS = {
  wilson: { calibration: 'Wilson score 95%', measures: ['rate'], printed: ['Wilson'] },
  chanceDifference: { calibration: 'observed − chance (Wilson, shifted)', measures: ['difference'], printed: ['Wilson, shifted'] },
  newcombe: { calibration: 'Newcombe paired score 95%', measures: ['difference'], printed: ['Newcombe', 'paired score'] },
  mcnemar: { calibration: 'exact McNemar', measures: ['test'], printed: ['McNemar'] },
  nonInferiority: { calibration: 'non-inferiority (Newcombe-inverted', measures: ['test'], printed: ['non-inferiority'] },
  equivalence: { calibration: 'TOST equivalence', measures: ['test'], printed: ['two one-sided tests', 'TOST', 'equivalence p'] },
  ceilingNotRising: { calibration: 'ceiling does not rise (Newcombe-inverted', measures: ['test'], printed: ['not rising by', 'does not rise'] },
  holm: { calibration: 'Holm family', measures: ['test'], printed: ['Holm'] },
  passAtKBootstrap: { calibration: 'paired percentile bootstrap 95% (Δpass@k)', measures: ['rate', 'difference'], printed: ['bootstrap'] },
  jaccard: { calibration: 'Jaccard (Wilson on the union', measures: ['rate'], printed: ['Jaccard'] },
  coverAtTau: { calibration: 'Cover@τ (Wilson)', measures: ['rate'], printed: ['cover@τ', 'Cover@τ'] },
  repairNull: { calibration: 'repair null: exact Poisson-binomial p', measures: ['test'], printed: ['Poisson-binomial'] },
  repairDifference: { calibration: 'repair null: identified − random, percentile bootstrap', measures: ['rate', 'difference'], printed: ['bootstrap'] },
  identifiedBlock: { calibration: 'mechanism: identified block, hypergeometric', measures: ['test'], printed: ['hypergeometric'] },
  repairingBlocks: { calibration: 'mechanism: repairing blocks, permutation null', measures: ['test'], printed: ['permutation'] },
  depthTrend: { calibration: 'depth of loss: trend (exact within-question permutation)', measures: ['test'], printed: ['within-question permutation'] },
  foreclosureTest: { calibration: 'foreclosure window: sequential rate test', measures: ['test'], printed: ['sequential'] },
  forkArms: { calibration: 'forks: entropy vs random positions', measures: ['difference', 'test'], printed: ['entropy vs random'] },
  medianOrderStatistic: { calibration: 'median width: order-statistic 95%', measures: ['rate', 'difference'], printed: ['distribution-free'] },
} as const satisfies Record<string, StatisticMethod>;

export type StatisticMethodKey = keyof typeof STATISTIC_METHODS;
