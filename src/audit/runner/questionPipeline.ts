/**
 * Runs the audit protocol with one queue for all of its generations: every question runs its own
 * steps (deployment, probes, global-route pool, then the repair scan) as soon as it starts, and
 * every generation of every question is a request to the one TextGenerator, whose queue batches
 * whatever is waiting and refills a finished sequence's place at the next step (the engine's
 * generationScheduler.ts). A route search submits each route when the previous one is graded; the
 * repair scan goes in once the question's realized and reachable states are known. A question's
 * record is handed out as soon as all of its generations are done, so progress moves one question
 * at a time and a stop keeps every finished question.
 *
 * At most `inFlight` questions are open at once, and the queue serves earlier questions first
 * (request priority = position), so questions finish in roughly dataset order while later ones
 * fill the places the earlier ones leave free. The route search is the exception: its rounds are
 * a chain (each waits for the previous one's grade), the longest of a question, so a search round
 * goes ahead of every question's independent attempts (priority = position - questions); the
 * chains then advance at every step while independent attempts fill the rest of the batch,
 * instead of a late question's whole search running at the end in a batch of a few sequences.
 *
 * Nothing about a question depends on the others: every random draw is keyed by (run seed,
 * question id, probe, attempt) and the engine computes each sequence from its own seed, route,
 * position and caches, bit for bit the same whatever shares its batch (the engine's generation
 * tests), so a question audited alone gets the record it gets in a full run.
 */
import { setMaxListeners } from 'node:events';
import type { Generation, GenerationRequest, TextGenerator } from '../../engine';
import { costOf, decodingOf, deploymentRequest, type FittedPrompts, RouteSearch, scoreGoldAnswer, searchReward, rewardOfAttempt, drawQuestionRoutes, lengthBoundsOf, SearchSweep } from '../probes';
import type { Question } from '../dataset';
import { type Attempt, type DepthResult, type GlobalRoutesResult, type QuestionRecord, type RunSettings, isAnswerBlindProbe, type ProbeSpec, type SearchSweepPoint } from '../../contract';
import { seedFor, seededRandom, sequentialRateTest, type SequentialRateTest } from '../stats';
import { untilFirstCorrect } from './untilFirstCorrect';
import { depthOfLoss } from './depthOfLoss';
import { foreclosureWindow } from './foreclosureWindow';
import { deployedTokensOf, forkProbe } from './forkProbe';
import { inFailureSet } from '../repair';
import { AuditAborted, type AuditStage, auditDecodings, blindChoices, checkBudgetFits, checkSearchReward, deploymentExtras, finishRepair, gradedUnder, loggedGeneration, probeResult, questionPerturbation, routerFeaturesOf, startRecord, startRepair } from './questionSteps';

export { AuditAborted, globalRoutePool, type AuditStage } from './questionSteps';

export interface AuditEvents {
  /** A question finished (all its generations graded); called in the order questions finish. */
  onRecord?(record: QuestionRecord): void;
  /** A question of the failure set, handed out before its repair scan starts. */
  onFailureSet?(members: { id: string; reachableBy: string[] }[]): void;
  /** Generations of a stage of a question came back (generated tokens, per-stage counts, the search's pace). */
  onGenerated?(stage: AuditStage, generations: readonly Generation[], questionId: string): void;
}

export interface AuditOptions {
  /** Questions open at once: enough to keep the engine's batch full, few enough to lose little on a stop. */
  inFlight: number;
  signal?: AbortSignal;
  /** `--realized-from`: each question's deployment output by id, read from a harness log instead of generated (prompts checked equal beforehand). */
  realized?: ReadonlyMap<string, string>;
  /** Prompts fitted before the run (for the KV plan): each question takes its own instead of fitting it again. */
  fittedPrompts?: FittedPrompts;
}

