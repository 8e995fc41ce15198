/**
 * What an audit will cost. Before it starts: generations planned per question by stage, tokens and
 * time from a short measured warm-up (estimateAudit). While it runs: the time left from what this
 * session has measured: timeLeft.ts.
 */
import { memorySizeText } from '../../common';
import type { Generation, GenerationRequest, TextGenerator } from '../../engine';
import type { Question } from '../dataset';
import { deploymentRequest, decodingOf, drawQuestionRoutes, lengthBoundsOf, type FittedPrompts } from '../probes';
import { seedFor, seededRandom } from '../stats';
import type { LearnedRouteSettings, RunSettings } from '../../contract';
import { auditDecodings, startRecord } from './questionSteps';
import { MOST_DEPTH_CUTS } from './depthOfLoss';
import { mostForeclosurePrefixes } from './foreclosureWindow';

/**
 * Generations per question by stage; `repair` is per scanned question (in the failure set, or
 * realized), the depth probe's per failure-set question (B from each of at most five prefixes), and
 * the fork probe's per unrealized question (at most B).
 */
export function plannedGenerations(settings: RunSettings, numBlocks: number): { byStage: Record<string, number>; repairPerScanned: number; depthPerFailure: number; foreclosurePerFailure: number; forkPerUnrealized: number } {
  const byStage: Record<string, number> = { deployment: 1 };
  for (const p of settings.probes) byStage[p.name] = p.budget;
  if (settings.globalRoutes.routes.length > 0) byStage['global-routes'] = settings.globalRoutes.routes.length;
  const depthPerFailure = settings.depthProbe ? MOST_DEPTH_CUTS * settings.depthProbe.budget : 0;
  const foreclosurePerFailure = settings.depthProbe && settings.foreclosureWindow ? mostForeclosurePrefixes(settings.deployment.maxNewTokens) * settings.foreclosureWindow.samples : 0;
  return { byStage, repairPerScanned: settings.repair.enabled ? numBlocks : 0, depthPerFailure, foreclosurePerFailure, forkPerUnrealized: settings.forkProbe?.budget ?? 0 };
}

/** What an audit is planned to cost, before it starts, from a short measured warm-up. */
export interface AuditEstimate {
  questions: number;
  /** Generations per question by stage, before the repair scan. */
  perQuestion: Record<string, number>;
  /** Generations per question the repair scan adds, for the questions it scans (0: no scan). */
  repairPerScanned: number;
  /** --depth-probe: the most generations it adds per failure-set question (absent without it). */
  depthPerFailure?: number;
  /** --foreclosure-window: the most generations it adds per failure-set question (absent without it). */
  foreclosurePerFailure?: number;
  /** --fork-probe: the most generations it adds per question the deployment does not realize (absent without it). */
  forkPerUnrealized?: number;
  /** --until-reached: each probe stops at its first correct attempt, so its budget is an upper bound. */
  untilReached?: boolean;
  /** Generations in all: without any repair scan or depth probe, and with both on every question. */
  generations: { least: number; most: number };
  /**
   * Tokens one generation is expected to take, as a range: an output that stopped in the warm-up
   * counts its length at both ends; one still going at the warm-up's limit counts that limit at
   * `least` and the token budget at `most` (measured on the demo: 63 per generation taken at the
   * budget alone vs 30 in the run).
   */
  tokensPerGeneration: { least: number; most: number };
  /**
   * The warm-up: `sequences` of the first question's own requests, run once for their first token
   * (prompt costs) and once for more tokens (decode cost); `tokensPerSecond` is the speed this
   * run's generations get from those two costs at `tokensPerGeneration.most` tokens each.
   */
  warmUp: { sequences: number; tokens: number; seconds: number; tokensPerSecond: number; promptSecondsPerGeneration?: number; decodeSecondsPerToken?: number };
  /**
   * Time at the warm-up's costs: `least` for the fewest generations (no repair scan) at the fewest
   * tokens each, `most` for the most generations at the most tokens.
   */
  seconds: { least: number; most: number };
  /** What the run holds in memory on the local engine, added by the service once the KV plan is made (absent for servers). */
  memory?: EstimateMemory;
  /** learned-route: no generations of its own; what it reads and when it is fit (absent without it). */
  learnedRoute?: { folds: number; poolSize: number; features: LearnedRouteSettings['features'] };
}

/**
 * The memory an audit's model and sequences come to hold: the weights as the engine keeps them, and
 * the most KV cache its sequences can hold at once (each sequence's largest need × how many run at
 * once). Working buffers, the caches of prompts prefilled ahead, the prefix store and the runtime
 * are not in it.
 */
