/**
 * One line of records.jsonl: everything the audit found out about one question (docs/design.md
 * section 3). The audit writes these shapes; the extension, the panel and `reach-audit report`
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
 * How an extracted answer compared with the gold: the equality rule that decided (docs/design.md
 * section 2) — `rational`, `number-word`, `text`, `normalized`, `units-stripped`, `unordered-set`,
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

/** One graded model output. */
export interface GradedOutput {
  output: string;
  /** Extracted answer, null when no rule matched. */
  answer: string | null;
  /** The verdict under the run's grading settings (manifest `grading`), truncation rule included. */
  correct: boolean;
  /** The output stopped at the token limit. */
  truncated: boolean;
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

/** One probe attempt: a sample (seed) or a route evaluation (route). */
export interface Attempt extends GradedOutput {
  route?: number[];
  seed?: number;
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

export interface QuestionRecord {
  /** The dataset's `id`, or the question's line number when the dataset has none. */
  id: string;
  /** 1-based line (or array position) of the question in the dataset file. */
  line: number;
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
  repair?: RepairResult;
  /** The search re-run at the sweep's exploration constants (--search-sweep), reach only; absent without the sweep. */
  searchSweep?: SearchSweepPoint[];
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
