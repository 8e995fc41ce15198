/**
 * Flags shared by `audit` and `compare --base-model/--tuned-model`: what to audit, the deployment,
 * the probes and selectors, the repair scan, seeds, batching. Every bad value becomes one
 * UsageError naming the flag and what was expected.
 */
import * as fs from 'node:fs';
import { UsageError } from './command';
import { parseNumber, parseWholeNumber } from './engineArgs';
import { globalRoutePool } from '../audit/run/questionPipeline';
import { loadDataset, type Dataset } from '../audit/dataset/dataset';
import { checkDeployment, DEFAULT_DEPLOYMENT, QUESTION_SLOT, type Deployment, type FewShotExample } from '../audit/probes/deployment';
import type { RunSettings } from '../audit/run/manifest';
import { PROMPT_TRUNCATIONS } from '../audit/probes/contextFit';
import { DEFAULT_SEARCH } from '../audit/probes/routeSearch';
import { DEFAULT_PROBE_DECODING, type ProbeDecoding } from '../audit/probes/probeDecoding';
import { CORRECT_BY, DEFAULT_GRADING, TRUNCATED_RULES, type GradingSettings } from '../audit/answers/grade';
import { isRouteProbe, parseProbeSpecs, parseSelectors, PROBE_NAMES, SELECTOR_NAMES, type ProbeSpec } from '../audit/probes/probeSpec';
import { ANSWER_FORMATS, type AnswerFormat, type Question } from '../audit/dataset/question';
import { globalRouteSkipReason } from '../audit/probes/globalRoutePlan';
import { parseShard, shardQuestions, shardSelection, type ShardSelection } from '../audit/run/shards';

export const AUDIT_FLAGS = {
  data: { type: 'string' },
  format: { type: 'string' },
  field: { type: 'string' },
  pattern: { type: 'string' },
  probe: { type: 'string', multiple: true },
  select: { type: 'string' },
  repair: { type: 'boolean' },
  'reference-probes': { type: 'string' },
  'global-routes': { type: 'string' },
  'max-edits': { type: 'string' },
  'search-c': { type: 'string' },
  'search-lambda': { type: 'string' },
  limit: { type: 'string' },
  ids: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  name: { type: 'string' },
  resume: { type: 'boolean' },
  json: { type: 'boolean' },
  batch: { type: 'string' },
  'max-batch': { type: 'string' },
  threads: { type: 'string' },
  'cache-dir': { type: 'string' },
  weights: { type: 'string' },
  prompt: { type: 'string' },
  template: { type: 'string' },
  system: { type: 'string' },
  fewshot: { type: 'string' },
  'max-new-tokens': { type: 'string' },
  temperature: { type: 'string' },
  'top-p': { type: 'string' },
  stop: { type: 'string', multiple: true },
  'truncate-prompt': { type: 'string' },
  shard: { type: 'string' },
  backend: { type: 'string' },
  'base-url': { type: 'string', multiple: true },
  'api-model': { type: 'string' },
  'api-key-env': { type: 'string' },
  concurrency: { type: 'string' },
  'grade-truncated': { type: 'string' },
  'correct-by': { type: 'string' },
} as const;

