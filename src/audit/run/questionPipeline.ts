/**
 * Runs the audit protocol over questions, batching generations across questions through the
 * TextGenerator: per chunk of questions, one engine call per stage (deployment, sample, routes,
 * global route pool, repair) and, for search, one call per MCTS round with one route per question.
 *
 * Nothing about a question depends on its chunk-mates: every random draw is keyed by (run seed,
 * question id, probe, attempt) and the engine gives each sequence its own seed, so a question
 * audited alone gets the record it gets in a full run, bit for bit: the engine computes each
 * sequence from its own position and cache, whatever the lengths of its batch-mates (tested in
 * the engine's generation tests). Records are handed
 * out in dataset order as each chunk finishes; an abort (the signal) drops only the unfinished
 * chunk.
 */
import type { Generation, GenerationRequest, Route, TextGenerator } from '../../engine/types';
import { costOf } from '../probes/budget';
import { fitPrompt } from '../probes/contextFit';
import { InputError } from '../../engine/errors';
import { deploymentRequest, isFewShotExample, promptIds } from '../probes/deployment';
import { inFailureSet } from '../repair/failureSet';
import { grade, normalizeAnswer, type GradingSettings } from '../answers/grade';
import type { RunSettings } from './manifest';
import { RouteSearch } from '../probes/routeSearch';
import type { Question } from '../dataset/question';
import type { Attempt, BlindChoice, GlobalRoutesResult, ProbeResult, QuestionRecord, RepairResult } from '../../contract';
import { drawQuestionRoutes, lengthBoundsOf, type LengthBounds } from '../probes/routes';
import { isAnswerBlindProbe, selectConfidence, selectMajority } from '../probes/blindSelectors';
import { seedFor, seededRandom } from '../results/stats';
import { decodingOf, routeDecodingRule } from '../probes/probeDecoding';

export type AuditStage = 'deployment' | 'sample' | 'routes' | 'search' | 'global-routes' | 'repair';

export interface AuditEvents {
  /** A question finished; called in dataset order, one chunk at a time. */
  onRecord?(record: QuestionRecord): void;
  /** Failure-set members of a chunk, called before that chunk's repair scan starts. */
  onFailureSet?(members: { id: string; reachableBy: string[] }[]): void;
  /** A stage of a chunk started. */
  onStage?(stage: AuditStage, chunk: { first: number; size: number }): void;
  /** Wall time of a finished stage of a chunk. */
  onStageTime?(stage: AuditStage, ms: number, generations: number): void;
}

export interface AuditOptions {
  /** Questions per chunk: more batches the engine better, fewer loses less work on a stop. */
  chunkSize: number;
  signal?: AbortSignal;
}

export class AuditAborted extends Error {
  override name = 'AuditAborted';
  constructor() {
    super('audit stopped');
  }
}

/** The shared global route pool: drawn from the run seed alone, the same for every question. */
export function globalRoutePool(numBlocks: number, seed: number, count: number, maxEdits: number, bounds?: LengthBounds): number[][] {
  return drawQuestionRoutes(numBlocks, count, (a) => seededRandom(seed, 'global-route-pool', a), maxEdits, bounds);
}

function meanLogprob(g: Generation): number | null {
  if (g.logprobs.length === 0) return null;
  let sum = 0;
  for (const x of g.logprobs) sum += x;
  return sum / g.logprobs.length;
}

/** Every output of a run — deployment, probe attempts, the search's reward, repair — is graded here. */
function gradedUnder(g: Generation, q: Question, grading: GradingSettings): Attempt {
  const gr = grade(g.text, q, { truncated: g.finishReason === 'length', grading });
  return {
    output: g.text,
    answer: gr.answer,
    correct: gr.correct,
    truncated: gr.truncated,
    rule: gr.rule,
    strict: gr.strict,
    flexible: gr.flexible,
    logprob: meanLogprob(g),
    tokens: g.tokens.length,
  };
}

function probeResult(budget: number, attempts: Attempt[], generations: Generation[]): ProbeResult {
  return { budget, attempts, correct: attempts.map((a) => a.correct), cost: costOf(generations) };
}

interface Work {
  q: Question;
  ids: number[];
  record: QuestionRecord;
}

