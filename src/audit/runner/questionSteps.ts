/**
 * What both audit runners (questionPipeline.ts, and the stage-by-stage stagedPipeline.ts the bench
 * measures it against) do to one question: its prompt fitted to the context, each output graded,
 * a probe's result and blind picks, the repair row's shell. One implementation, so the two runners
 * give the same records.
 */
import type { Generation, TextGenerator, Decoding } from '../../engine';
import { InputError } from '../../common';
import { costOf, fitQuestionPrompt, type FittedPrompts, isFewShotExample, drawQuestionRoutes, drawPerturbation, type LengthBounds, selectConfidence, selectMajority, decodingOf, routeDecodingRule } from '../probes';
import { grade, normalizeAnswer } from '../answers';
import { inFailureSet } from '../repair';
import { seedFor, seededRandom } from '../stats';
import type { Question } from '../dataset';
import type { Attempt, AttemptPerturbation, BlindChoice, ProbeResult, QuestionRecord, RepairResult, GradingSettings, RouterFeatures, RunSettings } from '../../contract';
import { foldOf, projectPooledState, promptFeatures } from '../router';

export type AuditStage = 'deployment' | 'sample' | 'routes' | 'search' | 'perturb' | 'global-routes' | 'repair' | 'depth' | 'foreclosure' | 'fork';

export class AuditAborted extends Error {
  override name = 'AuditAborted';
  constructor() {
    super('audit stopped');
  }
}

/** The decodings of an audit's requests, each keyed by the run seed and what it is for (design: probe decoding). */
export interface AuditDecodings {
  /** The deployment's own decoding (greedy unless configured). */
  deployed(qid: string): Decoding;
  /** Route probes decode as the deployment does, each attempt with its own seed (unused when greedy). */
  routed(qid: string, what: string, attempt: number): Decoding;
  /** The sample probe's temperature and top-p, with the attempt's seed. */
  sampled(seed: number): Decoding;
}

export function auditDecodings(settings: RunSettings): AuditDecodings {
  const seed = settings.seeds.run;
  const d = settings.deployment;
  const routeRule = routeDecodingRule(settings.probeDecoding, d);
  return {
    deployed: (qid) => decodingOf(d, seedFor(seed, qid, 'deploy')),
    routed: (qid, what, attempt) => decodingOf(routeRule, seedFor(seed, qid, what, attempt)),
    sampled: (s) => decodingOf(settings.probeDecoding.sample, s),
  };
}

/** The shared global route pool: drawn from the run seed alone, the same for every question. */
export function globalRoutePool(numBlocks: number, seed: number, count: number, maxEdits: number, bounds?: LengthBounds): number[][] {
  return drawQuestionRoutes(numBlocks, count, (a) => seededRandom(seed, 'global-route-pool', a), maxEdits, bounds);
}

/** The perturbation probe's attempt `a` of a question: its draw, keyed by (run seed, question, attempt). */
export function questionPerturbation(numBlocks: number, runSeed: number, qid: string, a: number): AttemptPerturbation {
  return drawPerturbation(numBlocks, seededRandom(runSeed, qid, 'perturb', a), seedFor(runSeed, qid, 'perturb-direction', a));
}

/** A deployment budget that leaves no room for any prompt is a settings error, before any work. */
export function checkBudgetFits(model: TextGenerator, settings: RunSettings): void {
  const d = settings.deployment;
  if (model.context && d.maxNewTokens >= model.context.maxPositions) {
    throw new InputError(`--max-new-tokens ${d.maxNewTokens} leaves no room for a prompt in the model's context of ${model.context.maxPositions} positions (max_position_embeddings)`);
  }
}

