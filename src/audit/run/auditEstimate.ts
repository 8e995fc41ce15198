/**
 * What an audit will cost: generations planned per question by stage, and the time left, from
 * what this session has measured (generated tokens per second and tokens per generation). No
 * estimate is given before one is measured: the time left needs a finished question (its share
 * of repair scans, its tokens per generation).
 */
import type { RunSettings } from './manifest';

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