export interface EstimateMemory {
  weightBytes: number;
  weights: 'f32' | 'int8';
  /** The largest KV need of one sequence of the run (service/kvMemoryPlan.ts). */
  kvPerSequenceBytes: number;
  /** Sequences at once: --max-batch, or fewer under the KV budget. */
  atOnce: number;
}

/** Warm-up requests per probe (and of the route pool), beside the deployment. */
const WARM_UP_PER_PROBE = 8;
/** Tokens the warm-up's second pass generates per sequence. */
const WARM_UP_TOKENS = 16;

/**
 * The warm-up's requests: the first question's own, as the audit makes them (the deployment, the
 * sample probe's shared prompt, random routes for the route probes and the pool), a few per probe.
 * The mix matters: routed attempts prefill their prompts one by one and split the batch's block
 * calls, so a warm-up of shared-prompt samples alone measured the demo audit 2.9x too fast.
 */
function warmUpRequests(model: TextGenerator, q: Question, ids: number[], settings: RunSettings): GenerationRequest[] {
  const d = settings.deployment;
  const seed = settings.seeds.run;
  const L = model.numBlocks;
  const { routed, sampled } = auditDecodings(settings);
  const requests: GenerationRequest[] = [deploymentRequest(d, ids, decodingOf(d, seedFor(seed, q.id, 'warm-up')))];
  for (const p of settings.probes) {
    const n = Math.min(p.budget, WARM_UP_PER_PROBE);
    if (p.name === 'sample') {
      for (let a = 0; a < n; a++) requests.push(deploymentRequest(d, ids, sampled(seedFor(seed, q.id, 'warm-up-sample', a))));
      continue;
    }
    // Route search proposes routes of the same space one at a time; random ones cost the same.
    const routes = drawQuestionRoutes(L, n, (a) => seededRandom(seed, q.id, `warm-up-${p.name}`, a), settings.routeSpace.maxEdits, lengthBoundsOf(settings.routeSpace, L));
    routes.forEach((route, a) => requests.push(deploymentRequest(d, ids, routed(q.id, `warm-up-${p.name}`, a), { route })));
  }
  settings.globalRoutes.routes.slice(0, WARM_UP_PER_PROBE).forEach((route, a) => requests.push(deploymentRequest(d, ids, routed(q.id, 'warm-up-pool', a), { route })));
  return requests;
}

/**
 * Times the first question that fits, then plans the audit. The warm-up runs the question's own
 * request mix twice: for one token (prompt costs: prefill and the first token) and for up to
 * WARM_UP_TOKENS (the difference is the decode cost per token at this batch). A generation of g
 * tokens then costs prompt + (g - 1) × decode. The warm-up's outputs are discarded (the audit draws
 * its own), so the records do not depend on it. Returns undefined when no question can be
 * generated (all skipped) or the run was stopped.
 */