/** The informed search needs a continuation scorer and an answer slot: refused before any work otherwise. */
export function checkSearchReward(model: TextGenerator, settings: RunSettings, questions: readonly Question[]): void {
  if (settings.search.reward !== 'gold-logprob' || !settings.probes.some((p) => p.name === 'search')) return;
  if (!model.scoreContinuations) {
    throw new InputError('--search-reward gold-logprob: this backend cannot score a given continuation (an OpenAI-compatible server generates only); use the local engine, or --search-reward correct');
  }
  const regex = questions.find((q) => q.format === 'regex');
  if (regex) throw new InputError(`--search-reward gold-logprob: question ${regex.id} uses the regex answer format, which has no answer marker to score the gold answer after; use --search-reward correct`);
}

function meanLogprob(g: Generation): number | null {
  if (g.logprobs.length === 0) return null;
  let sum = 0;
  for (const x of g.logprobs) sum += x;
  return sum / g.logprobs.length;
}

/** Every output of a run — deployment, probe attempts, the search's reward, repair — is graded here. */
/** An output known by its text alone (a harness log's): no tokens, no log-probabilities, graded as finished. */
export function loggedGeneration(text: string): Generation {
  return { tokens: [], text, logprobs: [], finishReason: 'stop', cost: { generatedTokens: 0, blockApplications: 0 } };
}

export function gradedUnder(g: Generation, q: Question, grading: GradingSettings): Attempt {
  const gr = grade(g.text, q, { truncated: g.finishReason === 'length', grading });
  return {
    output: g.text,
    answer: gr.answer,
    correct: gr.correct,
    truncated: gr.truncated,
    ...(gr.thought ? { thought: gr.thought } : {}),
    rule: gr.rule,
    ...(gr.match ? { match: gr.match } : {}),
    strict: gr.strict,
    flexible: gr.flexible,
    logprob: meanLogprob(g),
    tokens: g.tokens.length,
  };
}

export function probeResult(budget: number, attempts: Attempt[], generations: Generation[]): ProbeResult {
  return { budget, attempts, correct: attempts.map((a) => a.correct), cost: costOf(generations) };
}

/**
 * A question's record before any generation, and its prompt ids fitted to the context (or null:
 * skipped, with the reason in the record). `fitted`: prompts fitted ahead (for the KV plan); the
 * question's fit is taken from there when kept (`peek`: left there, for a later take).
 */
export function startRecord(q: Question, settings: RunSettings, model: TextGenerator, fitted?: { prompts: FittedPrompts; peek?: boolean }): { record: QuestionRecord; ids: number[] | null } {
  const d = settings.deployment;
  const record: QuestionRecord = {
    id: q.id,
    line: q.line,
    ...(q.place ? { place: q.place } : {}),
    gold: q.gold,
    question: q.text,
    ...(q.format === 'choice' && q.choices && q.choices.length > 0 ? { options: q.choices.length } : {}),
    realized: { output: '', answer: null, correct: false, truncated: false, rule: 'none', logprob: null, tokens: 0, cost: { generations: 0, tokens: 0, blockApplications: 0 } },
    probes: {},
    reachable: {},
    blind: {},
  };
  // A question shown with its answer among the prompt's examples is not asked.
  if (isFewShotExample(d, q)) {
    record.skipped = { reason: 'exemplar', message: `the question is one of the prompt's few-shot examples${d.preset ? ` (--preset ${d.preset})` : ''}, shown there with its answer` };
    return { record, ids: null };
  }
  // A prompt that cannot fit the context is skipped (or cut from the left) before any generation.
  const kept = fitted ? (fitted.peek ? fitted.prompts.peek(q, d, model) : fitted.prompts.take(q, d, model)) : undefined;
  const fit = kept ?? fitQuestionPrompt(d, q, model);
  if ('skipped' in fit) {
    record.skipped = fit.skipped;
    return { record, ids: null };
  }
  if (fit.truncated) record.promptTruncated = fit.truncated;
  // A peeked fit is the one the question's run takes later: its ids are not shared.
  return { record, ids: fitted?.peek ? [...fit.ids] : fit.ids };
}