export const AUDIT_FLAGS_HELP = [
  '  --data FILE              benchmark file: JSONL or a JSON array (GSM8K, ARC, MATH, MMLU, generic)',
  `  --format F               answer format: auto (default, from the schema), ${ANSWER_FORMATS.join(', ')}`,
  '  --field NAME             gold answer field (exact/regex datasets)',
  '  --pattern REGEX          prediction pattern for --format regex',
  `  --probe NAME:B           a probe and its budget; repeat for several (${PROBE_NAMES.join(', ')});`,
  '                           default: --probe sample:16 --probe routes:16 --probe search:16',
  `  --select LIST            answer-blind selectors (default ${SELECTOR_NAMES.join(',')})`,
  '  --repair                 run the repair scan (silence each MLP block) on the failure set',
  '  --reference-probes LIST  probes that define the failure set (default: every probe run)',
  '  --global-routes N        size of the shared route pool for global-route (default: the route budget)',
  '  --max-edits N            most edits in a random route (default 4)',
  '  --search-c C             MCTS exploration constant (default 1.8); --search-lambda λ length penalty (default 0)',
  '  --limit N                audit the first N questions',
  '  --ids a,b                audit only these question ids',
  '  --seed S                 run seed (default 0): every random draw is keyed by it',
  '  --out DIR                run folder (default .reach-audit/runs/<time>-<name>/)',
  '  --name NAME              run name (default <model>-<dataset>)',
  '  --resume                 continue a stopped run (the newest run named NAME, or --out DIR)',
  '  --json                   print the summary as JSON on stdout',
  '  --batch N                questions per engine batch round (default 32)',
  '  --max-batch N            most sequences decoded together (default 16)',
  '  --threads N, --cache-dir DIR   engine threads and graph cache',
  '  --weights P              f32 (default) or int8 (8-bit weights, one scale per 32; recorded in the manifest)',
  "  --prompt chat|raw        chat template (default) or raw text prompt; --template FILE with {question}",
  '  --system TEXT            system message (chat prompts)',
  '  --fewshot FILE           JSONL of {"user", "assistant"} examples shown before each question',
  '  --max-new-tokens N       token budget (default 256); --temperature T, --top-p P (default greedy)',
  '  --stop TEXT              stop string; repeat for several',
  `  --grade-truncated R      an output cut at the token limit: ${TRUNCATED_RULES.join('|')} (default strict: correct only`,
  '                           with an answer marker such as "#### N", \\boxed{…} or "Answer: X"; lenient: like any output)',
  `  --correct-by V           the reading that defines correct: ${CORRECT_BY.join('|')} (default stated: the stated`,
  '                           answer, else the last number; strict: the marker only, lm-eval strict-match for GSM8K;',
  '                           flexible: lm-eval flexible-extract for GSM8K). Both other readings are recorded too',
  '  --shard I/N              audit only shard I of N (0-based): questions I, I+N, … of the selection;',
  '                           join the N run folders with `reach-audit merge`',
  '  --backend local|openai   where generations run (default local: the engine in this process)',
  '  --base-url URL           OpenAI-compatible server (…/v1) for --backend openai; repeat for several',
  '                           (used round-robin). Route, search and repair probes need a server started',
  '                           with `reach-audit serve --http`; other servers run deployment and sample only',
  '  --api-model NAME         the server\'s model name (default: the first it lists)',
  '  --api-key-env VAR        read the API key from this environment variable (never written anywhere)',
  '  --concurrency N          requests in flight per server (default 4)',
];

export type AuditFlagValues = { [K in keyof typeof AUDIT_FLAGS]?: (typeof AUDIT_FLAGS)[K] extends { multiple: true } ? string[] : (typeof AUDIT_FLAGS)[K] extends { type: 'boolean' } ? boolean : string };