export async function estimateAudit(model: TextGenerator, questions: readonly Question[], settings: RunSettings, signal?: AbortSignal, clockMs: () => number = () => performance.now(), fittedPrompts?: FittedPrompts): Promise<AuditEstimate | undefined> {
  const d = settings.deployment;
  let ids: number[] | null = null;
  let first: Question | undefined;
  for (const q of questions) {
    // Peeked, not taken: the question's own run takes the fit later.
    ids = startRecord(q, settings, model, fittedPrompts ? { prompts: fittedPrompts, peek: true } : undefined).ids;
    if (ids) {
      first = q;
      break;
    }
  }
  if (!ids || !first) return undefined;
  const requests = warmUpRequests(model, first, ids, settings);
  const timed = async (maxNewTokens: number, which = requests): Promise<{ out: Generation[]; seconds: number } | undefined> => {
    const started = clockMs();
    try {
      const out = await model.generate(which.map((r) => ({ ...r, maxNewTokens })), signal);
      return { out, seconds: (clockMs() - started) / 1000 };
    } catch (err) {
      if (signal?.aborted) return undefined;
      throw err;
    }
  };
  // Untimed: the process's first generation pays for compiling JavaScript and the sessions' first
  // runs (measured on the demo: 1,648 tokens/s for the audit's first model vs 3,485 for its second).
  const warmed = await timed(Math.min(d.maxNewTokens, 1), requests.slice(0, 2));
  if (!warmed) return undefined;
  const prompts = await timed(Math.min(d.maxNewTokens, 1));
  if (!prompts) return undefined;
  const counter = d.maxNewTokens > 1 ? decodePace(model, requests.length, clockMs) : undefined;
  let longer: Awaited<ReturnType<typeof timed>>;
  let pace: number | undefined;
  try {
    longer = d.maxNewTokens > 1 ? await timed(Math.min(d.maxNewTokens, WARM_UP_TOKENS)) : prompts;
  } finally {
    pace = counter?.stop();
  }
  if (!longer) return undefined;
  const count = (out: Generation[]) => out.reduce((n, g) => n + g.tokens.length, 0);
  const tokens = count(longer.out);
  // An output that stopped gives its length; one cut at the warm-up's limit may run to the budget.
  const perGeneration = (cut: number) => longer.out.reduce((n, g) => n + (g.finishReason === 'stop' ? g.tokens.length : cut), 0) / longer.out.length;
  const tokensPerGeneration = { least: perGeneration(Math.min(d.maxNewTokens, WARM_UP_TOKENS)), most: perGeneration(d.maxNewTokens) };
  // Each pass costs n × prompt + (its tokens - n) × decode: two equations for the two costs.
  const n = requests.length;
  const k1 = count(prompts.out);
  const extraTokens = tokens - k1;
  // Where the engine counts its tokens, the decode cost is the pace of the longer pass once every
  // first token is out; else the two passes' difference (timing noise can make the longer pass
  // look no slower: then its own average speed stands).
  const decodeSeconds =
    pace !== undefined ? pace : extraTokens > 0 && longer.seconds > prompts.seconds ? (longer.seconds - prompts.seconds) / extraTokens : longer.seconds / Math.max(1, tokens);
  const promptSeconds = Math.max(0, prompts.seconds - Math.max(0, k1 - n) * decodeSeconds) / n;
  const secondsPer = (g: number) => promptSeconds + Math.max(0, g - 1) * decodeSeconds;
  const plan = plannedGenerations(settings, model.numBlocks);
  const perQuestionAll = Object.values(plan.byStage).reduce((a, b) => a + b, 0);
  // --until-reached: a probe that hits on its first attempt makes one generation; one that never hits, its budget.
  const perQuestionLeast = settings.untilReached ? perQuestionAll - settings.probes.reduce((a, p) => a + p.budget - 1, 0) : perQuestionAll;
  const generations = { least: questions.length * perQuestionLeast, most: questions.length * (perQuestionAll + plan.repairPerScanned + plan.depthPerFailure + plan.foreclosurePerFailure + plan.forkPerUnrealized) };
  const tokensPerSecond = secondsPer(tokensPerGeneration.most) > 0 ? tokensPerGeneration.most / secondsPer(tokensPerGeneration.most) : 0;
  const time = (n: number, g: number) => (secondsPer(g) > 0 ? n * secondsPer(g) : Infinity);
  return {
    questions: questions.length,
    perQuestion: plan.byStage,
    ...(settings.untilReached ? { untilReached: true } : {}),
    repairPerScanned: plan.repairPerScanned,
    ...(plan.depthPerFailure > 0 ? { depthPerFailure: plan.depthPerFailure } : {}),
    ...(plan.foreclosurePerFailure > 0 ? { foreclosurePerFailure: plan.foreclosurePerFailure } : {}),
    ...(plan.forkPerUnrealized > 0 ? { forkPerUnrealized: plan.forkPerUnrealized } : {}),
    ...(settings.learnedRoute && settings.globalRoutes.routes.length > 0 ? { learnedRoute: { folds: settings.learnedRoute.folds, poolSize: settings.globalRoutes.routes.length, features: settings.learnedRoute.features } } : {}),
    generations,
    tokensPerGeneration,
    warmUp: { sequences: requests.length, tokens, seconds: prompts.seconds + longer.seconds, tokensPerSecond, promptSecondsPerGeneration: promptSeconds, decodeSecondsPerToken: decodeSeconds },
    seconds: { least: time(generations.least, tokensPerGeneration.least), most: time(generations.most, tokensPerGeneration.most) },
  };
}

/** How often the warm-up reads the engine's token count while its longer pass runs. */
const PACE_POLL_MS = 10;

/**
 * Seconds per decoded token in the warm-up's longer pass, from the engine's own token count: from
 * the first reading at which every sequence has its first token (the prompts are done) to the
 * pass's end. The difference of the two passes' times measured it instead, which mixes in whatever
 * the prompts cost the second time (the engine's prefix store serves them from what the first pass
 * computed) and the noise of two prefill-heavy timings: on 8 GSM8K questions of the 0.5B shape two
 * runs of the same warm-up put the audit at 1h13m and 7m29s at most; it took 24m33s.
 * Undefined where the backend counts no tokens (a server) or too few were read.
 */
