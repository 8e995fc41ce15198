/**
 * manifest.json of a run: the model and dataset (paths and content hashes), the deployment,
 * probes, budgets, selectors, repair settings, seeds and engine version — everything a record
 * depends on. `--resume` continues a run only when all of it matches.
 */
import type { NumericsPlatform } from './numericsPlatform';

/** A worked example shown before the question: the user turn and the answer the model should imitate. */
export interface FewShotExample {
  user: string;
  assistant: string;
  /** Where the example comes from (a preset's benchmark file and line, source and licence). */
  source?: string;
}

/** A subject's own header and examples (MMLU's dev split). */
export interface SubjectPrompt {
  preamble: string;
  fewShot: FewShotExample[];
}

export type ExemplarOrigin = 'published' | 'dev-split' | 'test-split';

/** The deployment D: how the model is asked, how it decodes, its token budget and stop strings. */
export interface Deployment {
  /** `chat`: the model's chat template with one user message per turn; `raw`: `template` with {question} filled in. */
  prompt: 'chat' | 'raw';
  /** Raw template; `{question}` is replaced by the question's user message. */
  template?: string;
  /** Optional system message (chat prompts only). */
  system?: string;
  /** Chat prompts: a directive after the question, on a new line, in its user message (a reasoning preset's); absent when none. */
  instruction?: string;
  /** Chat prompts: further chat-template variables (--chat-template-kwargs, e.g. Qwen3's `enable_thinking`); absent when none were given. */
  chatTemplateKwargs?: Record<string, unknown>;
  /**
   * Chat prompts whose template calls strftime_now (Llama 3.2 / 3.3's "Today Date"): the day, as
   * YYYY-MM-DD, that every prompt of the run is rendered with, so a resume, a merge or a verify on
   * another day renders the same prompts. Absent when the template reads no date (and in runs made
   * before it was recorded, which rendered with the clock of each moment).
   */
  templateDate?: string;
  /** The few-shot preset this deployment was made from (--preset), when it was. */
  preset?: string;
  /** Raw prompts: text before the few-shot examples (an instruction line). */
  preamble?: string;
  fewShot: FewShotExample[];
  /**
   * Per-subject prompts (MMLU with a dev split, `--fewshot-file`): a question whose `subject` is a
   * key is asked with that subject's header and examples instead of `preamble` and `fewShot`.
   */
  bySubject?: Record<string, SubjectPrompt>;
  /**
   * Where a preset's examples come from: `published` (the harness's published set), `dev-split`
   * (the user's dev split, per subject), `test-split` (benchmark test-split lines, one set for every
   * question: flagged). Absent when no preset is used, and in runs made before it was recorded.
   */
  exemplars?: ExemplarOrigin;
  /** 0 = greedy. */
  temperature: number;
  topP: number;
  maxNewTokens: number;
  stop: string[];
  /** What to do with a prompt too long for the context: skip the question (absent, 'none') or cut it from the left. */
  truncatePrompt?: PromptTruncation;
}

/** `none`: a question whose prompt does not fit the context is skipped; `left`: its prompt keeps the last tokens. */
export type PromptTruncation = 'none' | 'left';

/**
 * Which reading defines "correct": `stated` — the stated answer, falling back to weaker rules
 * (the default); `strict` — only the answer marker; `flexible` — the flexible view.
 */
export type CorrectBy = 'stated' | 'strict' | 'flexible';

/**
 * How an output cut at the token limit is graded: `strict` — correct only when an answer marker
 * occurs in it (a number at the end of cut-off text is where the text stopped, not an answer);
 * `lenient` — like any other output.
 */
export type TruncatedRule = 'strict' | 'lenient';

/**
 * The markers around a reasoning model's thought (docs/design/grading.md, thinking): the answer
 * is read after the last closing marker, and an output whose thought never closed is not graded.
 */
export interface ThinkingMarkers {
  open: string;
  close: string;
  /** Where the markers came from: the default (`<think>`, `</think>`), --thinking-markers, or the tokenizer's own tokens. */
  from: 'default' | 'flag' | 'tokenizer';
  /** The prompt itself opens the thought (a template ending in `<think>`): every output starts inside it. */
  startsInThought: boolean;
}

/** The grading settings a run records in its manifest. */
export interface GradingSettings {
  correctBy: CorrectBy;
  truncated: TruncatedRule;
  /**
   * Recorded only when not the default (`<think>`, `</think>`, no thought opened by the prompt),
   * which is how its absence reads, in older runs too.
   */
  thinking?: ThinkingMarkers;
}

