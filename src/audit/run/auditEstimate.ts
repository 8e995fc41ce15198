/**
 * What an audit will cost. Before it starts: generations planned per question by stage, tokens and
 * time from a short measured warm-up (estimateAudit). While it runs: the time left from what this
 * session has measured (generated tokens per second and tokens per generation). No estimate is
 * given before one is measured: the time left needs a finished question (its share of repair
 * scans, its tokens per generation).
 */
import type { Generation, TextGenerator } from '../../engine/types';
import type { Question } from '../dataset/question';
import { deploymentRequest } from '../probes/deployment';
import { decodingOf } from '../probes/probeDecoding';
import { seedFor } from '../results/stats';
import type { RunSettings } from './manifest';
import { startRecord } from './questionSteps';

/** Generations per question by stage; `repair` is per scanned question (in the failure set, or realized). */
export function plannedGenerations(settings: RunSettings, numBlocks: number): { byStage: Record<string, number>; repairPerScanned: number } {
  const byStage: Record<string, number> = { deployment: 1 };
  for (const p of settings.probes) byStage[p.name] = p.budget;
  if (settings.globalRoutes.routes.length > 0) byStage['global-routes'] = settings.globalRoutes.routes.length;
  return { byStage, repairPerScanned: settings.repair.enabled ? numBlocks : 0 };
}

export interface SessionWork {
  /** Questions this session set out to audit. */
  questions: number;
  doneQuestions: number;
  /** Of the done questions, those whose repair scan ran. */
  scannedQuestions: number;
  generations: number;
  generatedTokens: number;
  elapsedMs: number;
}

/** Milliseconds left, or undefined until a question has finished and tokens have been timed. */
export function remainingMs(plan: ReturnType<typeof plannedGenerations>, w: SessionWork): number | undefined {
  if (w.doneQuestions === 0 || w.generations === 0 || w.generatedTokens === 0 || w.elapsedMs <= 0) return undefined;
  const perQuestion = Object.values(plan.byStage).reduce((a, b) => a + b, 0) + (w.scannedQuestions / w.doneQuestions) * plan.repairPerScanned;
  const left = Math.max(0, w.questions * perQuestion - w.generations);
  const tokensPerGeneration = w.generatedTokens / w.generations;
  const tokensPerMs = w.generatedTokens / w.elapsedMs;
  return (left * tokensPerGeneration) / tokensPerMs;
}

/** What an audit is planned to cost, before it starts, from a short measured warm-up. */
export interface AuditEstimate {
  questions: number;
  /** Generations per question by stage, before the repair scan. */
  perQuestion: Record<string, number>;
  /** Generations per question the repair scan adds, for the questions it scans (0: no scan). */
  repairPerScanned: number;
  /** Generations in all: without any repair scan, and with one on every question. */
  generations: { least: number; most: number };
  /** Tokens one generation is expected to take: the warm-up's length where it stopped, else the token budget. */
  tokensPerGeneration: number;
  warmUp: { sequences: number; tokens: number; seconds: number; tokensPerSecond: number };
  /** Time the estimated tokens take at the warm-up's speed. */
  seconds: { least: number; most: number };
}

/** Warm-up sequences: enough to fill a batch row set, short enough to take seconds. */
const WARM_UP_SEQUENCES = 16;
const WARM_UP_TOKENS = 16;

/**
 * Times a few sampled generations of the first question that fits, then plans the audit. The
 * warm-up's outputs are discarded (the audit draws its own), so the records do not depend on it.
 * Returns undefined when no question can be generated (all skipped) or the run was stopped.
 */
export async function estimateAudit(model: TextGenerator, questions: readonly Question[], settings: RunSettings, signal?: AbortSignal): Promise<AuditEstimate | undefined> {
  const d = settings.deployment;
  let ids: number[] | null = null;
  let first: Question | undefined;
  for (const q of questions) {
    ids = startRecord(q, settings, model).ids;
    if (ids) {
      first = q;
      break;
    }
  }
  if (!ids || !first) return undefined;
  const maxNewTokens = Math.min(d.maxNewTokens, WARM_UP_TOKENS);
  const rule = settings.probeDecoding.sample;
  const requests = Array.from({ length: WARM_UP_SEQUENCES }, (_, a) => ({
    ...deploymentRequest(d, ids as number[], decodingOf(rule, seedFor(settings.seeds.run, (first as Question).id, 'warm-up', a))),
    maxNewTokens,
  }));
  const started = performance.now();
  let out: Generation[];
  try {
    out = await model.generate(requests, signal);
  } catch (err) {
    if (signal?.aborted) return undefined;
    throw err;
  }
  const seconds = (performance.now() - started) / 1000;
  const tokens = out.reduce((n, g) => n + g.tokens.length, 0);
  // An output that stopped gives its length; one cut at the warm-up's limit may run to the budget.
  const tokensPerGeneration = out.reduce((n, g) => n + (g.finishReason === 'stop' ? g.tokens.length : d.maxNewTokens), 0) / out.length;
  const plan = plannedGenerations(settings, model.numBlocks);
  const perQuestionLeast = Object.values(plan.byStage).reduce((a, b) => a + b, 0);
  const generations = { least: questions.length * perQuestionLeast, most: questions.length * (perQuestionLeast + plan.repairPerScanned) };
  const tokensPerSecond = seconds > 0 ? tokens / seconds : 0;
  const time = (n: number) => (tokensPerSecond > 0 ? (n * tokensPerGeneration) / tokensPerSecond : Infinity);
  return {
    questions: questions.length,
    perQuestion: plan.byStage,
    repairPerScanned: plan.repairPerScanned,
    generations,
    tokensPerGeneration,
    warmUp: { sequences: out.length, tokens, seconds, tokensPerSecond },
    seconds: { least: time(generations.least), most: time(generations.most) },
  };
}

/** The plan and its estimate in words (the CLI and the extension show the same text). */
export function estimateText(e: AuditEstimate, duration: (ms: number) => string = formatDuration): { plan: string; cost: string } {
  const stages = Object.entries(e.perQuestion).map(([s, n]) => `${s} ${n}`).join(' + ');
  const repair = e.repairPerScanned > 0 ? `, + repair ${e.repairPerScanned} per scanned question (up to ${e.generations.most})` : '';
  const w = e.warmUp;
  const tokens = (n: number) => Math.round(n * e.tokensPerGeneration).toLocaleString('en-US');
  const range = e.repairPerScanned > 0;
  const time = range ? `${duration(e.seconds.least * 1000)}–${duration(e.seconds.most * 1000)}` : duration(e.seconds.least * 1000);
  return {
    plan: `${e.questions} question${e.questions === 1 ? '' : 's'} × (${stages}) = ${e.generations.least} generations${repair}`,
    cost:
      `about ${tokens(e.generations.least)}${range ? `–${tokens(e.generations.most)}` : ''} tokens (${e.tokensPerGeneration.toFixed(0)} per generation), ` +
      `about ${time} at ${w.tokensPerSecond.toFixed(1)} tokens/s (measured warm-up: ${w.sequences} sequences, ${w.tokens} tokens in ${w.seconds.toFixed(1)} s)`,
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
