/**
 * summary.json: the run's rates with n and Wilson intervals, pass@k curves, answer-blind accuracy,
 * the global route, the repair analysis and the budget per probe. The audit computes it from
 * records.jsonl alone, so a resumed run and an uninterrupted one have the same summary.
 */
import type { Interval, Rate } from './interval';
import type { DifferenceIntervalMethod, PairedDecision, PairedDelta } from './pairedDecision';
import type { Budget, DepthMark } from './runRecord';

export interface GlobalRouteSummary {
  poolSize: number;
  /** Index into the pool and the route itself; null when nothing could be selected. */
  index: number | null;
  route: number[] | null;
  selection: { n: number; accuracy: Rate };
  /** Everything below is over the held-out split only. */
  heldOut: { n: number; accuracy: Rate; realized: Rate; reachable: Record<string, Rate> };
}

/**
 * The learned router, cross-fitted (docs/design/answer-blind-selection.md, "Learned router"): each question's pool route
 * chosen by a router fit on the other folds only, beside the global route of the other folds and
 * the same router fit on shuffled outcomes, all on the same questions.
 */
export interface LearnedRouteSummary {
  folds: number;
  model: string;
  /** What the router fit on when it read the deployment prefill's pooled state (alone or beside the hash buckets); absent: the hash buckets. */
  reads?: 'pooled-state' | 'both';
  poolSize: number;
  /** Questions cross-fitted (those with the pool and features), and how many fell in each fold. */
  n: number;
  foldSizes: number[];
  accuracy: { learned: Rate; global: Rate; shuffled: Rate };
  /** Retention against the routes probe's reach (absent without the routes probe). */
  retention?: { learned: BlindRetention; global: BlindRetention; shuffled: BlindRetention };
  /** learned − global route (tuned = learned, base = global) on the gain set and on every question. */
  versusGlobal: { gainSet: PairedDelta; all: PairedDelta };
  /** The shuffled-label control − global route on the gain set: it should not come out better. */
  shuffledVersusGlobal: { gainSet: PairedDelta };
  /** Question id → the pool index the router took for it. */
  choices: Record<string, number>;
}

export interface BlockRepair {
  block: number;
  /** Repair over the whole failure set. */
  repair: Rate;
  /** Realized questions that this silencing breaks (collateral damage). */
  damage: Rate;
  /** Repair on the selection half, which chose l*. */
  selectionRepair: Rate;
}

/**
 * The identified block against a block chosen without looking, on the held-out half of F
 * (src/audit/repair/repairNull.ts says how each number is computed).
 */
export interface RepairNull {
  /** Held-out failure-set questions. */
  n: number;
  /** Mean over held-out questions of the share of blocks that repair each: a block drawn at random per question (percentile-bootstrap 95% interval; null below MIN_BOOTSTRAP_QUESTIONS questions). */
  randomBlock: { rate: number; lo: number | null; hi: number | null };
  /** Median over blocks of their held-out repair rates. */
  medianBlock: number;
  /** Identified − random block, mean of per-question differences (percentile-bootstrap 95% interval; null below MIN_BOOTSTRAP_QUESTIONS questions). */
  difference: { estimate: number; lo: number | null; hi: number | null };
  /** Exact one-sided p of "no better than a random block": P(X ≥ repaired), X Poisson-binomial. */
  pValue: number;
  /** The identified block's held-out repair rate where the deployed output was cut at the token limit, and where it was not. */
  byTruncation: { truncated: Rate; notTruncated: Rate };
  /** Deployed → silenced correctness over the held-out failure set and every realized question (paired). */
  netEffect: PairedDelta;
}

/**
 * The repair analysis: per-block repair of the failure set F and damage to realized questions,
 * the identified block l* chosen on a seeded selection half of F, and its repair rate on the other
 * half. The rates and intervals are null when there was nothing to measure them on (n = 0).
 */