/** A remote backend (--backend openai) as the manifest records it. */
export interface RemoteBackendInfo {
  backend: 'openai';
  baseUrls: string[];
  apiModel: string;
  /** Every server announced route / silenced-MLP extensions for a model of this block count. */
  layerAccess: boolean;
  /** Every server announced the residual-perturbation extension too. Absent: not announced (and in runs made before it existed). */
  perturbation?: true;
  /** Two identical seeded samples agreed (null: not checked). Without it sampling is not reproducible. */
  seedHonoured: boolean | null;
  concurrency: number;
}

export type ProbeName = 'sample' | 'routes' | 'search' | 'perturb';
export const PROBE_NAMES: readonly ProbeName[] = ['sample', 'routes', 'search', 'perturb'];

/** A probe and its budget B: B candidate outputs per question. */
export interface ProbeSpec {
  name: ProbeName;
  budget: number;
}

export type SelectorName = 'majority' | 'confidence' | 'global-route' | 'learned-route';
export const SELECTOR_NAMES: readonly SelectorName[] = ['majority', 'confidence', 'global-route', 'learned-route'];
/** The selectors a run uses when none are named: learned-route is asked for by name (it records features per question). */
export const DEFAULT_SELECTORS: readonly SelectorName[] = ['majority', 'confidence', 'global-route'];

/**
 * The learned-route selector's settings (docs/design/answer-blind-selection.md, "Learned router"): cross-fitting folds,
 * the features (a hashed bag of the prompt's token ids, `dims` buckets), the router model in words,
 * and where its candidate routes come from.
 */
export interface LearnedRouteSettings {
  folds: number;
  /**
   * What the router reads: the hashed bag of prompt tokens (`dims` buckets, always recorded), and
   * with kind pooled-state or both the deployment prefill's pooled state (`state`).
   */
  features: { kind: RouterFeatureKind; dims: number; state?: PooledStateSettings };
  model: string;
  candidates: 'global-route pool';
}

/** Which of a question's recorded features the router fits on: the hashed prompt, the pooled state, or both side by side. */
export type RouterFeatureKind = 'prompt-token-hash' | 'pooled-state' | 'both';
export const ROUTER_FEATURE_KINDS: readonly RouterFeatureKind[] = ['prompt-token-hash', 'pooled-state', 'both'];

/**
 * The pooled state of a question's prompt: the mean over its tokens of the residual stream after
 * block `block`, read from the deployment's own prefill, times a seeded Gaussian matrix (H × dims,
 * drawn from `projectionSeed`) so that a record holds `dims` numbers whatever the model's width.
 */
export interface PooledStateSettings {
  block: number;
  dims: number;
  projectionSeed: number;
}

/** The route search's MCTS constants. */
/** The route search's reward (docs/design/probes.md, "Search reward"). */
export type SearchReward = 'correct' | 'gold-logprob';
export const SEARCH_REWARDS: readonly SearchReward[] = ['correct', 'gold-logprob'];

export interface SearchSettings {
  /** UCB exploration constant c (default 1.8). */
  c: number;
  /** Length penalty λ (default 0). */
  lambda: number;
  /** Probability of moving to a random child instead of the UCB choice (default 0.1). */
  exploration: number;
  /**
   * Progressive widening: a node holds at most 1 + floor(visits^α) expanded children (α, default
   * 0.5), or 'off': every child of a node is tried before the walk goes below it (plain UCT).
   * Absent in runs made before it could be set: 0.5.
   */
  widening?: number | 'off';
  /**
   * What a route scores: 'correct' (1 or 0) or 'gold-logprob' (1 when correct, else ½·exp of the
   * route's mean teacher-forced log-probability of the gold answer at its answer slot). Absent:
   * 'correct' (every run made before it could be set, and every run that keeps the default).
   */
  reward?: SearchReward;
  /**
   * How the tree compares rewards: 'spread' divides a child's mean reward (less its length penalty)
   * by the standard deviation of the rewards this question's search has seen, so c weighs the same
   * against a reward of any scale (the dense reward's wrong routes span a narrow band). Recorded for
   * gold-logprob. Absent: 'none' (raw rewards: the 0/1 search, and gold-logprob runs made before it).
   */
  rewardScale?: SearchRewardScale;
  /** `--search-sweep`: the exploration constants the search is re-run at, reach only; absent: no sweep. */
  sweep?: number[];
}

export type SearchRewardScale = 'none' | 'spread';

/** A run's route space as manifest.json records it; runs made before the length flags have no bounds (the defaults). */
export interface RouteSpaceSettings {
  /** Most edits in a random route. */
  maxEdits: number;
  minLength?: number;
  maxLength?: number;
}

/** Temperature and top-p of one decoding rule (temperature 0 = greedy). */
export interface DecodingRule {
  temperature: number;
  topP: number;
}

