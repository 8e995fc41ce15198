/**
 * One line of records.jsonl: everything the audit found out about one question (docs/design/data-in-data-out.md).
 * The audit writes these shapes; the extension, the panel and `reach-audit report`
 * read them. Other tools read the keys too, so they only ever grow.
 *
 * Every field of a record depends only on the question, the model, the run settings and the run
 * seed — never on which other questions were audited with it — so auditing one question alone
 * (--ids) reproduces its record from a full run. Run-level choices (the global route, the repair
 * split, the identified block) therefore live in summary.json, and records carry only the
 * per-question split keys those choices are computed from.
 */

/** What a probe, the deployment or the repair scan cost (design: budget accounting). */
export interface Budget {
  generations: number;
  /** Generated tokens. */
  tokens: number;
  /** Route length × tokens processed (prompt + generated), as the engine counts it. */
  blockApplications: number;
}

/** One way of reading an output: what it extracted and whether that equals the gold. */
export interface AnswerView {
  answer: string | null;
  correct: boolean;
}

/**
 * How an extracted answer compared with the gold: the equality rule that decided (docs/design/grading.md)
 * — `rational`, `number-word`, `text`, `normalized`, `units-stripped`, `unordered-set`,
 * `symbolic` (the CAS), `label`, or `different` when none held.
 */
export interface AnswerMatch {
  rule: string;
  /** Why the CAS gave up, when it was asked and did not decide (`cas-timeout`, `cas-input-too-long`, …). */
  note?: string;
}

/** Why a question was not audited: its prompt does not fit. */
export interface ContextSkip {
  reason: 'context';
  message: string;
  promptTokens: number;
  maxNewTokens: number;
  /** The model's context (max_position_embeddings). */
  contextLimit: number;
}

/** The question is one of its own prompt's few-shot examples, shown there with its answer. */
export interface ExemplarSkip {
  reason: 'exemplar';
  message: string;
}

/** Why a question was not audited: its prompt does not fit the context, or it is one of the prompt's examples. */
export type SkipReason = ContextSkip | ExemplarSkip;

/** How far an output's thought got: closed before its answer, or never closed. */
export type ThoughtState = 'finished' | 'unfinished';

/** One graded model output. */
export interface GradedOutput {
  output: string;
  /** Extracted answer, null when no rule matched. */
  answer: string | null;
  /** The verdict under the run's grading settings (manifest `grading`), truncation rule included. */
  correct: boolean;
  /** The output stopped at the token limit. */
  truncated: boolean;
  /**
   * The output had a thought (manifest `grading.thinking`): `finished` — the answer was read after
   * its last closing marker; `unfinished` — it never closed (cut while thinking), so nothing was
   * read as an answer. Absent when the output has no thinking marker: it was read whole.
   */
  thought?: ThoughtState;
  /** The extraction rule that matched, `none` when none did. */
  rule: string;
  /** How the verdict's answer compared with the gold. Absent when there was no answer, and in older runs. */
  match?: AnswerMatch;
  /** Only the format's answer marker (GSM8K: lm-eval strict-match). Absent in runs made before it was recorded. */
  strict?: AnswerView;
  /** Every fallback (GSM8K: lm-eval flexible-extract, the last number). Absent in older runs. */
  flexible?: AnswerView;
  /** Mean log-prob per generated token; null when nothing was generated. */
  logprob: number | null;
  /** Generated tokens. */
  tokens: number;
}

/**
 * A perturbation attempt's draw (docs/design/probes.md, "Perturbation probe"): the direction's seed, the
 * block after which it was added, which tokens it touched (`all`, `prompt`, or `continuation`: the
 * prompt's last token and every generated one) and its length as a share of the residual's norm.
 */
export interface AttemptPerturbation {
  afterBlock: number;
  positions: 'all' | 'prompt' | 'continuation';
  scale: number;
  seed: number;
}