export interface RepairSummary {
  failureSetSize: number;
  failureSet: string[];
  /** null when the selection half is empty. */
  identifiedBlock: number | null;
  /** l*'s repair rate on the held-out half of F. */
  repairRate: number | null;
  ci: Interval | null;
  /** Held-out questions the repair rate is over. */
  n: number;
  repaired: number;
  selectionSize: number;
  /** l*'s damage rate over every realized question. */
  damageRate: number | null;
  damageCi: Interval | null;
  damageN: number;
  byBlock: BlockRepair[];
  /** The identified block against a random block on the held-out half; absent in older files and when nothing was held out. */
  null?: RepairNull;
  /** Question × block matrix: failure-set and realized questions, correctness per silenced block. */
  matrix: { id: string; inFailureSet: boolean; correct: boolean[] }[];
  /**
   * Present after `reach-audit regrade`: the scan was measured for the failure set before the
   * regrade (everything above is of that set, as measured), while the new verdicts give a failure
   * set of `failureSetSize` questions — `joined` of them not in the scanned one, `left` scanned
   * ones no longer in it. The scan must be run again to measure repair on the new set.
   */
  stale?: { failureSetSize: number; joined: number; left: number };
}

/**
 * `unbiased`: Chen et al. estimator over the attempts (exchangeable draws: samples); `approximate`:
 * the same estimator over attempts that are not exchangeable draws (random routes, distinct routes
 * drawn without replacement from a non-uniform space), so it approximates pass@k; `first-k`:
 * solved within the first k attempts (search, whose attempts are ordered).
 */
export type PassAtKKind = 'unbiased' | 'approximate' | 'first-k';

/** A rate set against what a uniform guesser would reach with the same options and attempts. */
export interface ChanceLevel {
  /** Questions the level is over. */
  n: number;
  /** The measured rate (realized, or reachable by the probe) with its Wilson interval. */
  observed: Rate;
  /** Mean over questions of 1 - (1 - 1/k)^B: k the question's option count, B the attempts made on it. */
  level: number;
  /** Expected number of questions a uniform guesser reaches (the sum of the per-question levels). */
  expected: number;
  options: { min: number; max: number };
  attempts: { min: number; max: number };
  /**
   * (observed − level) / (1 − level): the share of the questions a guesser would miss that the
   * model reaches. Its interval is the Wilson interval of the observed rate through the same
   * (increasing) map, since the level is known, not estimated. Null when the level is 1, and
   * whenever that interval would leave [0, 1] (the observed rate's lower bound below the level):
   * below chance the map is unbounded (96 of 100 at a level of 99% is "−300%"), and the
   * difference `overChance` stands instead.
   */
  beyondChance: { estimate: number; lo: number; hi: number } | null;
  /** observed − level, with the observed rate's Wilson interval shifted by the level: bounded in [−1, 1]. Absent in files written before it. */
  overChance?: { estimate: number; lo: number; hi: number };
  /** Exact one-sided p-value of "no better than uniform guessing": P(X ≥ successes), X Poisson-binomial. */
  pValue: number;
  /** The observed rate's 95% interval lies above the chance level. */
  aboveChance: boolean;
}

export interface ChanceSummary {
  realized: ChanceLevel;
  probes: Record<string, ChanceLevel>;
}

/** Questions on which a probe made fewer attempts than its budget: its route space ran out. */
export interface ProbeExhaustion {
  questions: number;
  /** Each such question with the number of distinct routes it evaluated (the first 100 listed). */
  examples: { id: string; evaluated: number; budget: number }[];
}

/** Two probes' reach on a set of paired questions: the 2×2 counts and the exact McNemar p on onlyA vs onlyB. */
export interface ProbeCounts {
  n: number;
  onlyA: number;
  onlyB: number;
  both: number;
  neither: number;
  mcnemarP: number;
}

/** Two probes' reach on one set of paired questions, with the paired test, interval and verdict. */
export interface ProbePairing extends ProbeCounts {
  /** reachable(a) − reachable(b) with Newcombe's paired score 95% interval. */
  difference: { estimate: number; lo: number; hi: number; method: DifferenceIntervalMethod };
  decision: PairedDecision;
}

