/**
 * The options of an audit, declared once: each entry gives the `reach-audit` flag, the type of the
 * engine-service request field, the `--help` line and the range a value must be in. The CLI's
 * flag parser, its help text, the protocol's field checks and the `AuditOptions` type are all
 * derived from this table, so adding an option is one entry here (plus where it is used).
 */
// The error class and the engine's limits from src/common: the extension reads this table through the protocol, and the engine's entry module would load the runtime.
import { DEFAULT_MAX_BATCH, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, InputError, MAX_RETRY_AFTER_MS } from '../common';
import { ANSWER_FORMATS } from '../audit/dataset';
import { DEFAULT_DEPLOYMENT, DEFAULT_SAMPLE_DECODING, DEFAULT_SEARCH, MAX_PROBE_BUDGET, PROMPT_TRUNCATIONS } from '../audit/probes';
import { PRESET_NAMES } from '../audit/presets';
import { DEFAULT_SELECTORS, PROBE_NAMES, SELECTOR_NAMES } from '../contract';
import { CORRECT_BY, TRUNCATED_RULES } from '../audit/answers';
import { MOST_TEST_ERROR } from '../audit/stats';

/** How a value travels: on the command line every value is text; in a request it is JSON of this kind. */
export type OptionKind = 'string' | 'number' | 'wholeNumber' | 'boolean' | 'strings';

export interface OptionSpec {
  /** The command-line flag, without `--`. */
  readonly flag: string;
  readonly kind: OptionKind;
  /** `strings` only: the flag is repeated (`--probe a --probe b`) rather than given a comma-separated list. */
  readonly repeated?: boolean;
  /** The value's placeholder in `--help` (none for booleans). */
  readonly arg?: string;
  /** The `--help` text; more lines with `\n`. */
  readonly help: string;
  /** `wholeNumber`: the smallest value allowed. */
  readonly min?: number;
  /** `number`: the values allowed, and how to say so. */
  readonly range?: { readonly allows: (n: number) => boolean; readonly expected: string };
  /** The value names a file or folder (a request's relative path is read from its workspace). */
  readonly path?: true;
  /** Part of choosing the questions (`limit`, `ids`): a one-question request does not take it. */
  readonly selection?: true;
  /**
   * Command line only: a shard is one process's share of a run spread over machines, which an
   * engine-service request (the extension's audit) does not take. A log's outputs in place of the
   * deployment's (--realized-from) and remote servers are request options: the extension's Add
   * Probes to This Log… sends the one, and the engine process opens the servers instead of loading the weights.
   */
  readonly cliOnly?: true;
}

/** The probes of an audit that names none. */
export const DEFAULT_PROBES: readonly string[] = ['sample:16', 'routes:16', 'search:16'];

/** Defaults that are not another module's (those are read from their modules: deployment, search). */
export const AUDIT_DEFAULTS = { maxEdits: 4, seed: 0, batch: 32 } as const;

/** The foreclosure window's test when --foreclosure-threshold / --foreclosure-error are not given, and its samples per look. */
export const FORECLOSURE_DEFAULTS = { threshold: 0.1, error: 0.05, look: 4 } as const;

/** --kv-fidelity-questions: questions an f16 run measures when not given, the most it takes, and the new tokens each decodes at most. */
export const KV_FIDELITY = { questions: 8, mostQuestions: 256, maxNewTokens: 64 } as const;

const atLeastZero = { allows: (n: number) => n >= 0, expected: 'a number >= 0' };