function decodePace(model: TextGenerator, sequences: number, clockMs: () => number): { stop(): number | undefined } | undefined {
  const base = model.tokensGenerated;
  if (base === undefined) return undefined;
  let first: { at: number; tokens: number } | undefined;
  const read = () => {
    const tokens = (model.tokensGenerated ?? base) - base;
    if (!first && tokens >= sequences) first = { at: clockMs(), tokens };
  };
  const timer = setInterval(read, PACE_POLL_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const end = { at: clockMs(), tokens: (model.tokensGenerated ?? base) - base };
      if (!first || end.tokens - first.tokens < sequences || end.at <= first.at) return undefined;
      return (end.at - first.at) / 1000 / (end.tokens - first.tokens);
    },
  };
}

/** learned-route's own estimate line: it adds no generation, and its features no pass. */
export function learnedRouteEstimateText(l: NonNullable<AuditEstimate['learnedRoute']>): string {
  const state = l.features.state;
  const reads =
    l.features.kind === 'prompt-token-hash'
      ? `the prompt's token ids in ${l.features.dims} hash buckets`
      : `${l.features.kind === 'both' ? `the prompt's token ids in ${l.features.dims} hash buckets and ` : ''}the prompt's mean residual after block ${state?.block ?? '?'}, read during the deployment's own prefill (no extra pass) and recorded as ${state?.dims ?? '?'} numbers per question`;
  return (
    `no generations of its own: each question takes one of the ${l.poolSize} pool routes (already in the plan), chosen after the run by a router fit only on the other ${l.folds - 1} of ${l.folds} folds; ` +
    `it reads ${reads}; the fit (one logistic regression per pool route per fold, twice with the shuffled control) takes well under a second per hundred questions`
  );
}

/** The plan and its estimate in words (the CLI and the extension show the same text). */
export function estimateText(e: AuditEstimate, duration: (ms: number) => string = formatDuration): { plan: string; cost: string; learnedRoute?: string } {
  const m = e.memory;
  const memory = m
    ? `; memory: about ${memorySizeText(m.weightBytes)} of ${m.weights} weights + up to ${memorySizeText(m.kvPerSequenceBytes * m.atOnce)} of KV cache ` +
      `(${m.atOnce} sequence${m.atOnce === 1 ? '' : 's'} at once × ${memorySizeText(m.kvPerSequenceBytes)}), not counting working buffers, prompts prefilled ahead or the prefix store`
    : '';
  const stages = Object.entries(e.perQuestion).map(([s, n]) => `${s} ${n}`).join(' + ');
  const extras = [
    ...(e.repairPerScanned > 0 ? [`repair ${e.repairPerScanned} per scanned question`] : []),
    ...(e.depthPerFailure ? [`depth probe up to ${e.depthPerFailure} per failure-set question`] : []),
    ...(e.foreclosurePerFailure ? [`foreclosure window up to ${e.foreclosurePerFailure} per failure-set question`] : []),
    ...(e.forkPerUnrealized ? [`fork probe up to ${e.forkPerUnrealized} per unrealized question`] : []),
  ];
  const repair = extras.length > 0 ? `, + ${extras.join(' + ')} (up to ${e.generations.most})` : '';
  const w = e.warmUp;
  const tokens = (n: number, perGeneration: number) => Math.round(n * perGeneration).toLocaleString('en-US');
  const { least, most } = e.tokensPerGeneration;
  // A range whose ends read the same ("4s–4s", "9,000–9,000") is said once.
  const span = (a: string, b: string) => (a === b ? a : `${a}–${b}`);
  const perGeneration = span(least.toFixed(0), most.toFixed(0));
  const open = most > least ? '; outputs not stopped within the warm-up may run to the token budget' : '';
  return {
    plan: e.untilReached
      ? `${e.questions} question${e.questions === 1 ? '' : 's'} × (${stages}), each probe stopping at its first correct attempt (--until-reached) = ${e.generations.least}–${e.questions * Object.values(e.perQuestion).reduce((a, b) => a + b, 0)} generations${repair}`
      : `${e.questions} question${e.questions === 1 ? '' : 's'} × (${stages}) = ${e.generations.least} generations${repair}`,
    cost:
      `about ${span(tokens(e.generations.least, least), tokens(e.generations.most, most))} tokens (${perGeneration} per generation${open}), ` +
      `about ${span(duration(e.seconds.least * 1000), duration(e.seconds.most * 1000))} at ${w.tokensPerSecond.toFixed(1)} tokens/s (measured warm-up: ${w.sequences} of the first question's requests, ${w.tokens} tokens in ${w.seconds.toFixed(1)} s)${memory}`,
    ...(e.learnedRoute ? { learnedRoute: learnedRouteEstimateText(e.learnedRoute) } : {}),
  };
}

/** 1h05m, 3m07s, 42s; a dash for a time that is not known. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}