/** Two probes compared question by question over the questions both ran on; the counts are over all of them. */
export interface ProbeComparison extends ProbeCounts {
  a: string;
  b: string;
  /** Per-question generation budgets B of the two probes. */
  budget: { a: number; b: number };
  /** `matched` when the generation budgets are equal; otherwise every figure below is labelled unmatched. */
  match: 'matched' | 'unmatched';
  /** What each probe spent over the paired questions, and a / b. Ratios are null where b spent nothing. */
  cost: { a: Budget; b: Budget; ratio: { generations: number | null; tokens: number | null; blockApplications: number | null } };
  /** reachable(a) − reachable(b) with its 95% interval: Newcombe's paired score interval (`method`; a bootstrap in older files). */
  difference: { estimate: number; lo: number; hi: number; method?: DifferenceIntervalMethod } | null;
  /** a better / worse / equivalent within ±margin / inconclusive than b over all paired questions; absent in older files. */
  decision?: PairedDecision;
  /**
   * The same comparison over the gain set: the paired questions the deployment does not realize,
   * the only ones on which a probe can add anything (on realized questions both probes mostly reach
   * the answer, which shrinks the difference towards 0). It decides; the figures above stand beside
   * it. Absent in older files.
   */
  gainSet?: ProbePairing;
  /**
   * The gain set again at matched block applications rather than matched generations: on each
   * question the probe that spent more keeps only its first attempts up to the other's spend (at its
   * mean cost per attempt on that question), so neither gets more compute. `spent`: the block
   * applications counted, summed. Absent in older files.
   */
  gainSetAtMatchedBlockApplications?: ProbePairing & { spent: { a: number; b: number } };
  exhausted: { a: ProbeExhaustion; b: ProbeExhaustion };
}

/** Candidates left out of a probe's blind pools, of its candidates, over `questions` questions. */
export interface BlindDropped {
  dropped: number;
  candidates: number;
  questions: number;
}

/** The share of a probe's gain over the deployment that answer-blind selection keeps. */
export interface BlindRetention {
  n: number;
  blind: Rate;
  realized: Rate;
  reachable: Rate;
  /**
   * (blind − realized) / (reachable − realized); null when reachable ≤ realized (no gain to keep).
   * Negative when the blind pick is below the deployment, above 1 when it is right beyond the
   * probe's attempts (global-route): the reports say those in words (report/retentionText.ts).
   */
  retained: number | null;
  ci: { lo: number; hi: number } | null;
  /** Bootstrap resamples in which the probe gained nothing (left out of the interval). */
  undefinedResamples: number;
  /**
   * The ratio nets two things apart: on the gain set (questions the deployment does not realize)
   * the blind pick is right on `blind` of them, where the probe reaches `reachable`; on the realized
   * questions the blind pick is wrong on `lost`. Each a count with its Wilson interval. Absent in older files.
   */
  recovered?: { blind: Rate; reachable: Rate };
  lost?: Rate;
}

/** Outputs that hit the token limit, of all outputs of one kind. */
export interface TruncationCount {
  truncated: number;
  outputs: number;
}

/** Outputs whose thought never closed (cut while thinking), of all outputs of one kind. */
export interface ThoughtCount {
  unfinished: number;
  outputs: number;
}

/** One reading of every output (the record's `strict` / `flexible`), before the truncation rule. */
export interface ReadingSummary {
  realized: Rate;
  reachable: Record<string, Rate>;
}

/** A question not audited because its prompt does not fit the context (summary.json lists them). */
export interface SkippedQuestion {
  id: string;
  line: number;
  promptTokens: number;
  maxNewTokens: number;
  contextLimit: number;
}

/**
 * An imported run's interface failures per harness reading: of the questions the reading scored
 * wrong, those whose output holds the gold by Reach Audit's rules (missed), and of those it scored
 * right, those our rules find wrong (reverse); each with both extractions.
 */
export type InterfaceFailures = Record<
  string,
  {
    /** Questions the reading scored 0 or 1. */
    n: number;
    missedRate: Rate;
    reverseRate: Rate;
    missed: { id: string; harness: string | null; ours: string | null }[];
    reverse: { id: string; harness: string | null; ours: string | null }[];
  }
>;

/**
 * Depth of loss over a run's failure set (docs/design/probes.md, "Depth of loss"): the share of questions
 * reached from each depth of their deployed output, and where each was lost.
 */