/** One probe attempt: a sample (seed), a route evaluation (route) or a perturbed deployment (perturbation). */
export interface Attempt extends GradedOutput {
  route?: number[];
  seed?: number;
  perturbation?: AttemptPerturbation;
  /** Search with the gold-logprob reward, a wrong route: its mean teacher-forced log-probability of the gold answer. */
  goldLogprob?: number;
}

export interface ProbeResult {
  budget: number;
  attempts: Attempt[];
  /** attempts[i].correct, for quick reading. */
  correct: boolean[];
  cost: Budget;
  /**
   * The attempts stopped at the first correct one (`--until-reached`): reachability is exact, but
   * the pool is partial, so pass@k and answer-blind selection are not computed from it. Absent: the
   * probe spent its whole budget (or ran out of distinct routes).
   */
  untilReached?: true;
}

export interface BlindChoice {
  answer: string | null;
  correct: boolean;
  /** The attempt index the selector picked. */
  attempt: number | null;
  /**
   * Candidates left out before selecting: no extracted answer, or cut at the token limit without
   * an answer marker (decided without the gold). Absent in runs made before pools were cleaned.
   */
  dropped?: number;
}

/** The shared pool of global candidate routes, evaluated on this question (for the global-route selector). */
export interface GlobalRoutesResult {
  /** Orders questions for the seeded selection/held-out split: the half with the smaller keys selects. */
  splitKey: number;
  attempts: Attempt[];
  cost: Budget;
}

/**
 * What the learned router reads of a question (docs/design/answer-blind-selection.md, "Learned router"): counts of its
 * prompt's token ids per hash bucket, and the cross-fitting fold it is held out in (a seeded hash
 * of its id, `fold` of `folds`). Present only when the run selects with learned-route.
 */
export interface RouterFeatures {
  folds: number;
  fold: number;
  features: number[];
  /**
   * Only with --router-features state or both: the deployment prefill's mean-pooled residual after
   * the manifest's block, randomly projected to a few dimensions (five significant digits).
   */
  state?: number[];
  /** Only with --router-features state or both: what the router fits on (absent: the hash buckets), so a summary needs the records alone. */
  reads?: 'pooled-state' | 'both';
}

export interface RepairResult {
  /** Reachable under the reference probe(s) but not realized: fixed before any repair generation. */
  inFailureSet: boolean;
  /** Realized: the scan measures collateral damage on it. */
  realized: boolean;
  /** Graded correctness with the MLP of each block silenced (keys are block indices). */
  correctBySilencedBlock: Record<string, boolean>;
  /** Answers under each silenced block. */
  answerBySilencedBlock: Record<string, string | null>;
  /** Whether the output under each silenced block hit the token limit. Absent in older runs. */
  truncatedBySilencedBlock?: Record<string, boolean>;
  /** The blocks whose output was cut while thinking (its thought never closed). Absent when no scan output had a thinking marker. */
  unfinishedThoughtBySilencedBlock?: Record<string, boolean>;
  /** Orders the failure set for the seeded selection/held-out split. */
  splitKey: number;
  cost: Budget;
  /**
   * Set by `reach-audit regrade`: the membership the scan was measured for. `inFailureSet` and
   * `realized` above follow the new verdicts, while the scan's verdicts are of this membership
   * (and of the old grading), so the repair analysis reads this and is marked stale. Absent in
   * runs never regraded.
   */
  scannedAs?: { inFailureSet: boolean; realized: boolean };
}

/** Where a depth prefix ends: a fraction of the deployed output's tokens, or right after its last line break. */
export type DepthMark = '0' | '1/4' | '1/2' | '3/4' | 'last-line';
export const DEPTH_MARKS: readonly DepthMark[] = ['0', '1/4', '1/2', '3/4', 'last-line'];

/** One prefix of the deployed output that the depth probe resampled from (docs/design/probes.md, "Depth of loss"). */
export interface DepthPoint {
  at: DepthMark;
  /** Tokens of the deployed output kept as the prefix. */
  tokens: number;
  /** Characters of the deployed output's text that those tokens decode to (where the cut falls in the text); absent in runs recorded before it was kept. */
  chars?: number;
  /** The continuations' verdicts (prefix + continuation graded as one output), in seed order. */
  correct: boolean[];
  answers: (string | null)[];
  reached: boolean;
}

