/**
 * Typed audit options → what an audit runs with: the dataset, the chosen questions, the deployment,
 * the probes, selectors, repair scan, seeds and batching. Every check that does not need the model
 * happens here, before it loads; a bad value becomes one InputError naming the flag and what was
 * expected. The CLI and the engine service both come through here.
 */
import { InputError } from '../engine/index';
import { parseMemorySize, readRegularText } from '../common';

import { forkPlan, globalRoutePool, type ForkPlan } from '../audit/runner';
import { DEFAULT_ROUTER_FOLDS, DEFAULT_ROUTER_MODEL, ROUTER_FEATURE_DIMS, ROUTER_PROJECTION_SEED, ROUTER_STATE_DIMS, checkRouterFolds, checkStateBlock, defaultStateBlock, routerModelText } from '../audit/router';
import { readBenchmark, type Dataset, ANSWER_FORMATS, type AnswerFormat, type Question } from '../audit/dataset';
import { checkDeployment, DEFAULT_DEPLOYMENT, QUESTION_SLOT, PROMPT_TRUNCATIONS, DEFAULT_SEARCH, checkSampleDecoding, DEFAULT_PROBE_DECODING, DEFAULT_SAMPLE_DECODING, lengthBoundsOf, lengthBoundsProblem, routeLengthBounds, isRouteProbe, checkProbeBudget, parseProbeSpecs, parseSelectors, globalRouteSkipReason, sweepConstants } from '../audit/probes';
import { presetDeployment, readMmluDevSplit } from '../audit/presets';
import { parseThinkingMarkers, CORRECT_BY, DEFAULT_GRADING, TRUNCATED_RULES } from '../audit/answers';
import { SEARCH_REWARDS, type Deployment, type FewShotExample, type RunSettings, type DecodingRule, type ProbeDecoding, type GradingSettings, DEFAULT_SELECTORS, type LearnedRouteSettings, type PooledStateSettings, type RouterFeatureKind, type ProbeSpec, type ShardSelection } from '../contract';
import { parseShard, shardQuestions, shardSelection } from '../audit/store';
import { MOST_TEST_ERROR } from '../audit/stats';
import { AUDIT_DEFAULTS, DEFAULT_PROBES, FORECLOSURE_DEFAULTS, type AuditOptions } from './auditOptions';
import { checkAttemptsFitRecord } from './recordLineBudget';

/** The largest --fewshot or --template file read (a prompt, not a corpus). */
const MAX_PROMPT_FILE_BYTES = 16 * 1024 * 1024;

export async function readDataset(options: AuditOptions): Promise<Dataset> {
  if (!options.data) throw new InputError('--data: expected a benchmark file (JSONL, JSON or parquet) or a hub dataset folder');
  const format = options.format ?? 'auto';
  if (format !== 'auto' && !(ANSWER_FORMATS as readonly string[]).includes(format)) {
    throw new InputError(`--format ${format}: unknown answer format; expected auto, ${ANSWER_FORMATS.join(', ')}`);
  }
  if (format === 'regex' && !options.pattern) throw new InputError('--format regex needs --pattern REGEX (the prediction pattern)');
  if (options.split !== undefined && options.split.trim() === '') throw new InputError('--split: expected a split name such as test');
  // --limit reads a parquet benchmark's first rows only (--ids needs every row to find its ids).
  const limit = options.limit !== undefined && options.ids === undefined ? { limit: options.limit } : {};
  return readBenchmark(options.data, { format: format as AnswerFormat | 'auto', field: options.field, pattern: options.pattern, split: options.split, ...limit });
}

/** The questions of a run and how they were chosen (recorded in the manifest). */
export interface Selection {
  questions: Question[];
  limit: number | null;
  ids: string[] | null;
  /** With --shard: this run's share of the selection. */
  shard?: ShardSelection;
}

/** The questions chosen by limit / ids, in file order, then the shard's share of them (--shard). */
export function selectQuestions(dataset: Dataset, options: Pick<AuditOptions, 'limit' | 'ids' | 'shard'>): Selection {
  let questions = dataset.questions;
  const { ids, limit } = options;
  if (ids !== undefined) {
    if (ids.length === 0) throw new InputError('--ids: expected a comma-separated list of question ids');
    const known = new Set(questions.map((q) => q.id));
    const unknown = ids.filter((id) => !known.has(id));
    // The first few by name and a count: thousands of unknown ids would make a message of many KB.
    if (unknown.length > 0) throw new InputError(`--ids: no question with id ${unknown.slice(0, 10).map((u) => JSON.stringify(u.length > 80 ? `${u.slice(0, 80)}…` : u)).join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} in ${dataset.path}`);
    const wanted = new Set(ids);
    questions = questions.filter((q) => wanted.has(q.id));
  }
  if (limit !== undefined) questions = questions.slice(0, limit);
  if (options.shard !== undefined) {
    const spec = parseShard(options.shard);
    return { questions: shardQuestions(questions, spec), limit: limit ?? null, ids: ids ?? null, shard: shardSelection(questions, spec) };
  }
  return { questions, limit: limit ?? null, ids: ids ?? null };
}