/** Every audit option, in `--help` order. */
export const AUDIT_OPTIONS = {
  data: { flag: 'data', kind: 'string', arg: 'FILE', path: true, help: 'benchmark: JSONL, a JSON array, a .parquet file or a hub dataset folder (GSM8K, ARC, MATH, MMLU, generic)' },
  format: { flag: 'format', kind: 'string', arg: 'F', help: `answer format: auto (default, from the schema), ${ANSWER_FORMATS.join(', ')}` },
  field: { flag: 'field', kind: 'string', arg: 'NAME', help: 'gold answer field (exact/regex datasets)' },
  pattern: { flag: 'pattern', kind: 'string', arg: 'REGEX', help: 'prediction pattern for --format regex' },
  split: { flag: 'split', kind: 'string', arg: 'NAME', help: 'with --data FOLDER (a hub dataset): the split whose data/NAME-NNNNN-of-NNNNN.parquet shards are read (default test)' },
  probes: {
    flag: 'probe',
    kind: 'strings',
    repeated: true,
    arg: 'NAME:B',
    help: `a probe and its budget (at most ${MAX_PROBE_BUDGET.toLocaleString('en-US')}); repeat for several (${PROBE_NAMES.join(', ')});\ndefault: ${DEFAULT_PROBES.map((p) => `--probe ${p}`).join(' ')}`,
  },
  sampleTemperature: {
    flag: 'sample-temperature',
    kind: 'number',
    range: { allows: (n: number) => n > 0, expected: 'a number > 0 (at 0 every sample would be the greedy output)' },
    arg: 'T',
    help: `temperature of the sample probe (default ${DEFAULT_SAMPLE_DECODING.temperature}); route probes decode as the deployment does`,
  },
  sampleTopP: { flag: 'sample-top-p', kind: 'number', range: { allows: (n: number) => n > 0 && n <= 1, expected: 'a number in (0, 1]' }, arg: 'P', help: `top-p of the sample probe (default ${DEFAULT_SAMPLE_DECODING.topP})` },
  select: {
    flag: 'select',
    kind: 'strings',
    arg: 'LIST',
    help: `answer-blind selectors: ${SELECTOR_NAMES.join(', ')} (default ${DEFAULT_SELECTORS.join(',')});\nlearned-route picks each question's route of the global-route pool with a router fit on the\nother folds' outcomes (cross-fitted, answer-blind; no generation beyond the pool)`,
  },
  routerFolds: { flag: 'router-folds', kind: 'wholeNumber', min: 2, arg: 'K', help: 'cross-fitting folds of learned-route, by a seeded hash of the question id (default 5, at most 20)' },
  routerFeatures: {
    flag: 'router-features',
    kind: 'string',
    arg: 'KIND',
    help: "what learned-route's router reads: hash (default: the prompt's token ids in 64 hash buckets),\nstate (the deployment prefill's mean residual after --router-block, projected to 16 numbers\nand recorded per question), or both",
  },
  routerBlock: { flag: 'router-block', kind: 'wholeNumber', min: 0, arg: 'B', help: 'with --router-features state or both: the block after which the prompt is pooled (default: the middle block, L/2)' },
  repair: { flag: 'repair', kind: 'boolean', help: 'run the repair scan (silence each MLP block) on the failure set' },
  untilReached: {
    flag: 'until-reached',
    kind: 'boolean',
    help: "ceiling only: each probe stops a question's attempts at its first correct one; reachable is\nunchanged, pass@k and answer-blind selection are not computed for the probes (recorded)",
  },
  depthProbe: {
    flag: 'depth-probe',
    kind: 'wholeNumber',
    min: 1,
    arg: 'B',
    help: `depth of loss: for each failure-set question, B seeded samples (the sample probe's decoding)\nfrom prefixes of the deployed output at 0, 1/4, 1/2, 3/4 of its tokens and after its last line break\n(distinct prefixes only; B at most ${MAX_PROBE_BUDGET.toLocaleString('en-US')})`,
  },
  foreclosureWindow: {
    flag: 'foreclosure-window',
    kind: 'wholeNumber',
    min: 1,
    arg: 'N',
    help: `with --depth-probe: narrow each question's depth bracket to a window of tokens by bisection,\ndeciding each prefix by a sequential test of its success rate against a threshold, at most N\nsamples a prefix (${FORECLOSURE_DEFAULTS.look} at a time; N at most ${MAX_PROBE_BUDGET.toLocaleString('en-US')}); undecided prefixes stop the narrowing`,
  },
  foreclosureThreshold: {
    flag: 'foreclosure-threshold',
    kind: 'number',
    range: { allows: (n: number) => n > 0 && n < 1, expected: 'a number in (0, 1)' },
    arg: 'θ',
    help: `--foreclosure-window: a prefix reaches the answer when its success rate is above θ (default ${FORECLOSURE_DEFAULTS.threshold})`,
  },
  foreclosureError: {
    flag: 'foreclosure-error',
    kind: 'number',
    range: { allows: (n: number) => n > 0 && n < 1, expected: 'a number in (0, 1)' },
    arg: 'α',
    help: `--foreclosure-window: the most probability of each wrong decision, "reaches" at a rate ≤ θ or\n"does not" at a rate ≥ θ (default ${FORECLOSURE_DEFAULTS.error}, at most ${MOST_TEST_ERROR})`,
  },
  forkProbe: {
    flag: 'fork-probe',
    kind: 'wholeNumber',
    min: 4,
    arg: 'B',
    help: "forks: for each question the deployment does not realize, at most B generations that take another\nof the 4 most likely tokens at a position of the deployed output and continue greedily and with the\nsample probe's decoding; half at the highest-entropy positions, half at seeded random ones (the null).\nAlso records the deployed output's entropy and top-4 tokens per token",
  },
  forkPositions: {
    flag: 'fork-positions',
    kind: 'wholeNumber',
    min: 1,
    arg: 'N',
    help: 'with --fork-probe: positions per arm (default B/4); each takes as many alternatives as B allows (at most 3)',
  },
  referenceProbes: { flag: 'reference-probes', kind: 'strings', arg: 'LIST', help: 'probes that define the failure set (default: every probe run)' },
  globalRoutes: { flag: 'global-routes', kind: 'wholeNumber', min: 1, arg: 'N', help: 'size of the shared route pool for global-route (default: the route budget)' },
  maxEdits: { flag: 'max-edits', kind: 'wholeNumber', min: 1, arg: 'N', help: `most edits in a random route (default ${AUDIT_DEFAULTS.maxEdits})` },
  minRouteLength: { flag: 'min-route-length', kind: 'wholeNumber', min: 1, arg: 'N', help: 'shortest route allowed, in block applications (default round(2L/3) for L blocks)' },
  maxRouteLength: { flag: 'max-route-length', kind: 'wholeNumber', min: 1, arg: 'N', help: 'longest route allowed, in block applications (default round(5L/4))' },
  searchC: { flag: 'search-c', kind: 'number', range: atLeastZero, arg: 'C', help: `MCTS exploration constant c in the UCB (default ${DEFAULT_SEARCH.c})` },
  searchLambda: { flag: 'search-lambda', kind: 'number', range: atLeastZero, arg: 'λ', help: `MCTS route-length penalty λ·len/L in the UCB (default ${DEFAULT_SEARCH.lambda})` },
  searchRandomChild: {
    flag: 'search-random-child',
    kind: 'number',
    range: { allows: (n: number) => n >= 0 && n <= 1, expected: 'a probability from 0 to 1' },
    arg: 'P',
    help: `MCTS: probability of moving to a random child instead of the UCB choice (default ${DEFAULT_SEARCH.exploration})`,
  },
  searchWidening: {
    flag: 'search-widening',
    kind: 'string',
    arg: 'α|off',
    help: `MCTS progressive widening: a node holds at most 1 + floor(visits^α) children\n(α from 0 to 1, default ${DEFAULT_SEARCH.widening}); off: every child is tried before going deeper`,
  },
  searchPreset: {
    flag: 'search-preset',
    kind: 'string',
    arg: 'published',
    help: 'the released Chain-of-Layers MCTS constants: c = 1.414, λ = 5 and its length bounds for\n28/36/48-block models (flags given beside it win; docs/design/probes.md, Deviations)',
  },
  searchSweep: {
    flag: 'search-sweep',
    kind: 'boolean',
    help: 'also run the search at c/9, c/3 and 3c (default c: 0.2, 0.6, 5.4), reach only, each stopped at\nits first correct route; routes already evaluated for a question are reused, not generated again.\nOff by default: up to 3 more search budgets of generations (recorded; the tables show the sweep)',
  },
  searchReward: {
    flag: 'search-reward',
    kind: 'string',
    arg: 'R',
    help: "what a route scores in the search: correct (1 or 0, default) or gold-logprob (1 when correct,\nelse ½·exp of the route's teacher-forced mean log-probability of the gold answer at its answer\nslot, compared in units of its spread on each question: the search learns before its first hit;\nlocal engine only, not --format regex)",
  },
  limit: { flag: 'limit', kind: 'wholeNumber', min: 1, arg: 'N', selection: true, help: 'audit the first N questions' },
  ids: { flag: 'ids', kind: 'strings', arg: 'a,b', selection: true, help: 'audit only these question ids' },
  seed: { flag: 'seed', kind: 'wholeNumber', min: 0, arg: 'S', help: `run seed (default ${AUDIT_DEFAULTS.seed}): every random draw is keyed by it` },
  out: { flag: 'out', kind: 'string', arg: 'DIR', path: true, help: 'run folder (default .reach-audit/runs/<time>-<name>/)' },
  name: { flag: 'name', kind: 'string', arg: 'NAME', help: 'run name (default <model>-<dataset>)' },
  resume: { flag: 'resume', kind: 'boolean', help: 'continue a stopped run (the newest run named NAME, or --out DIR)' },
  batch: { flag: 'batch', kind: 'wholeNumber', min: 1, arg: 'N', help: `questions audited at once; their generations share the engine's batch (default ${AUDIT_DEFAULTS.batch})` },
  maxBatch: { flag: 'max-batch', kind: 'wholeNumber', min: 1, arg: 'N', help: `most sequences decoded together (default ${DEFAULT_MAX_BATCH})` },
  kvMemory: {
    flag: 'kv-memory',
    kind: 'string',
    arg: 'SIZE',
    help:
      'KV-cache budget of the local engine (e.g. 8G, 512MiB; default: half the memory available once\n' +
      'the model is loaded; off or none: no budget, --max-batch alone): a sequence starts only while\n' +
      'the caches it can come to hold fit beside the running ones, the rest wait; its need is route\n' +
      'positions × KV heads × head size × 2 × 4 bytes (2 under --kv-cache f16) × slots for prompt + budget tokens (a power of\n' +
      'two), stated before the run (the default only when it runs fewer than --max-batch) and in the\n' +
      'manifest; records are unchanged',
  },
  threads: { flag: 'threads', kind: 'wholeNumber', min: 1, arg: 'N', help: 'engine threads (default: all cores)' },
  cacheDir: { flag: 'cache-dir', kind: 'string', arg: 'DIR', path: true, help: 'graph cache (default: $REACH_AUDIT_CACHE or ~/.cache/reach-audit/graphs)' },
  tokenizerFrom: {
    flag: 'tokenizer-from',
    kind: 'string',
    arg: 'DIR',
    path: true,
    help: "read the tokenizer files (tokenizer.json, tokenizer_config.json) from DIR, for a checkpoint\nsaved without them (a Trainer checkpoint: give its base model's folder); recorded in the manifest",
  },
  weights: { flag: 'weights', kind: 'string', arg: 'P', help: 'f32 (default) or int8 (quantized weights by the processor\'s integer path; recorded in the manifest)' },
  kvCache: {
    flag: 'kv-cache',
    kind: 'string',
    arg: 'P',
    help:
      'KV cache storage of the local engine: f32 (default) or f16 (half the cache memory, so --kv-memory\n' +
      'admits about twice the sequences; attention still computed in f32, each call converting the\n' +
      'cache, so decode is not faster: measured 1.0-1.3x the time per step at 2k tokens). f16 changes\n' +
      'the numbers: recorded in the manifest, a resume must use the same; its measured fidelity against\n' +
      'f32 (greedy agreement, log-prob error) is in docs/design/engine.md, and `reach-audit fidelity\n' +
      '--kv-cache f16` measures it on your own model and questions. Not for sliding-window models.\n' +
      'An f16 run measures it itself before its questions (--kv-fidelity-questions)',
  },
  kvFidelityQuestions: {
    flag: 'kv-fidelity-questions',
    kind: 'wholeNumber',
    min: 0,
    arg: 'N',
    help:
      'with --kv-cache f16 (local engine): before the questions run, decode the run\'s first N\n' +
      `questions greedily (at most ${KV_FIDELITY.maxNewTokens} new tokens, at most --max-new-tokens) with an f32 and\n` +
      'with the f16 cache, and record in the manifest (engine.kvCacheFidelity) and `report` how many\n' +
      'are identical, the share of tokens before the first divergence and the chosen tokens\'\n' +
      '|Δ log-prob|; the f32 model is loaded for this alone and released before the run\'s.\n' +
      `Default ${KV_FIDELITY.questions}, at most ${KV_FIDELITY.mostQuestions}; 0: not measured. A resume keeps the figure the run started with`,
  },
  prompt: { flag: 'prompt', kind: 'string', arg: 'chat|raw', help: 'chat template (default) or raw text prompt' },
  preset: {
    flag: 'preset',
    kind: 'string',
    arg: 'NAME',
    help:
      `few-shot prompt for a base model, in its benchmark's published layout, with its stop strings:\n${PRESET_NAMES.filter((n) => n !== 'deepseek-r1').join(', ')};\n` +
      'or a reasoning model\'s published evaluation settings: deepseek-r1 (chat template, no system\n' +
      'prompt, "Please reason step by step, and put your final answer within \\boxed{}." after the\n' +
      'question, temperature 0.6, top-p 0.95 unless --temperature/--top-p say otherwise)',
  },
  template: { flag: 'template', kind: 'string', arg: 'FILE', path: true, help: 'raw prompt template containing {question} (with --prompt raw)' },
  system: { flag: 'system', kind: 'string', arg: 'TEXT', help: 'system message (chat prompts)' },
  fewshot: { flag: 'fewshot', kind: 'string', arg: 'FILE', path: true, help: 'JSONL of {"user", "assistant"} examples shown before each question' },
  fewshotFile: {
    flag: 'fewshot-file',
    kind: 'string',
    arg: 'FILE',
    path: true,
    help: "with --preset mmlu-5shot: the benchmark's dev split (MMLU lines with a subject); each subject is asked with its first 5 dev examples and its own header",
  },
  maxNewTokens: { flag: 'max-new-tokens', kind: 'wholeNumber', min: 1, arg: 'N', help: `token budget (default ${DEFAULT_DEPLOYMENT.maxNewTokens})` },
  temperature: {
    flag: 'temperature',
    kind: 'number',
    range: { allows: (n: number) => n >= 0, expected: 'a number >= 0 (0 = greedy)' },
    arg: 'T',
    help: `deployment sampling temperature (default ${DEFAULT_DEPLOYMENT.temperature}: greedy)`,
  },
  topP: { flag: 'top-p', kind: 'number', range: { allows: (n: number) => n > 0 && n <= 1, expected: 'a number in (0, 1]' }, arg: 'P', help: `deployment top-p (default ${DEFAULT_DEPLOYMENT.topP})` },
  stop: { flag: 'stop', kind: 'strings', repeated: true, arg: 'TEXT', help: 'stop string; repeat for several' },
  chatTemplateKwargs: {
    flag: 'chat-template-kwargs',
    kind: 'string',
    arg: 'JSON',
    help:
      'further chat-template variables, a JSON object (vLLM\'s name), e.g. \'{"enable_thinking": false}\'\n' +
      'for Qwen3; recorded in the manifest; a key the template never reads is refused',
  },
  templateDate: {
    flag: 'template-date',
    kind: 'string',
    arg: 'YYYY-MM-DD',
    cliOnly: true,
    help:
      'the day a chat template that calls strftime_now (Llama 3.2/3.3\'s "Today Date") renders with\n' +
      '(default: today, UTC; a resumed run: its recorded day); recorded in the manifest. Give the\n' +
      'same day to every shard of a run so that merge finds them alike',
  },
  truncatePrompt: {
    flag: 'truncate-prompt',
    kind: 'string',
    arg: 'MODE',
    help:
      `a prompt that does not fit the context with --max-new-tokens: ${PROMPT_TRUNCATIONS.join('|')} (default none:\n` +
      'the question is recorded as skipped, apart from n; left: keep its last tokens, as lm-eval does)',
  },
  gradeTruncated: {
    flag: 'grade-truncated',
    kind: 'string',
    arg: 'R',
    help:
      `an output cut at the token limit: ${TRUNCATED_RULES.join('|')} (default strict: correct only\n` +
      'with an answer marker such as "#### N", \\boxed{…} or "Answer: X"; lenient: like any output)',
  },
  correctBy: {
    flag: 'correct-by',
    kind: 'string',
    arg: 'V',
    help:
      `the reading that defines correct: ${CORRECT_BY.join('|')} (default stated: the stated\n` +
      'answer, else the last number; strict: the marker only, lm-eval strict-match for GSM8K;\n' +
      'flexible: lm-eval flexible-extract for GSM8K). Both other readings are recorded too',
  },
  thinkingMarkers: {
    flag: 'thinking-markers',
    kind: 'string',
    arg: 'OPEN,CLOSE',
    help:
      "the markers around a reasoning model's thought (default: the tokenizer's own thinking\n" +
      "tokens, else '<think>,</think>'): the answer is read after the last closing marker; an\n" +
      'output whose thought never closed is cut while thinking and not graded as an answer',
  },
  realizedFrom: {
    flag: 'realized-from',
    kind: 'string',
    arg: 'LOG',
    path: true,
    help:
      "the deployment's outputs read from a harness log (lm-eval samples, Inspect .eval/.json, lighteval\n" +
      'details) or a folder made by reach-audit import, instead of generated; questions matched by id,\n' +
      "each logged prompt must equal this audit's deployment prompt; the probes run on the model",
  },
  shard: {
    flag: 'shard',
    kind: 'string',
    arg: 'I/N',
    cliOnly: true,
    help: 'audit only shard I of N (0-based): questions I, I+N, … of the selection;\njoin the N run folders with `reach-audit merge`',
  },
  backend: { flag: 'backend', kind: 'string', arg: 'local|openai', help: 'where generations run (default local: the engine in this process)' },
  baseUrl: {
    flag: 'base-url',
    kind: 'strings',
    repeated: true,
    arg: 'URL',
    help: 'OpenAI-compatible server (…/v1) for --backend openai; repeat for several\n(used round-robin). Route, search and repair probes need a server started\nwith `reach-audit serve --http`; other servers run deployment and sample only',
  },
  apiModel: { flag: 'api-model', kind: 'string', arg: 'NAME', help: "the server's model name (default: the first it lists)" },
  apiKeyEnv: { flag: 'api-key-env', kind: 'string', arg: 'VAR', help: 'read the API key from this environment variable (never written anywhere)' },
  concurrency: { flag: 'concurrency', kind: 'wholeNumber', min: 1, arg: 'N', help: 'requests in flight per server (default 4)' },
  timeout: {
    flag: 'timeout',
    kind: 'number',
    range: { allows: (n: number) => n > 0 && n <= 86_400, expected: 'a number of seconds above 0 and at most 86400' },
    arg: 'S',
    help: `seconds one try of a request may take, from sending it to the answer's last byte\n(default ${DEFAULT_TIMEOUT_MS / 1000}); a request's tries together stop after twice that; a slow\nserver is mentioned every minute`,
  },
  maxRetries: {
    flag: 'max-retries',
    kind: 'wholeNumber',
    min: 0,
    arg: 'N',
    help: `tries again after a timeout, a lost connection, 408/409/429 or 5xx (default\n${DEFAULT_MAX_RETRIES}); each wait is printed, Retry-After is honoured up to ${MAX_RETRY_AFTER_MS / 1000} s`,
  },
} as const satisfies Record<string, OptionSpec>;