export function readDataset(values: AuditFlagValues): Dataset {
  if (!values.data) throw new UsageError('--data: expected a benchmark file (JSONL or JSON)');
  const format = values.format ?? 'auto';
  if (format !== 'auto' && !(ANSWER_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format ${format}: unknown answer format; expected auto, ${ANSWER_FORMATS.join(', ')}`);
  }
  if (format === 'regex' && !values.pattern) throw new UsageError('--format regex needs --pattern REGEX (the prediction pattern)');
  return loadDataset(values.data, { format: format as AnswerFormat | 'auto', field: values.field, pattern: values.pattern });
}

/** The questions chosen by --limit / --ids, in file order, then the shard's share of them (--shard). */
export function selectQuestions(dataset: Dataset, values: AuditFlagValues): { questions: Question[]; limit: number | null; ids: string[] | null; shard?: ShardSelection } {
  const limit = parseWholeNumber(values.limit, '--limit', 1) ?? null;
  let questions = dataset.questions;
  let ids: string[] | null = null;
  if (values.ids !== undefined) {
    ids = values.ids.split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (ids.length === 0) throw new UsageError(`--ids: expected a comma-separated list of question ids, got '${values.ids}'`);
    const known = new Set(questions.map((q) => q.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new UsageError(`--ids: no question with id ${unknown.map((u) => JSON.stringify(u)).join(', ')} in ${dataset.path}`);
    const wanted = new Set(ids);
    questions = questions.filter((q) => wanted.has(q.id));
  }
  if (limit !== null) questions = questions.slice(0, limit);
  if (values.shard !== undefined) {
    const spec = parseShard(values.shard);
    return { questions: shardQuestions(questions, spec), limit, ids, shard: shardSelection(questions, spec) };
  }
  return { questions, limit, ids };
}

function readFewShot(file: string): FewShotExample[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--fewshot ${file}: cannot read it (${(err as Error).message})`);
  }
  const out: FewShotExample[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new UsageError(`--fewshot ${file}:${i + 1}: not valid JSON; expected {"user": "...", "assistant": "..."}`);
    }
    const o = v as Record<string, unknown>;
    if (typeof o?.user !== 'string' || typeof o?.assistant !== 'string') throw new UsageError(`--fewshot ${file}:${i + 1}: expected string fields "user" and "assistant"`);
    out.push({ user: o.user, assistant: o.assistant });
  });
  return out;
}

export function readDeployment(values: AuditFlagValues): Deployment {
  const prompt = values.prompt ?? 'chat';
  if (prompt !== 'chat' && prompt !== 'raw') throw new UsageError(`--prompt ${prompt}: expected chat or raw`);
  let template: string | undefined;
  if (values.template !== undefined) {
    if (prompt !== 'raw') throw new UsageError('--template is for --prompt raw');
    try {
      template = fs.readFileSync(values.template, 'utf8');
    } catch (err) {
      throw new UsageError(`--template ${values.template}: cannot read it (${(err as Error).message})`);
    }
    if (!template.includes(QUESTION_SLOT)) throw new UsageError(`--template ${values.template}: the template must contain ${QUESTION_SLOT}`);
  }
  const d: Deployment = {
    ...DEFAULT_DEPLOYMENT,
    prompt,
    ...(template !== undefined ? { template } : {}),
    ...(values.system !== undefined ? { system: values.system } : {}),
    fewShot: values.fewshot ? readFewShot(values.fewshot) : [],
    maxNewTokens: parseWholeNumber(values['max-new-tokens'], '--max-new-tokens', 1) ?? DEFAULT_DEPLOYMENT.maxNewTokens,
    temperature: parseNumber(values.temperature, '--temperature', (n) => n >= 0, 'a number >= 0 (0 = greedy)') ?? 0,
    topP: parseNumber(values['top-p'], '--top-p', (n) => n > 0 && n <= 1, 'a number in (0, 1]') ?? 1,
    stop: values.stop ?? [],
  };
  const truncate = values['truncate-prompt'] ?? 'none';
  if (!(PROMPT_TRUNCATIONS as readonly string[]).includes(truncate)) throw new UsageError(`--truncate-prompt ${truncate}: expected ${PROMPT_TRUNCATIONS.join(' or ')}`);
  // Absent means none, so manifests written before the flag existed still match on --resume.
  if (truncate === 'left') d.truncatePrompt = 'left';
  checkDeployment(d);
  return d;
}

const DEFAULT_PROBES = ['sample:16', 'routes:16', 'search:16'];

/** Settings that do not need the model (checked before it loads). */
export interface PreSettings {
  probes: ProbeSpec[];
  probeDecoding: ProbeDecoding;
  selectors: RunSettings['selectors'];
  repair: RunSettings['repair'];
  globalRoutes: number;
  seed: number;
  maxEdits: number;
  search: RunSettings['search'];
  deployment: Deployment;
  chunkSize: number;
  maxBatch?: number;
  grading: GradingSettings;
}