/** The answer-blind picks among a probe's attempts under the run's selectors. */
export function blindChoices(settings: RunSettings, q: Question, attempts: readonly Attempt[]): Record<string, BlindChoice> {
  const blind: Record<string, BlindChoice> = {};
  if (settings.selectors.includes('majority')) blind.majority = selectMajority(attempts, (ans) => normalizeAnswer(ans, q.format));
  if (settings.selectors.includes('confidence')) blind.confidence = selectConfidence(attempts);
  return blind;
}

/**
 * The repair row before its scan: failure-set membership is fixed here from the realized and
 * reachable states. Returns whether the question is scanned (in F, or realized: collateral damage).
 */
export function startRepair(record: QuestionRecord, settings: RunSettings, q: Question): { member: { id: string; reachableBy: string[] } | null; scanned: boolean } {
  const inF = inFailureSet(record.realized.correct, record.reachable, settings.repair.referenceProbes);
  const repair: RepairResult = {
    inFailureSet: inF,
    realized: record.realized.correct,
    correctBySilencedBlock: {},
    answerBySilencedBlock: {},
    splitKey: seedFor(settings.seeds.run, q.id, 'repair-split'),
    cost: { generations: 0, tokens: 0, blockApplications: 0 },
  };
  record.repair = repair;
  const member = inF ? { id: q.id, reachableBy: settings.repair.referenceProbes.filter((p) => record.reachable[p]) } : null;
  return { member, scanned: inF || record.realized.correct };
}

/** Fills the repair row from the scan's generations, one per block (silenced block l = index l). */
export function finishRepair(record: QuestionRecord, q: Question, gens: readonly Generation[], grading: GradingSettings): void {
  const repair = record.repair as RepairResult;
  const truncatedBy: Record<string, boolean> = {};
  const unfinishedBy: Record<string, boolean> = {};
  repair.truncatedBySilencedBlock = truncatedBy;
  let thoughts = false;
  gens.forEach((g, l) => {
    const a = gradedUnder(g, q, grading);
    repair.correctBySilencedBlock[String(l)] = a.correct;
    repair.answerBySilencedBlock[String(l)] = a.answer;
    truncatedBy[String(l)] = a.truncated;
    unfinishedBy[String(l)] = a.thought === 'unfinished';
    if (a.thought) thoughts = true;
  });
  // Recorded only where the scan's outputs think, so records of other models stay as they were.
  if (thoughts) repair.unfinishedThoughtBySilencedBlock = unfinishedBy;
  repair.cost = costOf(gens);
}

/**
 * learned-route's features of a question (its prompt's token ids, hashed into buckets, and with
 * pooled-state features the deployment prefill's pooled state, projected) and its fold, from the
 * run seed and its id alone; undefined when the run does not select with it.
 */
export function routerFeaturesOf(settings: RunSettings, questionId: string, promptIds: readonly number[], deployed?: Generation): RouterFeatures | undefined {
  const learned = settings.learnedRoute;
  if (!learned || settings.globalRoutes.routes.length === 0) return undefined;
  const out: RouterFeatures = { folds: learned.folds, fold: foldOf(settings.seeds.run, questionId, learned.folds), features: promptFeatures(promptIds, learned.features.dims) };
  const state = learned.features.state;
  if (state) {
    if (!deployed?.pooledState) throw new Error(`question ${questionId}: the deployment's generation came back without its pooled state after block ${state.block}; --router-features ${learned.features.kind} needs the deployment's own prefill (in process or through reach-audit serve --http, not a logged output)`);
    out.state = projectPooledState(deployed.pooledState, state.dims, state.projectionSeed);
    out.reads = learned.features.kind === 'both' ? 'both' : 'pooled-state';
  }
  return out;
}

/** What the deployment's own request adds for learned-route: its prefill's pooled state at the stated block. */
export function deploymentExtras(settings: RunSettings): { pooledAfterBlock?: number } {
  const state = settings.learnedRoute?.features.state;
  return state && settings.globalRoutes.routes.length > 0 ? { pooledAfterBlock: state.block } : {};
}