export type AuditOptionName = keyof typeof AUDIT_OPTIONS;

/** The options a request to the engine service may not carry. */
export type CliOnlyOptionName = { [K in AuditOptionName]: (typeof AUDIT_OPTIONS)[K] extends { cliOnly: true } ? K : never }[AuditOptionName];

type ValueOfKind<K extends OptionKind> = K extends 'string' ? string : K extends 'number' | 'wholeNumber' ? number : K extends 'boolean' ? boolean : string[];

/** The options as typed values (a request's fields; the CLI's flags once converted). Absent: the default. */
export type AuditOptions = { -readonly [K in AuditOptionName]?: ValueOfKind<(typeof AUDIT_OPTIONS)[K]['kind']> };

// ---------------------------------------------------------------------------------------------
// The command line

type Spec<K extends AuditOptionName> = (typeof AUDIT_OPTIONS)[K];
type FlagConfig<S> = S extends { kind: 'boolean' } ? { type: 'boolean' } : S extends { repeated: true } ? { type: 'string'; multiple: true } : { type: 'string' };

/** The options as node:util parseArgs flags (`--flag` names, text values). */
export type AuditFlags = { [K in AuditOptionName as Spec<K>['flag']]: FlagConfig<Spec<K>> };

export const AUDIT_FLAGS = Object.fromEntries(
  Object.values(AUDIT_OPTIONS).map((o: OptionSpec) => [o.flag, o.kind === 'boolean' ? { type: 'boolean' } : o.repeated ? { type: 'string', multiple: true } : { type: 'string' }]),
) as AuditFlags;