/** How the probes decode. */
export interface ProbeDecoding {
  /** The `sample` probe's temperature (> 0) and top-p. */
  sample: DecodingRule;
  /**
   * Route probes decode as the deployment does (`deployment`). `greedy` only describes runs made
   * before this setting was recorded, which decoded route attempts greedily whatever the deployment.
   */
  routes: 'deployment' | 'greedy';
}

/** Shard `index` of `count` (0-based, as Slurm's array index and Kubernetes' completion index are). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** What a shard's manifest records: which shard, and how many questions it and the whole run hold. */
export interface ShardSelection extends ShardSpec {
  questions: number;
  ofQuestions: number;
}

export interface RunSettings {
  deployment: Deployment;
  probes: ProbeSpec[];
  /** How the probes decode: the sample probe's temperature and top-p; route probes as the deployment. */
  probeDecoding: ProbeDecoding;
  selectors: SelectorName[];
  repair: { enabled: boolean; referenceProbes: string[] };
  /**
   * The shared pool of global candidate routes (global-route selector); empty when not used, and
   * `skipped` says why when the selector was asked for but the run has too few questions for it.
   */
  globalRoutes: { count: number; routes: number[][]; skipped?: string };
  /** Set only when learned-route is among the selectors. */
  learnedRoute?: LearnedRouteSettings;
  seeds: { run: number };
  /** Random-route edits and the route length bounds (both route probes and the global-route pool use them). */
  routeSpace: RouteSpaceSettings;
  search: SearchSettings;
  /** Which reading defines "correct" and how outputs cut at the token limit are graded. */
  grading: GradingSettings;
  /**
   * `--until-reached`: every probe stops a question's attempts at its first correct one (a
   * ceiling-only run: reachability as with the full budget, no pass@k or answer-blind selection
   * from the probes). Absent: every probe spends its budget.
   */
  untilReached?: true;
  /**
   * `--depth-probe B`: B seeded continuations from each depth prefix of a failure-set question's
   * deployed output (docs/design/probes.md, "Depth of loss"). Absent: not run.
   */
  depthProbe?: { budget: number };
  /**
   * `--foreclosure-window N`: each depth-probed question's bracket narrowed by bisection, every
   * prefix decided by a sequential test of its success rate against `threshold` with each wrong
   * decision at most `error` likely, at most `samples` continuations a prefix, `look` at a time
   * (docs/design/probes.md, "Foreclosure window"). Absent: not run.
   */
  foreclosureWindow?: { samples: number; threshold: number; error: number; look: number };
  /**
   * `--fork-probe B`: for each question the deployment does not realize, forks at the `positions`
   * highest-entropy positions of its deployed output and at as many seeded random ones, `alternatives`
   * tokens each, continued greedily and sampled (docs/design/probes.md, "Forks"); the token record keeps `k`
   * tokens per position. Absent: not run.
   */
  forkProbe?: { budget: number; positions: number; alternatives: number; k: number };
  /**
   * `--realized-from LOG`: every asked question's deployment output was read from this evaluation
   * log (or imported run), matched by question id, its logged prompt equal to the deployment's;
   * the probes ran on the model. Absent: the deployment's outputs were generated.
   */
  realizedFrom?: RealizedFrom;
  /** Which questions: --limit and --ids as given; `shard` only in a shard's run (--shard I/N). */
  selection: { limit: number | null; ids: string[] | null; shard?: ShardSelection | null };
}

/**
 * manifest.json: the run settings, and what they were applied to. Settings recorded only since a
 * later version are optional here: a run made before them lacks them, and the readers say how such
 * a run is read (grading: none recorded; probe decoding: sample 1.0 / 1.0, greedy routes).
 */