export async function auditQuestions(
  model: TextGenerator,
  questions: readonly Question[],
  settings: RunSettings,
  events: AuditEvents,
  options: AuditOptions,
): Promise<void> {
  const L = model.numBlocks;
  const bounds = lengthBoundsOf(settings.routeSpace, L);
  const seed = settings.seeds.run;
  const d = settings.deployment;
  const graded = (g: Generation, q: Question) => gradedUnder(g, q, settings.grading);
  const { deployed, routed, sampled } = auditDecodings(settings);
  checkBudgetFits(model, settings);
  checkSearchReward(model, settings, questions);

  // One signal for the caller's stop and for a failure in any question, so the others stop too.
  const stop = new AbortController();
  // Every open generate call listens to it.
  setMaxListeners(0, stop.signal);
  const onOuterAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const signal = stop.signal;

  // `own`: a signal of the caller's besides the run's (an attempt the --until-reached window cancels).
  const generate = async (stage: AuditStage, q: Question, requests: GenerationRequest[], priority: number, own?: AbortSignal): Promise<Generation[]> => {
    if (signal.aborted) throw new AuditAborted();
    if (requests.length === 0) return [];
    let out: Generation[];
    try {
      out = await model.generate(requests, own ? AbortSignal.any([signal, own]) : signal, { priority });
    } catch (err) {
      if (signal.aborted) throw new AuditAborted();
      throw err;
    }
    events.onGenerated?.(stage, out, q.id);
    return out;
  };

  const fw = settings.foreclosureWindow;
  const foreclosureTest = fw ? sequentialRateTest(fw.threshold, fw.error, fw.samples, fw.look) : undefined;
  /** The depth probe's bracket narrowed to a window of tokens, on fresh samples keyed by the prefix's length and the sample. */
  const foreclosureOf = (q: Question, ids: readonly number[], deployedOut: Generation, depth: DepthResult, test: SequentialRateTest, priority: number) =>
    foreclosureWindow({
      q,
      promptIds: ids,
      deployed: deployedOut,
      depth,
      test,
      deployment: d,
      decoding: (tokens, b) => sampled(seedFor(seed, q.id, 'foreclosure', tokens, b)),
      decode: (tokens) => model.decode(tokens),
      generate: (requests) => generate('foreclosure', q, requests, priority),
      grade: (text, g) => graded({ ...g, text }, q),
    });

  const untilReached = settings.untilReached === true;

  /** A probe's independent attempts: all at once, or under --until-reached up to the first correct one. */
  async function independentAttempts(stage: AuditStage, q: Question, count: number, request: (a: number) => GenerationRequest, attempt: (g: Generation, a: number) => Attempt, priority: number) {
    if (untilReached) return untilFirstCorrect(count, request, (rs, own) => generate(stage, q, rs, priority, own), attempt);
    const gens = await generate(stage, q, Array.from({ length: count }, (_, a) => request(a)), priority);
    return { attempts: gens.map((g, a) => attempt(g, a)), gens };
  }

  /**
   * The exploration sweep (--search-sweep) after the probe's search: the same search at the other c
   * values, reach only, fed the grades of routes already evaluated for the question instead of
   * generating them again. A new route's sampling seed is keyed by the route itself, so its grade
   * does not depend on which sweep search proposed it first.
   */
  async function exploreSweep(q: Question, ids: number[], budget: number, earlier: readonly Attempt[], constants: readonly number[], priority: number): Promise<SearchSweepPoint[]> {
    const informed = settings.search.reward === 'gold-logprob';
    const rewardOf = (a: Attempt) => (informed ? rewardOfAttempt(a.correct, a.goldLogprob) : a.correct ? 1 : 0);
    const evaluated = earlier.flatMap((a) => (a.route ? [{ route: a.route, correct: a.correct, reward: rewardOf(a) }] : []));
    const sweep = new SearchSweep(L, (i) => seededRandom(seed, q.id, 'search', i), settings.search, constants, budget, bounds, evaluated);
    for (let wanted = sweep.wanted(); wanted.length > 0; wanted = sweep.wanted()) {
      const requests = wanted.map((w) => deploymentRequest(d, ids, routed(q.id, `search-sweep ${w.route.join(',')}`, 0), { route: w.route }));
      const gens = await generate('search', q, requests, priority);
      for (const [j, w] of wanted.entries()) {
        const a: Attempt = { ...graded(gens[j], q), route: [...w.route] };
        const score = informed && !a.correct ? await scoreGoldAnswer(model, ids, gens[j].text, q, w.route) : null;
        if (signal.aborted) throw new AuditAborted();
        if (score) a.goldLogprob = score.meanLogprob;
        const cost = { generations: 1, blockApplications: gens[j].cost.blockApplications + (score?.blockApplications ?? 0) };
        sweep.report(w.route, { correct: a.correct, reward: rewardOf(a) }, w.chargedTo, cost);
      }
    }
    return sweep.points;
  }

  async function probe(spec: ProbeSpec, q: Question, ids: number[], priority: number): Promise<{ attempts: Attempt[]; gens: Generation[]; scoring?: number; sweep?: SearchSweepPoint[] }> {
    if (spec.name === 'sample') {
      const seeds = Array.from({ length: spec.budget }, (_, a) => seedFor(seed, q.id, 'sample', a));
      return independentAttempts('sample', q, spec.budget, (a) => deploymentRequest(d, ids, sampled(seeds[a])), (g, a) => ({ ...graded(g, q), seed: seeds[a] }), priority);
    }
    if (spec.name === 'routes') {
      const routes = drawQuestionRoutes(L, spec.budget, (a) => seededRandom(seed, q.id, 'routes', a), settings.routeSpace.maxEdits, bounds);
      const request = (a: number) => deploymentRequest(d, ids, routed(q.id, 'routes', a), { route: routes[a] });
      return independentAttempts('routes', q, routes.length, request, (g, a) => ({ ...graded(g, q), route: routes[a] }), priority);
    }
    if (spec.name === 'perturb') {
      const draws = Array.from({ length: spec.budget }, (_, a) => questionPerturbation(L, seed, q.id, a));
      const request = (a: number) => deploymentRequest(d, ids, routed(q.id, 'perturb', a), { perturbation: draws[a] });
      return independentAttempts('perturb', q, spec.budget, request, (g, a) => ({ ...graded(g, q), perturbation: draws[a] }), priority);
    }
    // MCTS: each evaluation needs the previous one's reward, so one request at a time.
    const search = new RouteSearch(L, (i) => seededRandom(seed, q.id, 'search', i), settings.search, bounds);
    const out: { attempts: Attempt[]; gens: Generation[]; scoring: number; sweep?: SearchSweepPoint[] } = { attempts: [], gens: [], scoring: 0 };
    const informed = settings.search.reward === 'gold-logprob';
    const chainPriority = priority - questions.length;
    for (let round = 0; round < spec.budget; round++) {
      const route = search.propose();
      if (!route) break;
      const [g] = await generate('search', q, [deploymentRequest(d, ids, routed(q.id, 'search', round), { route })], chainPriority);
      const a: Attempt = { ...graded(g, q), route: [...route] };
      // The gold-answer score is what steers the search before its first hit; a correct route needs none.
      const score = informed && !a.correct ? await scoreGoldAnswer(model, ids, g.text, q, route) : null;
      if (signal.aborted) throw new AuditAborted();
      if (score) {
        a.goldLogprob = score.meanLogprob;
        out.scoring += score.blockApplications;
      }
      search.report(informed ? searchReward(a.correct, score) : a.correct ? 1 : 0);
      out.attempts.push(a);
      out.gens.push(g);
      // Ceiling only: the question is reached, and later rounds could not change that.
      if (untilReached && a.correct) break;
    }
    if (settings.search.sweep) out.sweep = await exploreSweep(q, ids, spec.budget, out.attempts, settings.search.sweep, chainPriority);
    return out;
  }

  async function auditOne(q: Question, priority: number): Promise<QuestionRecord> {
    const { record, ids } = startRecord(q, settings, model, options.fittedPrompts ? { prompts: options.fittedPrompts } : undefined);
    if (!ids) return record;
    const pool = settings.globalRoutes.routes;
    // Everything that does not depend on another generation goes into the queue together.
    const logged = options.realized?.get(q.id);
    // The fork probe reads the deployed output's token record; without it the request is as it always was.
    const fork = settings.forkProbe;
    const deploymentAsked = deploymentRequest(d, ids, deployed(q.id), deploymentExtras(settings));
    if (fork) {
      deploymentAsked.tokenRecord = fork.k;
      // Its caches are kept for the branches, which start from them.
      deploymentAsked.keepState = true;
    }
    const [[deployedOut], probeRuns, poolOut] = await Promise.all([
      logged !== undefined ? [loggedGeneration(logged)] : generate('deployment', q, [deploymentAsked], priority),
      Promise.all(settings.probes.map((spec) => probe(spec, q, ids, priority))),
      generate('global-routes', q, pool.map((route, a) => deploymentRequest(d, ids, routed(q.id, 'global-route', a), { route })), priority),
    ]);
    // A logged output cost this run nothing.
    record.realized = { ...graded(deployedOut, q), cost: costOf(logged !== undefined ? [] : [deployedOut]) };
    settings.probes.forEach((spec, i) => {
      const { attempts, gens, scoring, sweep } = probeRuns[i];
      if (sweep) record.searchSweep = sweep;
      record.probes[spec.name] = probeResult(spec.budget, attempts, gens);
      if (untilReached) record.probes[spec.name].untilReached = true;
      // The gold-answer scoring passes of an informed search cost block applications, no generations.
      if (scoring) record.probes[spec.name].cost.blockApplications += scoring;
      record.reachable[spec.name] = attempts.some((a) => a.correct);
      // A pool cut at its first hit would make every blind pick look better than it is.
      if (!isAnswerBlindProbe(spec.name) || untilReached) return;
      const blind = blindChoices(settings, q, attempts);
      if (Object.keys(blind).length > 0) record.blind[spec.name] = blind;
    });
    if (pool.length > 0) {
      const result: GlobalRoutesResult = {
        splitKey: seedFor(seed, q.id, 'global-route-split'),
        attempts: poolOut.map((g, a) => ({ ...graded(g, q), route: pool[a] })),
        cost: costOf(poolOut),
      };
      record.globalRoutes = result;
      const features = routerFeaturesOf(settings, q.id, ids, logged !== undefined ? undefined : deployedOut);
      if (features) record.routerFeatures = features;
    }
    // Depth of loss runs beside the repair scan, on the same failure set, fixed before either generates.
    const depthBudget = settings.depthProbe?.budget;
    const depth =
      depthBudget !== undefined && inFailureSet(record.realized.correct, record.reachable, settings.repair.referenceProbes)
        ? depthOfLoss({
            q,
            promptIds: ids,
            deployed: deployedOut,
            budget: depthBudget,
            deployment: d,
            decoding: (at, b) => sampled(seedFor(seed, q.id, 'depth', at, b)),
            decode: (tokens) => model.decode(tokens),
            generate: (requests) => generate('depth', q, requests, priority),
            grade: (text, g) => graded({ ...g, text }, q),
          }).then(async (result) => ({ result, foreclosure: foreclosureTest ? await foreclosureOf(q, ids, deployedOut, result, foreclosureTest, priority) : undefined }))
        : null;
    // Forks run on every question the deployment does not realize, beside the depth probe and the repair scan.
    const tokens = fork ? deployedTokensOf(deployedOut, fork.k, (t) => model.decode(t)) : null;
    if (tokens) record.deployedTokens = tokens;
    const forks =
      fork && tokens && !record.realized.correct
        ? forkProbe({
            promptIds: ids,
            deployed: deployedOut,
            record: tokens,
            plan: fork,
            deployment: d,
            random: seededRandom(seed, q.id, 'fork-positions'),
            decodings: (position, token) => ({
              greedy: decodingOf(d, seedFor(seed, q.id, 'fork-deploy', position, token)),
              sample: sampled(seedFor(seed, q.id, 'fork', position, token)),
            }),
            decode: (t) => model.decode(t),
            generate: (requests) => generate('fork', q, requests, priority),
            grade: (text, g) => graded({ ...g, text }, q),
          })
        : null;
    // Handled here so that a failure while the repair scan runs is not an unhandled rejection.
    depth?.catch(() => undefined);
    forks?.catch(() => undefined);
    if (settings.repair.enabled) {
      // F membership is fixed from the probe results and handed out before any silenced generation runs.
      const { member, scanned } = startRepair(record, settings, q);
      if (member) events.onFailureSet?.([member]);
      if (scanned) {
        const requests = Array.from({ length: L }, (_, l) => deploymentRequest(d, ids, deployed(q.id), { silencedMlp: [l] }));
        finishRepair(record, q, await generate('repair', q, requests, priority), settings.grading);
      }
    }
    if (depth) {
      const { result, foreclosure } = await depth;
      record.depth = result;
      if (foreclosure) record.foreclosure = foreclosure;
    }
    if (forks) record.fork = await forks;
    return record;
  }

  let next = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (next < questions.length && !signal.aborted) {
      const i = next++;
      let record: QuestionRecord;
      try {
        record = await auditOne(questions[i], i);
      } catch (err) {
        if (!(err instanceof AuditAborted) && failure === undefined) {
          failure = err;
          stop.abort();
        }
        return;
      }
      // A finished question is kept even when the run is stopping.
      try {
        events.onRecord?.(record);
      } catch (err) {
        // A record that cannot be stored (a full disk) stops the run like a failed generation.
        if (failure === undefined) failure = err;
        stop.abort();
        return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.inFlight, questions.length)) }, worker));
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
  if (failure !== undefined) throw failure;
  if (signal.aborted) throw new AuditAborted();
}