/** What parseArgs returns for AUDIT_FLAGS. */
export type AuditFlagValues = { [F in keyof AuditFlags]?: AuditFlags[F] extends { type: 'boolean' } ? boolean : AuditFlags[F] extends { multiple: true } ? string[] : string };

const HELP_COLUMN = 27;

/** One `--help` line (or more) per option, in the form `  --flag ARG   what it does`. */
export function optionHelpLines(specs: readonly OptionSpec[] = Object.values(AUDIT_OPTIONS)): string[] {
  const lines: string[] = [];
  for (const o of specs) {
    const head = `  --${o.flag}${o.arg ? ` ${o.arg}` : ''}`;
    const [first, ...more] = o.help.split('\n');
    lines.push(`${head.padEnd(HELP_COLUMN - 1)} ${first}`);
    for (const m of more) lines.push(`${' '.repeat(HELP_COLUMN)}${m}`);
  }
  return lines;
}

export const AUDIT_FLAGS_HELP = optionHelpLines();

/** Where a value came from, for messages: the flag as the user typed it. */
function flagName(o: OptionSpec): string {
  return `--${o.flag}`;
}

/** A number is in its option's range; the message names the flag and shows the value as given. */
function checkRange(o: OptionSpec, n: number, given: string): number {
  const ok = o.kind === 'wholeNumber' ? Number.isInteger(n) && n >= (o.min ?? 0) : Number.isFinite(n) && (o.range?.allows(n) ?? true);
  if (!ok) throw new InputError(`${flagName(o)}: expected ${o.kind === 'wholeNumber' ? `a whole number >= ${o.min ?? 0}` : (o.range?.expected ?? 'a finite number')}, got '${given}'`);
  return n;
}