export interface RunManifest extends Omit<RunSettings, 'grading' | 'probeDecoding'> {
  grading?: GradingSettings;
  probeDecoding?: ProbeDecoding;
  name: string;
  createdAt: string;
  tool: { name: 'reach-audit'; version: string };
  /**
   * weights: the engine's projection weights ('f32' when absent: runs made before int8 existed).
   * kvCache: how the local engine's KV cache stored keys and values; written only for 'f16' (absent:
   * f32, so the default's manifests read as before).
   * numerics: the machine the local engine started the run on (absent for remote backends, whose
   * servers decide, and for runs made before it was recorded); numericsAlso: the other platforms
   * that computed some of its questions (a resumed session or a merged shard on another machine).
   * kvMemory: the KV budget of the session that started the run and where it came from (absent:
   * none, `--kv-memory off`, a remote backend, or a run made before budgets existed).
   * kvCacheFidelity: an f16 cache against the f32 cache on the run's first questions, measured when
   * the run started (absent: an f32 run, `--kv-fidelity-questions 0`, or a run made before it was measured).
   */
  engine: { version: string; weights?: 'f32' | 'int8'; kvCache?: 'f32' | 'f16'; kvCacheFidelity?: KvCacheFidelity; numerics?: NumericsPlatform; numericsAlso?: NumericsPlatform[]; kvMemory?: KvMemoryPlan };
  /**
   * numBlocks 0: not known (an imported log names a model, not its weights). tokenizerFrom: the
   * folder the tokenizer files came from when they were not the model folder's (--tokenizer-from),
   * with the hash of those files; absent when the model folder's own were used.
   */
  model: { path: string; contentHash: string; numBlocks: number; tokenizerFrom?: TokenizerSource };
  /** Set by `reach-audit regrade`: the run whose outputs these records grade again. */
  regradedFrom?: string;
  /** `split`: a hub dataset folder's split that was read (absent for a single file). */
  dataset: { path: string; contentHash: string; format: string; schema: string; questions: number; split?: string };
  /** Where the generations ran when not in this process (--backend openai): servers, model name, seed check. */
  backend?: RemoteBackendInfo;
  /** Set by `reach-audit import`: the evaluation log these records were read from, and what it cannot say. */
  imported?: ImportedLog;
}

/**
 * --kv-memory: the budget and the most KV cache one sequence of the run can come to hold: the
 * longest route's positions × KV heads × cache head size × 2 (keys, values) × 4 bytes × the slots
 * allocated for the longest prompt plus the token budget (docs/design/engine.md, "Memory-aware admission").
 * Scheduling only: records are the same with and without it, so a resume may change it.
 */
export interface KvMemoryPlan {
  budgetBytes: number;
  /**
   * Where the budget came from: --kv-memory SIZE, or the default, `share` of `availableBytes` (the
   * memory the system had available once the model's weights were loaded). Machine-dependent, so
   * resume, merge and compare ignore it, like `numerics`.
   */
  budgetFrom: 'flag' | 'default';
  availableBytes?: number;
  share?: number;
  perSequenceBytes: number;
  routeLength: number;
  kvHeads: number;
  headSize: number;
  promptTokens: number;
  maxNewTokens: number;
  slots: number;
  /** Bytes per stored key or value: written only for an f16 cache (2); absent: 4 (f32). */
  bytesPerValue?: number;
  /** Sequences of that need the budget holds at once (at most --max-batch). */
  atOnce: number;
}

/**
 * An f16 KV cache's fidelity to the f32 cache, measured on the run's own deployment prompts: the
 * first `questions` of the run's whole selection (of the unsharded selection, so every shard of a
 * run measures the same ones), each decoded greedily for at most `maxNewTokens` tokens with each
 * cache. Per question the agreeing prefix runs up to the first token that differs; the chosen
 * tokens' log-probs are compared over it (after a divergence the two continue from different
 * texts). Counts, not rates: a handful of questions, so no interval.
 */
export interface KvCacheFidelity {
  /** Questions measured: the first whose prompt fits the context, up to --kv-fidelity-questions. */
  questions: number;
  /** The most new tokens each decoded: the run's --max-new-tokens, at most 64. */
  maxNewTokens: number;
  /** Questions whose greedy tokens are all identical under both caches. */
  identicalSequences: number;
  /** The f32 cache's tokens, and those before each question's first divergence. */
  referenceTokens: number;
  agreeingTokens: number;
  /** |Δ log-prob| of the chosen tokens over the agreeing prefixes: max and mean (0 when none agree). */
  maxLogprobError: number;
  meanLogprobError: number;
}

/** Where a model's tokenizer came from when not its own folder: the folder, and sha256 over its tokenizer files. */
export interface TokenizerSource {
  path: string;
  contentHash: string;
}

/** Where an audit's realized outputs were read from (`--realized-from`). */
export interface RealizedFrom {
  /** The log file or imported run folder, as an absolute path. */
  source: string;
  /** sha256 of the log file's bytes (of an imported run's records.jsonl). */
  sha256: string;
  /** The harness that generated the outputs. */
  tool: string;
}

/** An evaluation harness's log imported as a run (docs/design/data-in-data-out.md, "Imported logs"). */
export interface ImportedLog {
  /** Each log file read, with the sha256 of its bytes. */
  sources: { file: string; sha256: string }[];
  /** The harness that wrote it: lm-evaluation-harness, inspect_ai, lighteval. */
  tool: string;
  /** Its version when the log states it, else null. */
  toolVersion: string | null;
  task: string;
  /** The model as the log names it (null: the log does not say). */
  model: string | null;
  /** The generation settings as the log states them, unchanged. */
  generation: Record<string, unknown>;
  /** What the log cannot say, each in a sentence (no routes, whether a seed was honoured, token counts…). */
  unknown: string[];
}