export interface DepthSummary {
  /** Failure-set questions the depth probe ran on. */
  n: number;
  budget: number;
  /** Per depth mark: questions reached from it (n: those whose output had that prefix), and the prefix's mean share of the output. */
  curve: { at: DepthMark; reached: Rate; meanDepth: number }[];
  /** Where the point of no return fell: not reached from any prefix ('start'), or the quarter of the output (each over n less tooShort). */
  lostIn: { start: Rate; quarter: [Rate, Rate, Rate, Rate] };
  /** Questions whose deployed output was too short to cut (fewer than two distinct prefixes): in n and the curve, not in lostIn, early or late. Absent when none. */
  tooShort?: number;
  /** Lost in the first quarter, and in the other three: counts, not a finding (see `trend`). */
  early: Rate;
  late: Rate;
  cost: Budget;
  /** Whether reach falls with depth, tested against a constant-rate null (results/depthTrend.ts). Absent in files written before it. */
  trend?: DepthTrend;
}

/** A median with its distribution-free 95% interval (order statistics; null with too few values for one). */
export interface MedianWithInterval {
  median: number;
  n: number;
  ci: { lo: number; hi: number } | null;
}

/**
 * Foreclosure windows over a run's depth-probed questions (docs/design/probes.md, "Foreclosure window"):
 * how many brackets were narrowed to a decided window, and how wide the windows are in tokens.
 */
export interface ForeclosureSummary {
  /** Depth-probed questions. */
  n: number;
  /** The test: at most `samples` per prefix, threshold θ, each wrong decision at most `error` likely. */
  samples: number;
  threshold: number;
  error: number;
  /** Questions whose depth probe left a bracket to narrow. */
  bracketed: number;
  /** Questions with a decided window, over those bracketed. */
  decided: Rate;
  /** Decided windows one token wide. */
  oneToken: number;
  /** Widths in tokens of the decided windows; null when none. */
  width: MedianWithInterval | null;
  /** Widths of the same questions' depth brackets, for what the narrowing bought; null when none. */
  bracketWidth: MedianWithInterval | null;
  /** Every prefix decided, by decision. */
  prefixes: { reaches: number; not: number; undecided: number };
  cost: Budget;
}

/**
 * The fork probe over a run (docs/design/probes.md, "Forks"): the share of unrealized questions a fork
 * saves, and the entropy arm against the random-position arm, paired per question.
 */
export interface ForkSummary {
  /** Questions the fork probe ran on (audited, not realized). */
  n: number;
  budget: number;
  positions: number;
  alternatives: number;
  /** Questions with a saving fork (either arm). */
  saved: Rate;
  /** The same within the failure set (also reachable by the reference probes). */
  savedInFailureSet: Rate;
  /** Questions saved by a fork at one of the highest-entropy positions, and at one of the random positions. */
  entropy: Rate;
  random: Rate;
  /** Questions saved by the entropy arm only, and by the random arm only (the discordant pairs). */
  entropyOnly: number;
  randomOnly: number;
  /** Entropy − random, paired per question (`base` = random, `tuned` = entropy): from 20 questions on; under 20, counts only. */
  entropyVsRandom?: PairedDelta;
  /** Forks tried by each arm and the share that saved (a fork both arms chose counts in both). */
  forks: { entropy: Rate; random: Rate };
  /** Where the earliest saving fork falls: counts per quarter of the deployed output. */
  earliestQuarter: [number, number, number, number];
  cost: Budget;
}

/** The exact within-question permutation test of "reach falls with depth". */
export interface DepthTrend {
  /** Questions reached from some but not all of their prefixes (the others carry no information). */
  informative: number;
  /** One-sided exact p. */
  p: number;
  /** The smallest p these questions could give (all reached prefixes the earliest): at ≥ 0.05 the test cannot detect anything. */
  minP: number;
}

/** Cover@τ (arXiv 2510.08325): questions with at least a share τ of the probe's attempts correct. */
export interface CoverAtTau {
  tau: number;
  covered: Rate;
  /** A uniform guesser's Cover@τ with the same options and attempts (absent in files written before it). */
  chance?: number;
}

