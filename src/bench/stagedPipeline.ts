/**
 * The stage-by-stage audit runner the product used before questionPipeline.ts, kept as the
 * baseline `reach-audit bench --audit` measures the scheduler against: per chunk of questions, one
 * engine call per stage (deployment, sample, routes, global route pool, repair) and, for search,
 * one call per MCTS round with one route per question. Records come out chunk by chunk, in
 * dataset order. It gives the same records as questionPipeline.ts (questionSteps.ts does the
 * per-question work for both, and the engine gives a sequence the same numbers in any batch).
 */
import { InputError } from '../common';
import type { Generation, GenerationRequest, Route, TextGenerator } from '../engine';
import { costOf, deploymentRequest, RouteSearch, drawQuestionRoutes, lengthBoundsOf } from '../audit/probes';
import type { Question } from '../audit/dataset';
import { type Attempt, type GlobalRoutesResult, type QuestionRecord, type RunSettings, isAnswerBlindProbe } from '../contract';
import { seedFor, seededRandom } from '../audit/stats';
import { AuditAborted, type AuditStage, auditDecodings, blindChoices, checkBudgetFits, deploymentExtras, finishRepair, gradedUnder, probeResult, questionPerturbation, routerFeaturesOf, startRecord, startRepair } from '../audit/runner';

export interface StagedAuditEvents {
  /** A question finished; called in dataset order, one chunk at a time. */
  onRecord?(record: QuestionRecord): void;
  /** Failure-set members of a chunk, called before that chunk's repair scan starts. */
  onFailureSet?(members: { id: string; reachableBy: string[] }[]): void;
  /** A stage of a chunk started. */
  onStage?(stage: AuditStage, chunk: { first: number; size: number }): void;
  /** Wall time of a finished stage of a chunk. */
  onStageTime?(stage: AuditStage, ms: number, generations: number): void;
}

export interface StagedAuditOptions {
  /** Questions per chunk. */
  chunkSize: number;
  signal?: AbortSignal;
}

interface Work {
  q: Question;
  ids: number[];
  record: QuestionRecord;
  /** The deployment's generation (learned-route's pooled state comes with it). */
  deployed?: Generation;
}

export async function auditQuestionsByStage(
  model: TextGenerator,
  questions: readonly Question[],
  settings: RunSettings,
  events: StagedAuditEvents,
  options: StagedAuditOptions,
): Promise<void> {
  const { signal } = options;
  // The bench's baseline runner keeps the 0/1 search; the informed reward lives in the audit's runner.
  if (settings.search.reward === 'gold-logprob') throw new InputError('the staged runner (the bench baseline) has no --search-reward gold-logprob');
  const L = model.numBlocks;
  const bounds = lengthBoundsOf(settings.routeSpace, L);
  const seed = settings.seeds.run;
  const d = settings.deployment;
  const graded = (g: Generation, q: Question) => gradedUnder(g, q, settings.grading);
  const { deployed, routed, sampled } = auditDecodings(settings);
  checkBudgetFits(model, settings);
  // This runner exists to measure the full protocol against the queued one; it has no ceiling-only mode.
  if (settings.untilReached) throw new Error('the stage-by-stage runner spends every probe budget; run --until-reached through auditQuestions');
  const checkAbort = () => {
    if (signal?.aborted) throw new AuditAborted();
  };

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
    const records: QuestionRecord[] = [];
    const work: Work[] = [];
    for (const q of chunkQs) {
      const { record, ids } = startRecord(q, settings, model);
      records.push(record);
      if (ids) work.push({ q, ids, record });
    }

    const outputs = await run('deployment', work.map((w) => deploymentRequest(d, w.ids, deployed(w.q.id), deploymentExtras(settings))), chunk);
    work.forEach((w, i) => {
      w.deployed = outputs[i];
      w.record.realized = { ...graded(outputs[i], w.q), cost: costOf([outputs[i]]) };
    });

    for (const probe of settings.probes) {
      let results: { attempts: Attempt[]; gens: Generation[] }[];
      if (probe.name === 'sample') {
        const requests: GenerationRequest[] = [];
        const seeds: number[][] = work.map((w) => Array.from({ length: probe.budget }, (_, a) => seedFor(seed, w.q.id, 'sample', a)));
        work.forEach((w, i) => {
          for (const s of seeds[i]) requests.push(deploymentRequest(d, w.ids, sampled(s)));
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
      } else if (probe.name === 'perturb') {
        const drawsOf = work.map((w) => Array.from({ length: probe.budget }, (_, a) => questionPerturbation(L, seed, w.q.id, a)));
        const requests: GenerationRequest[] = [];
        work.forEach((w, i) => {
          drawsOf[i].forEach((perturbation, a) => requests.push(deploymentRequest(d, w.ids, routed(w.q.id, 'perturb', a), { perturbation })));
        });
        const gens = await run('perturb', requests, chunk);
        results = work.map((w, i) => {
          const mine = gens.slice(i * probe.budget, (i + 1) * probe.budget);
          return { attempts: mine.map((g, a) => ({ ...graded(g, w.q), perturbation: drawsOf[i][a] })), gens: mine };
        });
      } else {
        results = await searchInLockstep(work, probe.budget, chunk);
      }
      work.forEach((w, i) => {
        const { attempts, gens } = results[i];
        w.record.probes[probe.name] = probeResult(probe.budget, attempts, gens);
        w.record.reachable[probe.name] = attempts.some((a) => a.correct);
        if (!isAnswerBlindProbe(probe.name)) return;
        const blind = blindChoices(settings, w.q, attempts);
        if (Object.keys(blind).length > 0) w.record.blind[probe.name] = blind;
      });
    }

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
        const features = routerFeaturesOf(settings, w.q.id, w.ids, w.deployed);
        if (features) w.record.routerFeatures = features;
      });
    }

    if (settings.repair.enabled) {
      // F is fixed from the probe results and handed out before any silenced generation runs.
      const members: { id: string; reachableBy: string[] }[] = [];
      const scanned: Work[] = [];
      for (const w of work) {
        const { member, scanned: scan } = startRepair(w.record, settings, w.q);
        if (member) members.push(member);
        if (scan) scanned.push(w);
      }
      events.onFailureSet?.(members);
      const requests: GenerationRequest[] = [];
      for (const w of scanned) for (let l = 0; l < L; l++) requests.push(deploymentRequest(d, w.ids, deployed(w.q.id), { silencedMlp: [l] }));
      const gens = await run('repair', requests, chunk);
      scanned.forEach((w, i) => finishRepair(w.record, w.q, gens.slice(i * L, (i + 1) * L), settings.grading));
    }

    checkAbort();
    for (const r of records) events.onRecord?.(r);
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