/**
 * Depth of loss for a failure-set question: B seeded continuations from prefixes of its deployed
 * output. `lostIn` is the quarter of the output that holds the point of no return ('start': no
 * prefix reaches the answer, not even the empty one; 4 also when the deepest prefix still does;
 * 'too-short': the output gives fewer than two distinct prefixes, so there is no depth to read).
 */
export interface DepthResult {
  budget: number;
  /** Tokens of the deployed output that a prefix may keep (the token that stopped it left out). */
  outputTokens: number;
  /** In order of depth. */
  points: DepthPoint[];
  /** Index into points of the deepest prefix from which the answer is still reached; null when none. */
  deepestReached: number | null;
  /** The first prefix from which the answer is not reached again, with the deployed text around its cut; null when the deepest prefix still reaches it. */
  noReturn: { point: number; before: string; after: string } | null;
  lostIn: 'start' | 1 | 2 | 3 | 4 | 'too-short';
  cost: Budget;
}

/**
 * One prefix the foreclosure window decided on (docs/design/probes.md, "Foreclosure window"): its samples,
 * their successes, and the sequential test's decision (success rate above the threshold: 'reaches';
 * below it: 'not'; neither within the most samples: 'undecided').
 */
export interface ForeclosurePrefix {
  /** Tokens of the deployed output kept as the prefix. */
  tokens: number;
  samples: number;
  successes: number;
  decision: 'reaches' | 'not' | 'undecided';
}

/**
 * The foreclosure window of a depth-probed question: the depth probe's bracket narrowed by
 * bisection. 'window': both bounds decided — the answer is reached from the first `from` tokens of
 * the deployed output and not from the first `to` (`chars`: where those cuts fall in its text);
 * 'undecided': a bound of the bracket could not be decided; 'no-bracket': the depth probe left
 * nothing to narrow (no prefix reached, too short to cut, or no room after the deepest reaching cut).
 */
export interface ForeclosureResult {
  /** The sequential test (as in the manifest): at most `samples` per prefix, `look` at a time, threshold θ, each wrong decision at most `error` likely. */
  test: { samples: number; threshold: number; error: number; look: number };
  outcome: 'window' | 'undecided' | 'no-bracket';
  bracket: { from: number; to: number } | null;
  window: { from: number; to: number; chars: [number, number] } | null;
  /** In the order tested: the bracket's two bounds, then each bisection point. */
  prefixes: ForeclosurePrefix[];
  cost: Budget;
}

/**
 * The deployed output's token record (--fork-probe): for each generated token, its text, the
 * entropy (nats, temperature 1) of the distribution it was chosen from, and that distribution's
 * `k` most likely tokens as [token id, log-probability], most likely first.
 */
export interface DeployedTokens {
  k: number;
  steps: { token: number; text: string; entropy: number; top: [number, number][] }[];
}

/** Which arm of the fork probe chose a position: the highest-entropy ones, or the seeded random control. */
export type ForkArm = 'entropy' | 'random';

/** One continuation of a fork: the graded output of prefix + forced token + continuation, and the continuation's own text. */
export interface ForkBranch {
  correct: boolean;
  answer: string | null;
  truncated: boolean;
  /** The generated continuation after the forced token (the prefix and the forced token are the deployed output's and the fork's). */
  continuation: string;
  /** Generated tokens of the continuation. */
  tokens: number;
}