export interface RunSummary {
  n: number;
  /** Imported runs only: where the harness's own scoring and ours disagree on the same output. */
  interfaceFailures?: InterfaceFailures;
  realized: Rate;
  reachable: Record<string, Rate>;
  /** The reachable ceiling: realized, or reachable by any probe run (older files: by any probe only). */
  reachableAny: Rate;
  /** Questions inside the ceiling only because the deployment answers them (no probe reached them); absent in older files. */
  realizedNotReached?: number;
  /** The ceiling's combined budget: attempts per question summed over the probes (its label). */
  reachableAnyBudget: { attempts: number; byProbe: Record<string, number> };
  /** Per probe: reachable by it but not realized (over the questions it ran on). */
  reachableNotRealized: Record<string, Rate>;
  /** passAtK[probe][k] for k = 1..budget. */
  passAtK: Record<string, Record<string, number>>;
  /**
   * 95% interval of each pass@k value: Wilson where every question's value is 0 or 1 (pass@B; every k
   * of a first-k curve), else the percentile bootstrap (questions resampled, 10,000 resamples), absent
   * below MIN_BOOTSTRAP_QUESTIONS questions.
   */
  passAtKCi: Record<string, Record<string, Interval>>;
  passAtKKind: Record<string, PassAtKKind>;
  /** blind[probe][selector], over answer-independent probes only (sample, routes). */
  blind: Record<string, Record<string, Rate>>;
  /** (blind − realized) / (reachable − realized) per answer-independent probe and selector. */
  blindRetention: Record<string, Record<string, BlindRetention>>;
  /**
   * Per answer-independent probe: candidates left out of the blind selectors' pools (no extracted
   * answer, or cut at the token limit without an answer marker), of all its candidates. Over the
   * questions whose records say (BlindChoice.dropped); absent when none do (older runs).
   */
  blindDropped?: Record<string, BlindDropped>;
  /** Choice formats only: chance levels of the deployment and of each probe. */
  chance?: ChanceSummary;
  /** Random routes vs route search, paired, when both ran. */
  routesVsSearch?: ProbeComparison;
  /** Per route probe: questions on which it ran out of distinct routes. */
  exhausted: Record<string, ProbeExhaustion>;
  globalRoute?: GlobalRouteSummary;
  learnedRoute?: LearnedRouteSummary;
  repair?: RepairSummary;
  budget: Record<string, Budget>;
  /** Cost outside the probes: the deployment, the global route pool, the repair scan. */
  cost: { deployment: Budget; globalRoutes: Budget; repair: Budget };
  states: { realized: number; reachableNotRealized: number; unreached: number };
  truncated: {
    /** Deployed outputs that hit the token limit (of n). */
    realized: number;
    /** Per probe: attempts that hit the token limit, of all its attempts. */
    probes: Record<string, TruncationCount>;
    globalRoutes?: TruncationCount;
    repair?: TruncationCount;
  };
  /**
   * Outputs cut while thinking (their thought never closed, so no answer was read), counted apart
   * like `truncated`. Absent when no output of the run had a thinking marker.
   */
  unfinishedThoughts?: {
    /** Deployed outputs (of n). */
    realized: number;
    probes: Record<string, ThoughtCount>;
    globalRoutes?: ThoughtCount;
    repair?: ThoughtCount;
  };
  /**
   * The strict and flexible readings (for GSM8K lm-eval's strict-match and flexible-extract), raw:
   * without the truncation rule. Over the questions whose records carry them; absent when none do.
   */
  readings?: { strict: ReadingSummary; flexible: ReadingSummary };
  /**
   * Questions not audited, not part of n: `questions` those whose prompt does not fit the context,
   * `fewShotExamples` those that are examples in their own prompt (absent in runs made before it).
   */
  skipped: { n: number; questions: SkippedQuestion[]; fewShotExamples?: { id: string; line: number }[] };
  /** Audited questions whose prompt --truncate-prompt left cut to fit. */
  promptTruncated: number;
  probes: string[];
  selectors: string[];
  /**
   * Probes whose attempts stopped at each question's first correct one (`--until-reached`): their
   * reachable rates are exact, but their pools are partial, so they have no pass@k curve, no
   * answer-blind picks or retention and no strict/flexible reachable. Absent: every probe spent its budget.
   */
  /** Choice formats: Cover@τ per probe beside pass@k, where a guesser's pass@k is high. */
  coverAtTau?: Record<string, CoverAtTau[]>;
  /** --depth-probe: depth of loss over the failure set. Absent when not run. */
  depth?: DepthSummary;
  /** --foreclosure-window: foreclosure windows over the depth-probed questions. Absent when not run. */
  foreclosure?: ForeclosureSummary;
  /** --fork-probe: forks over the questions the deployment does not realize. Absent when not run. */
  fork?: ForkSummary;
  untilReached?: string[];
}