/** The command line's text values as typed options; a value that does not parse names its flag. */
export function optionsFromFlags(values: AuditFlagValues): AuditOptions {
  const out: Record<string, unknown> = {};
  const text = values as Record<string, string | string[] | boolean | undefined>;
  for (const [key, o] of Object.entries(AUDIT_OPTIONS) as [AuditOptionName, OptionSpec][]) {
    const v = text[o.flag];
    if (v === undefined) continue;
    if (o.kind === 'boolean') out[key] = v;
    else if (o.kind === 'strings') out[key] = o.repeated ? v : String(v).split(',').map((s) => s.trim()).filter((s) => s !== '');
    else if (o.kind === 'string') out[key] = v;
    else {
      const s = String(v);
      if (s.trim() === '') throw new InputError(`${flagName(o)}: expected ${o.kind === 'wholeNumber' ? `a whole number >= ${o.min ?? 0}` : (o.range?.expected ?? 'a number')}, got '${s}'`);
      out[key] = checkRange(o, Number(s), s);
    }
  }
  return out as AuditOptions;
}

/**
 * The command-line flags that give `options` (the inverse of optionsFromFlags): how VS Code hands its
 * settings to a `reach-audit` child process, so the child audits under the same options table.
 */
export function flagsFromOptions(options: AuditOptions): string[] {
  const args: string[] = [];
  for (const [key, o] of Object.entries(AUDIT_OPTIONS) as [AuditOptionName, OptionSpec][]) {
    const v = options[key];
    if (v === undefined || v === false) continue;
    if (v === true) args.push(flagName(o));
    else if (Array.isArray(v)) {
      if (o.repeated) for (const item of v) args.push(flagName(o), item);
      else if (v.length > 0) args.push(flagName(o), v.join(','));
    } else args.push(flagName(o), String(v));
  }
  return args;
}