function readFewShot(file: string): FewShotExample[] {
  let text: string;
  try {
    text = readRegularText(file, MAX_PROMPT_FILE_BYTES);
  } catch (err) {
    throw new InputError(`--fewshot ${file}: cannot read it (${(err as Error).message})`);
  }
  const out: FewShotExample[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new InputError(`--fewshot ${file}:${i + 1}: not valid JSON; expected {"user": "...", "assistant": "..."}`);
    }
    const o = v as Record<string, unknown>;
    if (typeof o?.user !== 'string' || typeof o?.assistant !== 'string') throw new InputError(`--fewshot ${file}:${i + 1}: expected string fields "user" and "assistant"`);
    out.push({ user: o.user, assistant: o.assistant });
  });
  return out;
}

/** A preset's deployment; a prompt of the user's own alongside it is refused, naming both. */
function presetFor(name: string, base: Deployment, options: AuditOptions): Deployment {
  if (name === 'deepseek-r1') {
    // The published setting has no system prompt, and is the model's chat template.
    const own = [options.prompt === 'raw' ? '--prompt raw' : undefined, options.template !== undefined ? '--template' : undefined, options.fewshot !== undefined ? '--fewshot' : undefined, options.system !== undefined ? '--system' : undefined].filter((x) => x !== undefined);
    if (own.length > 0) throw new InputError(`--preset ${name} is the model's chat template with the published directive and no system prompt; leave out ${own.join(', ')}`);
    return presetDeployment(name, base, undefined, { temperature: options.temperature, topP: options.topP });
  }
  const own = [
    options.prompt === 'chat' ? '--prompt chat' : undefined,
    options.template !== undefined ? '--template' : undefined,
    options.fewshot !== undefined ? '--fewshot' : undefined,
    options.system !== undefined ? '--system' : undefined,
    options.chatTemplateKwargs !== undefined && options.chatTemplateKwargs.trim() !== '' ? '--chat-template-kwargs' : undefined,
  ].filter((x) => x !== undefined);
  if (own.length > 0) throw new InputError(`--preset ${name} sets the whole prompt (a raw few-shot prompt); leave out ${own.join(', ')}`);
  if (options.fewshotFile !== undefined && name !== 'mmlu-5shot') throw new InputError(`--fewshot-file gives MMLU dev-split examples per subject; it is for --preset mmlu-5shot, not ${name}`);
  return presetDeployment(name, base, options.fewshotFile !== undefined ? readMmluDevSplit(options.fewshotFile) : undefined);
}