/** A fork: at `position` of the deployed output, `alternative` is taken instead of the deployed token and generation goes on. */
export interface ForkTry {
  /** The arms that chose this position (a position both chose is tried once). */
  arms: ForkArm[];
  /** 0-based index of the deployed token replaced. */
  position: number;
  /** Entropy (nats) of the distribution at that position. */
  entropy: number;
  deployed: { token: number; text: string; logprob: number };
  alternative: { token: number; text: string; logprob: number };
  /** Continued with the deployment's decoding. */
  greedy: ForkBranch;
  /** Continued with the sample probe's decoding, seeded by (run seed, question, position, alternative). */
  sample: ForkBranch;
  /** Either continuation reaches the gold answer. */
  saves: boolean;
}

/**
 * The fork probe's result for a question the deployment does not realize (docs/design/probes.md,
 * "Forks"): the forks tried, in order of position, whether any saves the answer, and which arm's.
 */
export interface ForkResult {
  /** B: the most generations spent on the question. */
  budget: number;
  /** Positions per arm. */
  positions: number;
  /** Alternatives tried per position (the most likely tokens other than the deployed one). */
  alternatives: number;
  /** Positions of the deployed output a fork could be taken at (room left and an alternative with text). */
  eligible: number;
  forks: ForkTry[];
  saved: boolean;
  /** Whether a fork chosen by each arm saves the answer. */
  savedBy: { entropy: boolean; random: boolean };
  /** Index into forks of the earliest saving fork; null when none saves. */
  earliest: number | null;
  cost: Budget;
}

export interface QuestionRecord {
  /** The dataset's `id`, or the question's line number when the dataset has none. */
  id: string;
  /** 1-based line (or array position) of the question in the dataset file; in a parquet benchmark the 1-based row across its files. */
  line: number;
  /** Parquet benchmarks only: the file (relative to the dataset path) and 0-based row the question was read from. */
  place?: { file: string; row: number };
  gold: string;
  question: string;
  /** Choice formats: the question's number of answer options (for its chance level). */
  options?: number;
  /** Set when the question was not audited (its prompt does not fit the context, or it is a few-shot example of it): nothing below was generated. */
  skipped?: SkipReason;
  /** Set when --truncate-prompt left cut the prompt to fit the context. */
  promptTruncated?: { fromTokens: number; toTokens: number };
  realized: GradedOutput & { cost: Budget };
  probes: Record<string, ProbeResult>;
  reachable: Record<string, boolean>;
  /** blind[probe][selector]: the answer-blind pick among that probe's attempts. */
  blind: Record<string, Record<string, BlindChoice>>;
  globalRoutes?: GlobalRoutesResult;
  /** learned-route only: the router's features of this question and its fold. */
  routerFeatures?: RouterFeatures;
  repair?: RepairResult;
  /** --depth-probe B, failure-set questions only. */
  depth?: DepthResult;
  /** --foreclosure-window N, depth-probed questions only. */
  foreclosure?: ForeclosureResult;
  /** --fork-probe: the deployed output's token record (every audited question of such a run). */
  deployedTokens?: DeployedTokens;
  /** --fork-probe B, questions the deployment does not realize. */
  fork?: ForkResult;
  /** Imported runs only: what the evaluation harness itself extracted and scored for this question. */
  harness?: HarnessVerdict;
  /** The search re-run at the sweep's exploration constants (--search-sweep), reach only; absent without the sweep. */
  searchSweep?: SearchSweepPoint[];
}

/**
 * The harness's own reading of an imported question (reach-audit import), kept beside ours: per
 * filter or scorer, the answer it extracted from the deployment's output and whether it scored it
 * correct (null when its score is not a 0/1 verdict).
 */
export interface HarnessVerdict {
  /** The prompt the harness sent, as its log states it. */
  prompt: string;
  readings: Record<string, { extracted: string | null; correct: boolean | null; scores: Record<string, number> }>;
}

/** The route search at one exploration constant of the sweep, stopped at its first correct route. */
export interface SearchSweepPoint {
  c: number;
  reached: boolean;
  /** Routes it evaluated (≤ the search budget), of which `reused` had been evaluated for the question before. */
  evaluated: number;
  reused: number;
  /** What its new routes cost: generations, and block applications (gold scoring included). */
  cost: { generations: number; blockApplications: number };
}