/** A request's numbers in their options' ranges (the protocol checked their JSON kinds). */
export function checkOptionRanges(options: AuditOptions): void {
  for (const [key, o] of Object.entries(AUDIT_OPTIONS) as [AuditOptionName, OptionSpec][]) {
    const v = options[key];
    if (typeof v === 'number') checkRange(o, v, String(v));
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

/** Field name → JSON kind, for the protocol's checks. */
export function optionFieldKinds(which: { selection: boolean }): Record<string, OptionKind> {
  const fields: Record<string, OptionKind> = {};
  for (const [key, o] of Object.entries(AUDIT_OPTIONS) as [AuditOptionName, OptionSpec][]) {
    if (o.cliOnly || (o.selection && !which.selection)) continue;
    fields[key] = o.kind;
  }
  return fields;
}

/** The options only the command line takes (engine-service requests do not). */
export const CLI_ONLY_OPTION_NAMES: ReadonlySet<string> = new Set((Object.entries(AUDIT_OPTIONS) as [AuditOptionName, OptionSpec][]).filter(([, o]) => o.cliOnly).map(([k]) => k));

/** The option fields that name files (a request resolves them against its workspace). */
export const PATH_OPTION_NAMES: readonly string[] = (Object.entries(AUDIT_OPTIONS) as [AuditOptionName, OptionSpec][]).filter(([, o]) => o.path).map(([k]) => k);