/** --chat-template-kwargs: a JSON object of template variables, for chat prompts only; nothing when empty. */
function readTemplateKwargs(value: string | undefined, prompt: 'chat' | 'raw'): Pick<Deployment, 'chatTemplateKwargs'> {
  if (value === undefined || value.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InputError(`--chat-template-kwargs ${value}: not JSON; expected an object such as '{"enable_thinking": false}'`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InputError(`--chat-template-kwargs ${value}: expected a JSON object such as '{"enable_thinking": false}'`);
  if (prompt !== 'chat') throw new InputError('--chat-template-kwargs sets chat-template variables: it is for --prompt chat, not a raw prompt or a --preset');
  const taken = Object.keys(parsed).filter((k) => k === 'messages' || k === 'add_generation_prompt');
  if (taken.length > 0) throw new InputError(`--chat-template-kwargs: ${taken.join(', ')} is the audit's own to set`);
  return Object.keys(parsed).length === 0 ? {} : { chatTemplateKwargs: parsed as Record<string, unknown> };
}

export function readDeployment(options: AuditOptions): Deployment {
  const prompt = options.prompt ?? 'chat';
  if (prompt !== 'chat' && prompt !== 'raw') throw new InputError(`--prompt ${prompt}: expected chat or raw`);
  let template: string | undefined;
  if (options.template !== undefined) {
    if (prompt !== 'raw') throw new InputError('--template is for --prompt raw');
    try {
      template = readRegularText(options.template, MAX_PROMPT_FILE_BYTES);
    } catch (err) {
      throw new InputError(`--template ${options.template}: cannot read it (${(err as Error).message})`);
    }
    if (!template.includes(QUESTION_SLOT)) throw new InputError(`--template ${options.template}: the template must contain ${QUESTION_SLOT}`);
  }
  let d: Deployment = {
    ...DEFAULT_DEPLOYMENT,
    prompt,
    ...(template !== undefined ? { template } : {}),
    ...(options.system !== undefined ? { system: options.system } : {}),
    ...readTemplateKwargs(options.chatTemplateKwargs, prompt),
    fewShot: options.fewshot ? readFewShot(options.fewshot) : [],
    maxNewTokens: options.maxNewTokens ?? DEFAULT_DEPLOYMENT.maxNewTokens,
    temperature: options.temperature ?? DEFAULT_DEPLOYMENT.temperature,
    topP: options.topP ?? DEFAULT_DEPLOYMENT.topP,
    stop: options.stop ?? [],
  };
  if (options.fewshotFile !== undefined && options.preset === undefined) throw new InputError('--fewshot-file is the dev split for --preset mmlu-5shot; give --preset mmlu-5shot with it (your own examples: --prompt raw --fewshot FILE)');
  if (options.preset !== undefined) d = presetFor(options.preset, d, options);
  const truncate = options.truncatePrompt ?? 'none';
  if (!(PROMPT_TRUNCATIONS as readonly string[]).includes(truncate)) throw new InputError(`--truncate-prompt ${truncate}: expected ${PROMPT_TRUNCATIONS.join(' or ')}`);
  // Absent means none, so manifests written before the flag existed still match on --resume.
  if (truncate === 'left') d.truncatePrompt = 'left';
  checkDeployment(d);
  return d;
}

/** Settings that do not need the model (checked before it loads). */
export interface PreSettings {
  probes: ProbeSpec[];
  probeDecoding: ProbeDecoding;
  selectors: RunSettings['selectors'];
  repair: RunSettings['repair'];
  /** --until-reached: probes stop at a question's first correct attempt. */
  untilReached: boolean;
  /** --depth-probe B. */
  depthProbe?: number;
  /** --foreclosure-window N with its test. */
  foreclosureWindow?: NonNullable<RunSettings['foreclosureWindow']>;
  /** --fork-probe B and --fork-positions N, as the run spends them. */
  forkProbe?: ForkPlan;
  globalRoutes: number;
  /** learned-route's cross-fitting folds; absent when learned-route is not selected. */
  routerFolds?: number;
  /** learned-route's features (--router-features) and, for the pooled state, --router-block as given (checked once the model loads). */
  routerFeatures?: { kind: RouterFeatureKind; block?: number };
  seed: number;
  maxEdits: number;
  search: RunSettings['search'];
  /** --min-route-length / --max-route-length as given (checked against the model once it loads). */
  routeLengths: { min?: number; max?: number };
  /** --search-preset published: the published length bounds for the model sizes they were given for. */
  publishedBounds: boolean;
  deployment: Deployment;
  /** Questions open at once (see questionPipeline.ts). */
  inFlight: number;
  maxBatch?: number;
  /** --kv-memory: a size in bytes, 'off' (no budget); absent: the default share of the memory available (kvMemoryPlan.ts). */
  kvMemory?: number | 'off';
  grading: GradingSettings;
  /** --thinking-markers as given; the run's markers are settled once the model loads (thinkingOfRun). */
  thinkingMarkers?: { open: string; close: string };
}

/** --kv-memory: `off` or `none` admits by --max-batch alone; anything else is a size. */
function readKvMemory(text: string): number | 'off' {
  return /^\s*(off|none)\s*$/i.test(text) ? 'off' : parseMemorySize(text, '--kv-memory');
}

function oneOf<T extends string>(value: string | undefined, flag: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new InputError(`${flag} ${value}: expected one of ${allowed.join(', ')}`);
  return value as T;
}

function readSampleDecoding(options: AuditOptions): DecodingRule {
  const rule = { temperature: options.sampleTemperature ?? DEFAULT_SAMPLE_DECODING.temperature, topP: options.sampleTopP ?? DEFAULT_SAMPLE_DECODING.topP };
  checkSampleDecoding(rule);
  return rule;
}

/** --foreclosure-window N and its test; the threshold and error alone, or the window without the depth probe, are refused. */
function readForeclosureWindow(options: AuditOptions): PreSettings['foreclosureWindow'] {
  if (options.foreclosureWindow === undefined) {
    const alone = options.foreclosureThreshold !== undefined ? '--foreclosure-threshold' : options.foreclosureError !== undefined ? '--foreclosure-error' : undefined;
    if (alone) throw new InputError(`${alone} sets the foreclosure window's test, which runs only with --foreclosure-window N; add it (e.g. --foreclosure-window 32) or leave out ${alone}`);
    return undefined;
  }
  if (options.depthProbe === undefined) throw new InputError(`--foreclosure-window ${options.foreclosureWindow} narrows the depth probe's bracket; add --depth-probe B (e.g. --depth-probe 4)`);
  checkProbeBudget(`--foreclosure-window ${options.foreclosureWindow}`, options.foreclosureWindow);
  // Above this the two boundaries of the test could meet (one sample path decided both ways).
  if (options.foreclosureError !== undefined && options.foreclosureError > MOST_TEST_ERROR) throw new InputError(`--foreclosure-error ${options.foreclosureError}: expected at most ${MOST_TEST_ERROR} (the chance of each wrong decision; 0.05 is the default)`);
  return {
    samples: options.foreclosureWindow,
    threshold: options.foreclosureThreshold ?? FORECLOSURE_DEFAULTS.threshold,
    error: options.foreclosureError ?? FORECLOSURE_DEFAULTS.error,
    look: FORECLOSURE_DEFAULTS.look,
  };
}

export function readPreSettings(options: AuditOptions): PreSettings {
  const probes = parseProbeSpecs(options.probes && options.probes.length > 0 ? options.probes : DEFAULT_PROBES);
  const selectors = parseSelectors((options.select ?? DEFAULT_SELECTORS).join(','));
  const run = probes.map((p) => p.name as string);
  let referenceProbes = run;
  if (options.referenceProbes !== undefined) {
    referenceProbes = options.referenceProbes;
    const bad = referenceProbes.filter((p) => !run.includes(p));
    if (referenceProbes.length === 0 || bad.length > 0) throw new InputError(`--reference-probes ${referenceProbes.join(',')}: expected probes of this run (${run.join(', ')})`);
  }
  const routeBudget = Math.max(0, ...probes.filter((p) => isRouteProbe(p.name)).map((p) => p.budget));
  // learned-route chooses among the global-route pool's routes: it needs the pool as global-route does.
  const wantsGlobal = (selectors.includes('global-route') || selectors.includes('learned-route')) && routeBudget > 0;
  const routerFolds = options.routerFolds ?? DEFAULT_ROUTER_FOLDS;
  const foldsProblem = checkRouterFolds(routerFolds);
  if (foldsProblem) throw new InputError(`--router-folds: ${foldsProblem}`);
  if (options.routerFolds !== undefined && !selectors.includes('learned-route')) throw new InputError('--router-folds: only learned-route uses folds; add it to --select (e.g. --select majority,confidence,global-route,learned-route)');
  if ((options.routerFeatures !== undefined || options.routerBlock !== undefined) && !selectors.includes('learned-route')) {
    throw new InputError(`--${options.routerFeatures !== undefined ? 'router-features' : 'router-block'}: only learned-route reads features; add it to --select (e.g. --select majority,confidence,global-route,learned-route)`);
  }
  const featureKind = readRouterFeatureKind(options.routerFeatures);
  if (options.routerBlock !== undefined && featureKind === 'prompt-token-hash') throw new InputError('--router-block: only the pooled state is read at a block; add --router-features state (or both)');
  const globalRoutes = wantsGlobal ? (options.globalRoutes ?? routeBudget) : 0;
  if (options.globalRoutes !== undefined) checkProbeBudget(`--global-routes ${options.globalRoutes}`, options.globalRoutes);
  if (options.depthProbe !== undefined) checkProbeBudget(`--depth-probe ${options.depthProbe}`, options.depthProbe);
  const deployment = readDeployment(options);
  checkAttemptsFitRecord({ probes, globalRoutes, ...(options.depthProbe !== undefined ? { depthProbe: options.depthProbe } : {}) }, deployment.maxNewTokens);
  const foreclosureWindow = readForeclosureWindow(options);
  if (options.forkProbe !== undefined) checkProbeBudget(`--fork-probe ${options.forkProbe}`, options.forkProbe);
  if (options.forkPositions !== undefined && options.forkProbe === undefined) throw new InputError('--fork-positions: only the fork probe uses positions; add --fork-probe B');
  const seed = options.seed ?? AUDIT_DEFAULTS.seed;
  if (options.searchPreset !== undefined && options.searchPreset !== 'published') throw new InputError(`--search-preset ${options.searchPreset}: expected published`);
  const published = options.searchPreset === 'published';
  if (seed > 0xffffffff) throw new InputError(`--seed: expected a whole number from 0 to 4294967295, got '${seed}'`);
  return {
    probes,
    probeDecoding: { ...DEFAULT_PROBE_DECODING, sample: readSampleDecoding(options) },
    selectors,
    repair: { enabled: options.repair === true, referenceProbes },
    untilReached: options.untilReached === true,
    ...(options.depthProbe !== undefined ? { depthProbe: options.depthProbe } : {}),
    ...(foreclosureWindow ? { foreclosureWindow } : {}),
    ...(options.forkProbe !== undefined ? { forkProbe: forkPlan(options.forkProbe, options.forkPositions) } : {}),
    globalRoutes,
    ...(selectors.includes('learned-route') ? { routerFolds, routerFeatures: { kind: featureKind, ...(options.routerBlock !== undefined ? { block: options.routerBlock } : {}) } } : {}),
    seed,
    maxEdits: options.maxEdits ?? AUDIT_DEFAULTS.maxEdits,
    search: {
      c: options.searchC ?? (published ? PUBLISHED_SEARCH.c : DEFAULT_SEARCH.c),
      lambda: options.searchLambda ?? (published ? PUBLISHED_SEARCH.lambda : DEFAULT_SEARCH.lambda),
      exploration: options.searchRandomChild ?? DEFAULT_SEARCH.exploration,
      widening: readWidening(options.searchWidening),
      // Recorded only when not the default, so every manifest that reads as the 0/1 search stays as it was.
      // The dense reward's wrong routes span a narrow band (0–0.5), far below the exploration term's
      // steps: the tree compares them in units of their spread on this question (docs/design/probes.md, "Search reward").
      ...(oneOf(options.searchReward, '--search-reward', SEARCH_REWARDS, 'correct') === 'gold-logprob' ? { reward: 'gold-logprob' as const, rewardScale: 'spread' as const } : {}),
      ...(options.searchSweep === true ? { sweep: sweepConstants(options.searchC ?? (published ? PUBLISHED_SEARCH.c : DEFAULT_SEARCH.c)) } : {}),
    },
    routeLengths: readRouteLengths(options),
    publishedBounds: published && options.minRouteLength === undefined && options.maxRouteLength === undefined,
    deployment,
    grading: {
      correctBy: oneOf(options.correctBy, '--correct-by', CORRECT_BY, DEFAULT_GRADING.correctBy),
      truncated: oneOf(options.gradeTruncated, '--grade-truncated', TRUNCATED_RULES, DEFAULT_GRADING.truncated),
    },
    ...(options.thinkingMarkers !== undefined && options.thinkingMarkers.trim() !== '' ? { thinkingMarkers: parseThinkingMarkers(options.thinkingMarkers) } : {}),
    inFlight: options.batch ?? AUDIT_DEFAULTS.batch,
    maxBatch: options.maxBatch,
    ...(options.kvMemory !== undefined && options.kvMemory.trim() !== '' ? { kvMemory: readKvMemory(options.kvMemory) } : {}),
  };
}

/**
 * --search-preset published: the constants of the released Chain-of-Layers MCTS (docs/design/probes.md,
 * "Deviations"): c = √2, λ = 5, and its length bounds for the model sizes it lists (other sizes keep
 * ours). Flags given beside it win. The UCB's root-count form and its descent without widening are
 * not offered, so this is the published search's constants, not its walk.
 */
export const PUBLISHED_SEARCH = {
  c: Math.SQRT2,
  lambda: 5,
  lengthBounds: { 28: { min: 16, max: 32 }, 36: { min: 24, max: 44 }, 48: { min: 36, max: 54 } } as Record<number, { min: number; max: number }>,
};

function readWidening(value: string | undefined): number | 'off' {
  if (value === undefined) return DEFAULT_SEARCH.widening;
  if (value.trim() === 'off') return 'off';
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InputError(`--search-widening: expected a number from 0 to 1 (the exponent α) or off, got '${value}'`);
  return n;
}

function readRouteLengths(options: AuditOptions): PreSettings['routeLengths'] {
  const { minRouteLength: min, maxRouteLength: max } = options;
  if (min !== undefined && max !== undefined && min > max) throw new InputError(`--min-route-length ${min} is above --max-route-length ${max}`);
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

/** The route space for an L-block model: the bounds given, else the model's defaults; bounds that leave out the identity are refused. */
export function routeSpaceFor(pre: PreSettings, numBlocks: number): RunSettings['routeSpace'] {
  const d = (pre.publishedBounds ? PUBLISHED_SEARCH.lengthBounds[numBlocks] : undefined) ?? routeLengthBounds(numBlocks);
  const bounds = { min: pre.routeLengths.min ?? d.min, max: pre.routeLengths.max ?? d.max };
  const problem = lengthBoundsProblem(bounds, numBlocks);
  if (problem) throw new InputError(`--min-route-length/--max-route-length: ${problem}`);
  return { maxEdits: pre.maxEdits, minLength: bounds.min, maxLength: bounds.max };
}

/** --router-features in the manifest's words: hash, state or both. */
function readRouterFeatureKind(text: string | undefined): RouterFeatureKind {
  if (text === undefined || text === 'hash') return 'prompt-token-hash';
  if (text === 'state') return 'pooled-state';
  if (text === 'both') return 'both';
  throw new InputError(`--router-features ${text}: expected hash, state or both`);
}

/** What a learned-route run records of its router (the model is the one summaries fit). */
function learnedRouteSettings(folds: number, features: NonNullable<PreSettings['routerFeatures']>, numBlocks: number): LearnedRouteSettings {
  let state: PooledStateSettings | undefined;
  if (features.kind !== 'prompt-token-hash') {
    const block = features.block ?? defaultStateBlock(numBlocks);
    const problem = checkStateBlock(block, numBlocks);
    if (problem) throw new InputError(`--router-block: ${problem}`);
    state = { block, dims: ROUTER_STATE_DIMS, projectionSeed: ROUTER_PROJECTION_SEED };
  }
  return { folds, features: { kind: features.kind, dims: ROUTER_FEATURE_DIMS, ...(state ? { state } : {}) }, model: routerModelText(DEFAULT_ROUTER_MODEL), candidates: 'global-route pool' };
}

/** Why a ceiling-only run has no global-route pool (recorded as `globalRoutes.skipped`). */
export const UNTIL_REACHED_POOL_SKIPPED = 'global-route selection skipped: --until-reached audits the reachable ceiling only, and the shared route pool serves only that answer-blind selector';

/**
 * The full run settings once the model's block count is known. `questions` is the size of the
 * whole selection (a shard passes its run's): too few, and the global-route pool is skipped with
 * the reason recorded (globalRoutePlan.ts).
 */
export function runSettings(pre: PreSettings, numBlocks: number, selection: RunSettings['selection'], questions: number): RunSettings {
  // The pool serves only the global-route selector, an answer-blind pick; a ceiling-only run makes none (and the pool is no probe, so it adds nothing to the ceiling).
  const skipped = pre.globalRoutes > 0 ? (pre.untilReached ? UNTIL_REACHED_POOL_SKIPPED : globalRouteSkipReason(questions)) : undefined;
  const count = skipped ? 0 : pre.globalRoutes;
  const routeSpace = routeSpaceFor(pre, numBlocks);
  return {
    deployment: pre.deployment,
    probes: pre.probes,
    probeDecoding: pre.probeDecoding,
    selectors: pre.selectors,
    repair: pre.repair,
    globalRoutes: { count, routes: count > 0 ? globalRoutePool(numBlocks, pre.seed, count, pre.maxEdits, lengthBoundsOf(routeSpace, numBlocks)) : [], ...(skipped ? { skipped } : {}) },
    // Recorded only with learned-route, so every other run's manifest stays as it was; no pool, no router.
    ...(pre.routerFolds !== undefined && count > 0 ? { learnedRoute: learnedRouteSettings(pre.routerFolds, pre.routerFeatures ?? { kind: 'prompt-token-hash' }, numBlocks) } : {}),
    seeds: { run: pre.seed },
    routeSpace,
    search: pre.search,
    grading: pre.grading,
    // Recorded only when set, so every full run's manifest stays as it was.
    ...(pre.untilReached ? { untilReached: true as const } : {}),
    ...(pre.depthProbe !== undefined ? { depthProbe: { budget: pre.depthProbe } } : {}),
    ...(pre.foreclosureWindow ? { foreclosureWindow: pre.foreclosureWindow } : {}),
    ...(pre.forkProbe !== undefined ? { forkProbe: { ...pre.forkProbe } } : {}),
    selection,
  };
}