export async function auditQuestions(
  model: TextGenerator,
  questions: readonly Question[],
  settings: RunSettings,
  events: AuditEvents,
  options: AuditOptions,
): Promise<void> {
  const { signal } = options;
  const L = model.numBlocks;
  const bounds = lengthBoundsOf(settings.routeSpace, L);
  const seed = settings.seeds.run;
  const d = settings.deployment;
  const grading = settings.grading;
  const graded = (g: Generation, q: Question) => gradedUnder(g, q, grading);
  // The deployment's own decoding (greedy unless configured); route probes decode as the
  // deployment does, each attempt with its own seed (unused when greedy).
  const deployed = (qid: string) => decodingOf(d, seedFor(seed, qid, 'deploy'));
  const routeRule = routeDecodingRule(settings.probeDecoding, d);
  const routed = (qid: string, what: string, attempt: number) => decodingOf(routeRule, seedFor(seed, qid, what, attempt));
  const sampleRule = settings.probeDecoding.sample;
  if (model.context && d.maxNewTokens >= model.context.maxPositions) {
    throw new InputError(`--max-new-tokens ${d.maxNewTokens} leaves no room for a prompt in the model's context of ${model.context.maxPositions} positions (max_position_embeddings)`);
  }
  const checkAbort = () => {
    if (signal?.aborted) throw new AuditAborted();
  };

  // One engine call per stage; stage times are reported for the per-stage budget.
  const run = async (stage: AuditStage, requests: GenerationRequest[], chunk: { first: number; size: number }): Promise<Generation[]> => {
    checkAbort();
    if (requests.length === 0) return [];
    events.onStage?.(stage, chunk);
    const started = performance.now();
    let out: Generation[];
    try {
      out = await model.generate(requests, signal);
    } catch (err) {
      if (signal?.aborted) throw new AuditAborted();
      throw err;
    }
    events.onStageTime?.(stage, performance.now() - started, requests.length);
    return out;
  };

  for (let first = 0; first < questions.length; first += options.chunkSize) {
    checkAbort();
    const chunkQs = questions.slice(first, first + options.chunkSize);
    const chunk = { first, size: chunkQs.length };
    const all: Work[] = chunkQs.map((q) => ({
      q,
      // A question shown with its answer among the prompt's examples is not asked (skipped below).
      ids: isFewShotExample(d, q) ? [] : promptIds(d, q, model),
      record: {
        id: q.id,
        line: q.line,
        gold: q.gold,
        question: q.text,
        ...(q.format === 'choice' && q.choices && q.choices.length > 0 ? { options: q.choices.length } : {}),
        realized: { output: '', answer: null, correct: false, truncated: false, rule: 'none', logprob: null, tokens: 0, cost: { generations: 0, tokens: 0, blockApplications: 0 } },
        probes: {},
        reachable: {},
        blind: {},
      },
    }));
    // A prompt that cannot fit the context is skipped (or cut from the left) before any generation.
    const work: Work[] = [];
    for (const w of all) {
      if (isFewShotExample(d, w.q)) {
        w.record.skipped = { reason: 'exemplar', message: `the question is one of the prompt's few-shot examples${d.preset ? ` (--preset ${d.preset})` : ''}, shown there with its answer` };
        continue;
      }
      const fit = fitPrompt(w.ids, d.maxNewTokens, model.context, d.truncatePrompt ?? 'none');
      if ('skipped' in fit) {
        w.record.skipped = fit.skipped;
        continue;
      }
      w.ids = fit.ids;
      if (fit.truncated) w.record.promptTruncated = fit.truncated;
      work.push(w);
    }

    // Deployment: realized(q) = grade(D(q)).
    const outputs = await run('deployment', work.map((w) => deploymentRequest(d, w.ids, deployed(w.q.id))), chunk);
    work.forEach((w, i) => {
      w.record.realized = { ...graded(outputs[i], w.q), cost: costOf([outputs[i]]) };
    });

    for (const probe of settings.probes) {
      let results: { attempts: Attempt[]; gens: Generation[] }[];
      if (probe.name === 'sample') {
        const requests: GenerationRequest[] = [];
        const seeds: number[][] = work.map((w) => Array.from({ length: probe.budget }, (_, a) => seedFor(seed, w.q.id, 'sample', a)));
        work.forEach((w, i) => {
          for (const s of seeds[i]) requests.push(deploymentRequest(d, w.ids, decodingOf(sampleRule, s)));
        });
        const gens = await run('sample', requests, chunk);
        results = work.map((w, i) => {
          const mine = gens.slice(i * probe.budget, (i + 1) * probe.budget);
          return { attempts: mine.map((g, a) => ({ ...graded(g, w.q), seed: seeds[i][a] })), gens: mine };
        });
      } else if (probe.name === 'routes') {
        const routesOf = work.map((w) => drawQuestionRoutes(L, probe.budget, (a) => seededRandom(seed, w.q.id, 'routes', a), settings.routeSpace.maxEdits, bounds));
        const requests: GenerationRequest[] = [];
        work.forEach((w, i) => {
          routesOf[i].forEach((route, a) => requests.push(deploymentRequest(d, w.ids, routed(w.q.id, 'routes', a), { route })));
        });
        const gens = await run('routes', requests, chunk);
        let at = 0;
        results = work.map((w, i) => {
          const mine = gens.slice(at, at + routesOf[i].length);
          at += routesOf[i].length;
          return { attempts: mine.map((g, a) => ({ ...graded(g, w.q), route: routesOf[i][a] })), gens: mine };
        });
      } else {
        results = await searchInLockstep(work, probe.budget, chunk);
      }
      work.forEach((w, i) => {
        const { attempts, gens } = results[i];
        w.record.probes[probe.name] = probeResult(probe.budget, attempts, gens);
        w.record.reachable[probe.name] = attempts.some((a) => a.correct);
        if (!isAnswerBlindProbe(probe.name)) return;
        const blind: Record<string, BlindChoice> = {};
        if (settings.selectors.includes('majority')) blind.majority = selectMajority(attempts, (ans) => normalizeAnswer(ans, w.q.format));
        if (settings.selectors.includes('confidence')) blind.confidence = selectConfidence(attempts);
        if (Object.keys(blind).length > 0) w.record.blind[probe.name] = blind;
      });
    }

    // The shared pool of global candidate routes, for the global-route selector.
    const pool = settings.globalRoutes.routes;
    if (pool.length > 0) {
      // One engine call per pool route: a batch whose rows share a route runs each block once per
      // position for all rows, measured about twice as fast as batches of mixed routes.
      const byRoute: Generation[][] = [];
      for (const [a, route] of pool.entries()) byRoute.push(await run('global-routes', work.map((w) => deploymentRequest(d, w.ids, routed(w.q.id, 'global-route', a), { route })), chunk));
      work.forEach((w, i) => {
        const mine = byRoute.map((gens) => gens[i]);
        const result: GlobalRoutesResult = {
          splitKey: seedFor(seed, w.q.id, 'global-route-split'),
          attempts: mine.map((g, a) => ({ ...graded(g, w.q), route: pool[a] })),
          cost: costOf(mine),
        };
        w.record.globalRoutes = result;
      });
    }

    if (settings.repair.enabled) {
      // F is fixed from the probe results and handed out before any silenced generation runs.
      const members: { id: string; reachableBy: string[] }[] = [];
      const scanned: Work[] = [];
      for (const w of work) {
        const inF = inFailureSet(w.record.realized.correct, w.record.reachable, settings.repair.referenceProbes);
        const repair: RepairResult = {
          inFailureSet: inF,
          realized: w.record.realized.correct,
          correctBySilencedBlock: {},
          answerBySilencedBlock: {},
          splitKey: seedFor(seed, w.q.id, 'repair-split'),
          cost: { generations: 0, tokens: 0, blockApplications: 0 },
        };
        w.record.repair = repair;
        if (inF) members.push({ id: w.q.id, reachableBy: settings.repair.referenceProbes.filter((p) => w.record.reachable[p]) });
        if (inF || w.record.realized.correct) scanned.push(w);
      }
      events.onFailureSet?.(members);
      const requests: GenerationRequest[] = [];
      for (const w of scanned) for (let l = 0; l < L; l++) requests.push(deploymentRequest(d, w.ids, deployed(w.q.id), { silencedMlp: [l] }));
      const gens = await run('repair', requests, chunk);
      scanned.forEach((w, i) => {
        const mine = gens.slice(i * L, (i + 1) * L);
        const repair = w.record.repair!;
        const truncatedBy: Record<string, boolean> = {};
        repair.truncatedBySilencedBlock = truncatedBy;
        mine.forEach((g, l) => {
          const a = graded(g, w.q);
          repair.correctBySilencedBlock[String(l)] = a.correct;
          repair.answerBySilencedBlock[String(l)] = a.answer;
          truncatedBy[String(l)] = a.truncated;
        });
        repair.cost = costOf(mine);
      });
    }

    checkAbort();
    for (const w of all) events.onRecord?.(w.record);
  }

  /** MCTS per question, advanced in lockstep: each engine call evaluates one new route per question. */
  async function searchInLockstep(work: Work[], budget: number, chunk: { first: number; size: number }): Promise<{ attempts: Attempt[]; gens: Generation[] }[]> {
    const searches = work.map((w) => new RouteSearch(L, (i) => seededRandom(seed, w.q.id, 'search', i), settings.search, bounds));
    const out = work.map(() => ({ attempts: [] as Attempt[], gens: [] as Generation[] }));
    for (let round = 0; round < budget; round++) {
      const active: { i: number; route: Route }[] = [];
      searches.forEach((s, i) => {
        const route = s.propose();
        if (route) active.push({ i, route });
      });
      if (active.length === 0) break;
      const gens = await run('search', active.map(({ i, route }) => deploymentRequest(d, work[i].ids, routed(work[i].q.id, 'search', round), { route })), chunk);
      active.forEach(({ i, route }, j) => {
        const a = { ...graded(gens[j], work[i].q), route: [...route] };
        searches[i].report(a.correct ? 1 : 0);
        out[i].attempts.push(a);
        out[i].gens.push(gens[j]);
      });
    }
    return out;
  }
}