function oneOf<T extends string>(value: string | undefined, flag: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} ${value}: expected one of ${allowed.join(', ')}`);
  return value as T;
}

export function readPreSettings(values: AuditFlagValues): PreSettings {
  const probes = parseProbeSpecs(values.probe && values.probe.length > 0 ? values.probe : DEFAULT_PROBES);
  const selectors = parseSelectors(values.select ?? SELECTOR_NAMES.join(','));
  const run = probes.map((p) => p.name as string);
  let referenceProbes = run;
  if (values['reference-probes'] !== undefined) {
    referenceProbes = values['reference-probes'].split(',').map((s) => s.trim()).filter(Boolean);
    const bad = referenceProbes.filter((p) => !run.includes(p));
    if (referenceProbes.length === 0 || bad.length > 0) throw new UsageError(`--reference-probes ${values['reference-probes']}: expected probes of this run (${run.join(', ')})`);
  }
  const routeBudget = Math.max(0, ...probes.filter((p) => isRouteProbe(p.name)).map((p) => p.budget));
  const wantsGlobal = selectors.includes('global-route') && routeBudget > 0;
  const globalRoutes = wantsGlobal ? (parseWholeNumber(values['global-routes'], '--global-routes', 1) ?? routeBudget) : 0;
  const seed = parseWholeNumber(values.seed, '--seed', 0) ?? 0;
  if (seed > 0xffffffff) throw new UsageError(`--seed: expected a whole number from 0 to 4294967295, got '${values.seed}'`);
  return {
    probes,
    probeDecoding: { ...DEFAULT_PROBE_DECODING },
    selectors,
    repair: { enabled: values.repair === true, referenceProbes },
    globalRoutes,
    seed,
    maxEdits: parseWholeNumber(values['max-edits'], '--max-edits', 1) ?? 4,
    search: {
      ...DEFAULT_SEARCH,
      c: parseNumber(values['search-c'], '--search-c', (n) => n >= 0, 'a number >= 0') ?? DEFAULT_SEARCH.c,
      lambda: parseNumber(values['search-lambda'], '--search-lambda', (n) => n >= 0, 'a number >= 0') ?? DEFAULT_SEARCH.lambda,
    },
    deployment: readDeployment(values),
    grading: {
      correctBy: oneOf(values['correct-by'], '--correct-by', CORRECT_BY, DEFAULT_GRADING.correctBy),
      truncated: oneOf(values['grade-truncated'], '--grade-truncated', TRUNCATED_RULES, DEFAULT_GRADING.truncated),
    },
    chunkSize: parseWholeNumber(values.batch, '--batch', 1) ?? 32,
    maxBatch: parseWholeNumber(values['max-batch'], '--max-batch', 1),
  };
}

/**
 * The full run settings once the model's block count is known. `questions` is the size of the
 * whole selection (a shard passes its run's): too few, and the global-route pool is skipped with
 * the reason recorded (globalRoutePlan.ts).
 */
export function runSettings(pre: PreSettings, numBlocks: number, selection: RunSettings['selection'], questions: number): RunSettings {
  const skipped = pre.globalRoutes > 0 ? globalRouteSkipReason(questions) : undefined;
  const count = skipped ? 0 : pre.globalRoutes;
  return {
    deployment: pre.deployment,
    probes: pre.probes,
    probeDecoding: pre.probeDecoding,
    selectors: pre.selectors,
    repair: pre.repair,
    globalRoutes: { count, routes: count > 0 ? globalRoutePool(numBlocks, pre.seed, count, pre.maxEdits) : [], ...(skipped ? { skipped } : {}) },
    seeds: { run: pre.seed },
    routeSpace: { maxEdits: pre.maxEdits },
    search: pre.search,
    grading: pre.grading,
    selection,
  };
}
