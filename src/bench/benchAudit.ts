/**
 * `reach-audit bench --audit`: the audit's own workload, timed through the scheduler
 * (questionPipeline.ts) and through the stage-by-stage runner it replaced (stagedPipeline.ts), in
 * interleaved rounds on the same loaded model. Each path is run with its own defaults (the staged
 * runner: chunks of 32 questions, 16 sequences per batch; the scheduler: 32 questions open, the
 * engine's default batch).
 *
 * The workload: GSM8K-shaped questions, the deployment plus sample, routes and search at budget B
 * each. A random-weight model never stops on its own, so each request gets its own token limit,
 * drawn log-uniformly from [min, max] by a hash of the request (prompt, route, silenced blocks,
 * seed): the same request gets the same limit on both paths, so both do exactly the same work, and
 * their records are checked identical.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { GenerateOptions, Generation, GenerationRequest, Model, SchedulerProfile, TextGenerator } from '../engine';
import { parseDataset } from '../audit/dataset';
import { DEFAULT_DEPLOYMENT, DEFAULT_PROBE_DECODING, DEFAULT_SEARCH } from '../audit/probes';
import { DEFAULT_GRADING, grade } from '../audit/answers';
import type { QuestionRecord, RunSettings } from '../contract';
import { median } from '../common';
import { auditQuestions, startRecord } from '../audit/runner';
import { auditQuestionsByStage } from './stagedPipeline';

export interface AuditBenchOptions {
  questions: number;
  budget: number;
  minTokens: number;
  maxTokens: number;
  rounds: number;
  /** The scheduler's batch (sequences per decode step) and questions open at once. */
  maxBatch: number;
  inFlight: number;
  /** Also run the stage-by-stage runner (the scheduler's old baseline) in each round. */
  staged: boolean;
  /** Where to write the scheduled path's records (JSON lines, by id), to compare builds byte for byte. */
  recordsFile?: string;
  /**
   * The engine's decode tokens/s on `batch` sequences of different routes (one skip or repeat
   * each) after `promptTokens`-token prompts: the reference the audit's tokens/s is held to.
   */
  mixedRouteDecode(batch: number, promptTokens: number): Promise<number>;
  /** The largest batch of distinct such routes (a tiny test model has fewer than the scheduler's batch). */
  mixedRouteBatchLimit: number;
  log(message: string): void;
}

export interface AuditBenchFigures {
  questions: number;
  budget: number;
  tokenLimits: [number, number];
  generationsPerPath: number;
  generatedTokensPerPath: number;
  staged: { maxBatch: number; chunk: number; seconds: number[]; tokensPerSecond: number[]; breakdown: StepBreakdown[] } | null;
  scheduled: { maxBatch: number; inFlight: number; seconds: number[]; tokensPerSecond: number[]; breakdown: StepBreakdown[]; profile: AuditProfile[] };
  /** Per round: scheduled tokens/s over staged tokens/s. */
  ratios: number[];
  medianRatio: number;
  recordsIdentical: boolean;
  /** The engine's mixed-route decode tokens/s at the scheduler's batch, measured in each round next to the audit. */
  engine: { batch: number; promptTokens: number; mixedRouteDecodeTokensPerSecond: number[] };
  /** Per round: the audit's tokens/s over the engine's mixed-route decode tokens/s. */
  engineRatios: number[];
  medianEngineRatio: number;
  /**
   * Per round, the gap split in two (see workAtEngineSpeed): the most audit/engine could reach with
   * the prefill this workload needs, and the audit's wall time against the engine's time for the
   * same work (its prefill as measured, every decoded token at the reference speed).
   */
  prefillBounds: number[];
  schedulingEfficiencies: number[];
}

/**
 * The audit's own work at the engine's speed. Every route runs its prompt through its own blocks
 * (a route applies to prompt and generated tokens alike, docs/design/probes.md), so the audit must prefill each
 * question's prompt once per route beyond what the prefix store shares: that work is not decode and
 * no scheduling removes it. Its time is taken as measured in the audit (prompts of one length in
 * calls of several, compute-bound); each token after a generation's first (which the prefill gives)
 * at the reference decode speed.
 */
export function workAtEngineSpeed(p: Pick<AuditProfile, 'prefillSeconds' | 'wallSeconds'>, tokens: number, generations: number, referenceTokensPerSecond: number): { seconds: number; prefillBound: number; schedulingEfficiency: number } {
  const decodeSeconds = Math.max(0, tokens - generations) / referenceTokensPerSecond;
  const seconds = p.prefillSeconds + decodeSeconds;
  const atReference = tokens / referenceTokensPerSecond;
  return { seconds, prefillBound: seconds > 0 ? atReference / seconds : 0, schedulingEfficiency: p.wallSeconds > 0 ? seconds / p.wallSeconds : 0 };
}

/**
 * Where the scheduled audit's wall time went (seconds), from the generation queue's own clock
 * (SchedulerProfile): they add up to the wall time.
 */
export interface AuditProfile {
  wallSeconds: number;
  prefillSeconds: number;
  decodeSeconds: number;
  /** Choosing each step's tokens (top-p sampling and log-probabilities). */
  chooseSeconds: number;
  /** The queue loop's turns between steps: admission, and the callers' turn (grading, new requests). */
  betweenSeconds: number;
  /** The queue empty: every open question waiting on something other than the engine. */
  idleSeconds: number;
  /** Re-grading every output of the path once, timed alone: the grading inside `between`. */
  gradingSeconds: number;
  /** Mean sequences per decode step, against the most (the batch), and the decode steps. */
  meanDecodeBatch: number;
  maxBatch: number;
  decodeSteps: number;
  /** Places left empty in decode steps while requests waited (admitted only at the next step). */
  emptyPlacesWhileWaiting: number;
  /** Decode steps whose batch held only route-search sequences (the search's sequential tail), and their seconds. */
  searchOnlySteps: number;
  searchOnlySeconds: number;
  /** Prefill steps, prompts run in them, and prompts per prefill step. */
  prefillSteps: number;
  prefillRows: number;
}

/** Where one path's time went: the engine's steps (from Model.onStep) and its block calls. */
export interface StepBreakdown {
  prefillSteps: number;
  prefillSeconds: number;
  /** Prompt block rows run, and those taken from an identical row of the same call (shared prefix). */
  prefillBlockRows: number;
  sharedPrefixRows: number;
  /** Prompt block rows taken from an earlier prefill of the same prompt (the prefix store). */
  storedPrefixRows: number;
  decodeSteps: number;
  decodeSeconds: number;
  /** Sequences per decode step, on average. */
  meanDecodeBatch: number;
  /** Block calls per decode step (a batch of diverse routes splits into more calls). */
  blockCallsPerDecodeStep: number;
  /** Copies of KV caches into a fresh buffer (batch membership changed), and their bytes. */
  kvGathers: number;
  kvGatheredMB: number;
  /** Single caches moved into a free row, and idle rows run (see kvCache.ts). */
  kvRowMoves: number;
  kvIdleRows: number;
  /** Wall time outside the engine's steps: scheduling, sampling, grading, the audit itself. */
  otherSeconds: number;
}

/** The staged runner's defaults before the scheduler (questions per chunk, sequences per batch). */
const STAGED_CHUNK = 32;
const STAGED_MAX_BATCH = 16;


/** GSM8K-shaped word problems of varied length, with gold answers. */
export function benchQuestionsText(n: number): string {
  const names = ['Natalia', 'Weng', 'Betty', 'Julie', 'James', 'Albert', 'Ken', 'Alexis'];
  const things = ['clips', 'books', 'apples', 'marbles', 'stickers', 'pencils'];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = 12 + ((i * 37) % 80);
    const b = 3 + ((i * 11) % 9);
    const extra = ' She also kept a careful record of every sale in a notebook, day by day.'.repeat(i % 4);
    const question = `${names[i % names.length]} sold ${things[i % things.length]} to ${a} of her friends in April, and then she sold ${b} times as many in May.${extra} How many ${things[i % things.length]} did she sell altogether in April and May?`;
    lines.push(JSON.stringify({ id: `bench-${i}`, question, answer: `${a} + ${a * b} = ${a + a * b}\n#### ${a + a * b}` }));
  }
  return lines.join('\n') + '\n';
}

/** What an audit generate call is for, from its shape (the bench's settings have no repair or route pool). */
function kindOf(requests: readonly GenerationRequest[]): string {
  if (requests.length === 1) return requests[0].route ? 'search' : 'deployment';
  return requests[0].route ? 'routes' : 'sample';
}

/** Gives every request its own token limit, the same for the same request on every path. */
export class SpreadTokenLimits implements TextGenerator {
  /** Requests submitted and not yet returned, by kind. */
  readonly open = new Map<string, number>();
  constructor(private readonly model: Model, private readonly min: number, private readonly max: number) {}
  get numBlocks(): number { return this.model.numBlocks; }
  get context() { return this.model.context; }
  encodeChat(...args: Parameters<TextGenerator['encodeChat']>): number[] { return this.model.encodeChat(...args); }
  encodeRaw(text: string): number[] { return this.model.encodeRaw(text); }
  decode(ids: readonly number[]): string { return this.model.decode(ids); }
  async generate(requests: readonly GenerationRequest[], signal?: AbortSignal, options?: GenerateOptions): Promise<Generation[]> {
    const kind = kindOf(requests);
    this.open.set(kind, (this.open.get(kind) ?? 0) + requests.length);
    try {
      return await this.model.generate(requests.map((r) => ({ ...r, maxNewTokens: this.limitOf(r) })), signal, options);
    } finally {
      this.open.set(kind, (this.open.get(kind) ?? 0) - requests.length);
    }
  }
  limitOf(r: GenerationRequest): number {
    const h = createHash('sha256').update(JSON.stringify([r.promptIds, r.route ?? null, r.silencedMlp ?? null, r.decoding.seed])).digest();
    const u = h.readUInt32LE(0) / 4294967296;
    return Math.round(Math.exp(Math.log(this.min) + u * (Math.log(this.max) - Math.log(this.min))));
  }
}

export function benchSettings(budget: number, maxTokens: number): RunSettings {
  return {
    deployment: { ...DEFAULT_DEPLOYMENT, maxNewTokens: maxTokens },
    probes: [
      { name: 'sample', budget },
      { name: 'routes', budget },
      { name: 'search', budget },
    ],
    probeDecoding: { ...DEFAULT_PROBE_DECODING },
    selectors: ['majority', 'confidence'],
    repair: { enabled: false, referenceProbes: ['sample', 'routes', 'search'] },
    globalRoutes: { count: 0, routes: [] },
    seeds: { run: 0 },
    routeSpace: { maxEdits: 4 },
    search: { ...DEFAULT_SEARCH },
    grading: { ...DEFAULT_GRADING },
    selection: { limit: null, ids: null },
  };
}

export function tokensOf(records: readonly QuestionRecord[]): { generations: number; tokens: number } {
  let generations = 0;
  let tokens = 0;
  for (const r of records) {
    for (const c of [r.realized.cost, ...Object.values(r.probes).map((p) => p.cost)]) {
      generations += c.generations;
      tokens += c.tokens;
    }
  }
  return { generations, tokens };
}

/** Seconds to grade every output of `records` once (deployment and attempts), as the audit does. */
function gradingSeconds(records: readonly QuestionRecord[], questions: ReturnType<typeof parseDataset>['questions']): number {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const started = performance.now();
  for (const r of records) {
    const q = byId.get(r.id);
    if (!q) continue;
    for (const a of [r.realized, ...Object.values(r.probes).flatMap((p) => p.attempts)]) grade(a.output, q, { truncated: a.truncated, grading: DEFAULT_GRADING });
  }
  return (performance.now() - started) / 1000;
}

export interface PathRun {
  seconds: number;
  records: QuestionRecord[];
  breakdown: StepBreakdown;
  profile: AuditProfile;
}

/** One path's run of the audit workload on `questions`: its wall time, records and where the time went. */
export async function runAuditPath(model: Model, generator: SpreadTokenLimits, questions: ReturnType<typeof parseDataset>['questions'], settings: RunSettings, path: 'staged' | 'scheduled', o: { maxBatch: number; inFlight: number }): Promise<PathRun> {
  const records: QuestionRecord[] = [];
  const b: StepBreakdown = { prefillSteps: 0, prefillSeconds: 0, prefillBlockRows: 0, sharedPrefixRows: 0, storedPrefixRows: 0, decodeSteps: 0, decodeSeconds: 0, meanDecodeBatch: 0, blockCallsPerDecodeStep: 0, kvGathers: 0, kvGatheredMB: 0, kvRowMoves: 0, kvIdleRows: 0, otherSeconds: 0 };
  let decodeRows = 0;
  let decodeCalls = 0;
  let searchOnlySteps = 0;
  let searchOnlyMs = 0;
  // The queue's loop counts its running time when it stops: let the last generation's loop stop first.
  await new Promise((resolve) => setImmediate(resolve));
  const stats0 = { ...model.stats };
  const profile0: SchedulerProfile = { ...model.schedulerProfile };
  let callsBefore = model.stats.blockCalls;
  let rowsBefore = model.stats.blockRows;
  model.onStep = (s) => {
    if (s.prefill) {
      b.prefillSteps++;
      b.prefillSeconds += s.ms / 1000;
      b.prefillBlockRows += model.stats.blockRows - rowsBefore;
    } else {
      b.decodeSteps++;
      b.decodeSeconds += s.ms / 1000;
      decodeRows += s.batch;
      decodeCalls += model.stats.blockCalls - callsBefore;
      if ((generator.open.get('search') ?? 0) > 0 && [...generator.open].every(([k, n]) => k === 'search' || n === 0)) {
        searchOnlySteps++;
        searchOnlyMs += s.ms;
      }
    }
    callsBefore = model.stats.blockCalls;
    rowsBefore = model.stats.blockRows;
  };
  const maxBatch = path === 'staged' ? STAGED_MAX_BATCH : o.maxBatch;
  const started = performance.now();
  if (path === 'staged') {
    model.maxBatch = STAGED_MAX_BATCH;
    await auditQuestionsByStage(generator, questions, settings, { onRecord: (r) => records.push(r) }, { chunkSize: STAGED_CHUNK });
  } else {
    model.maxBatch = o.maxBatch;
    await auditQuestions(generator, questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: o.inFlight });
  }
  const seconds = (performance.now() - started) / 1000;
  model.onStep = undefined;
  // The queue's loop notices it has nothing left at its next turn: let it stop, so its running time is counted.
  await new Promise((resolve) => setImmediate(resolve));
  b.meanDecodeBatch = decodeRows / Math.max(1, b.decodeSteps);
  b.blockCallsPerDecodeStep = decodeCalls / Math.max(1, b.decodeSteps);
  b.kvGathers = model.stats.kvGathers - stats0.kvGathers;
  b.kvGatheredMB = (model.stats.kvGatheredBytes - stats0.kvGatheredBytes) / 1e6;
  b.kvRowMoves = model.stats.kvRowMoves - stats0.kvRowMoves;
  b.kvIdleRows = model.stats.kvIdleRows - stats0.kvIdleRows;
  b.sharedPrefixRows = model.stats.sharedPrefixRows - stats0.sharedPrefixRows;
  b.storedPrefixRows = model.stats.storedPrefixRows - stats0.storedPrefixRows;
  b.otherSeconds = seconds - b.prefillSeconds - b.decodeSeconds;
  const p = model.schedulerProfile;
  const d = (k: keyof SchedulerProfile): number => p[k] - profile0[k];
  const running = d('runningMs') / 1000;
  const profile: AuditProfile = {
    wallSeconds: seconds,
    prefillSeconds: d('prefillMs') / 1000,
    decodeSeconds: d('decodeMs') / 1000,
    chooseSeconds: d('chooseMs') / 1000,
    betweenSeconds: running - (d('prefillMs') + d('decodeMs') + d('chooseMs')) / 1000,
    idleSeconds: Math.max(0, seconds - running),
    gradingSeconds: gradingSeconds(records, questions),
    meanDecodeBatch: d('decodeRows') / Math.max(1, d('decodeSteps')),
    maxBatch,
    decodeSteps: d('decodeSteps'),
    emptyPlacesWhileWaiting: d('emptyPlacesWhileWaiting'),
    searchOnlySteps,
    searchOnlySeconds: searchOnlyMs / 1000,
    prefillSteps: d('prefillSteps'),
    prefillRows: d('prefillRows'),
  };
  return { seconds, records, breakdown: b, profile };
}

export async function benchAudit(model: Model, o: AuditBenchOptions): Promise<AuditBenchFigures> {
  const dataset = parseDataset('bench-questions.jsonl', benchQuestionsText(o.questions));
  const settings = benchSettings(o.budget, o.maxTokens);
  const generator = new SpreadTokenLimits(model, o.minTokens, o.maxTokens);
  const restore = model.maxBatch;
  // The reference decode runs after prompts as long as the audit's, on average.
  const promptLengths = dataset.questions.map((q) => startRecord(q, settings, generator).ids?.length ?? 0);
  const promptTokens = Math.round(promptLengths.reduce((a, b) => a + b, 0) / Math.max(1, promptLengths.length));
  const runPath = (path: 'staged' | 'scheduled'): Promise<PathRun> => runAuditPath(model, generator, dataset.questions, settings, path, o);
  const figures: AuditBenchFigures = {
    questions: o.questions,
    budget: o.budget,
    tokenLimits: [o.minTokens, o.maxTokens],
    generationsPerPath: 0,
    generatedTokensPerPath: 0,
    staged: o.staged ? { maxBatch: STAGED_MAX_BATCH, chunk: STAGED_CHUNK, seconds: [], tokensPerSecond: [], breakdown: [] } : null,
    scheduled: { maxBatch: o.maxBatch, inFlight: o.inFlight, seconds: [], tokensPerSecond: [], breakdown: [], profile: [] },
    ratios: [],
    medianRatio: 0,
    recordsIdentical: true,
    engine: { batch: Math.min(o.maxBatch, o.mixedRouteBatchLimit), promptTokens, mixedRouteDecodeTokensPerSecond: [] },
    engineRatios: [],
    medianEngineRatio: 0,
    prefillBounds: [],
    schedulingEfficiencies: [],
  };
  try {
    for (let round = 0; round < o.rounds; round++) {
      // Alternate which path goes first, so drift in the machine's speed falls on both; the
      // engine's reference decode is measured between them (or before the audit on even rounds).
      const paths: ('staged' | 'scheduled' | 'engine')[] = o.staged ? ['staged', 'engine', 'scheduled'] : ['engine', 'scheduled'];
      const order = round % 2 === 0 ? paths : [...paths].reverse();
      const results: Partial<Record<'staged' | 'scheduled', PathRun>> = {};
      let engineTokensPerSecond = 0;
      for (const path of order) {
        if (path === 'engine') {
          model.maxBatch = o.maxBatch;
          engineTokensPerSecond = await o.mixedRouteDecode(figures.engine.batch, promptTokens);
        } else {
          results[path] = await runPath(path);
        }
      }
      const scheduled = results.scheduled!;
      const work = tokensOf(scheduled.records);
      figures.generationsPerPath = work.generations;
      figures.generatedTokensPerPath = work.tokens;
      figures.scheduled.breakdown.push(scheduled.breakdown);
      figures.scheduled.profile.push(scheduled.profile);
      figures.scheduled.seconds.push(scheduled.seconds);
      figures.scheduled.tokensPerSecond.push(work.tokens / scheduled.seconds);
      figures.engine.mixedRouteDecodeTokensPerSecond.push(engineTokensPerSecond);
      figures.engineRatios.push(work.tokens / scheduled.seconds / engineTokensPerSecond);
      const atEngine = workAtEngineSpeed(scheduled.profile, work.tokens, work.generations, engineTokensPerSecond);
      figures.prefillBounds.push(atEngine.prefillBound);
      figures.schedulingEfficiencies.push(atEngine.schedulingEfficiency);
      if (o.recordsFile && round === 0) {
        const sorted = [...scheduled.records].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
        fs.writeFileSync(o.recordsFile, sorted.map((r) => JSON.stringify(r)).join('\n') + '\n');
      }
      o.log(`  scheduled: ${breakdownText(scheduled.breakdown)}`);
      o.log(`  scheduled profile: ${profileText(scheduled.profile)}`);
      let stagedText = '';
      const staged = results.staged;
      if (staged && figures.staged) {
        const byId = new Map(scheduled.records.map((r) => [r.id, JSON.stringify(r)]));
        if (scheduled.records.length !== staged.records.length || staged.records.some((r) => byId.get(r.id) !== JSON.stringify(r))) figures.recordsIdentical = false;
        figures.staged.breakdown.push(staged.breakdown);
        figures.staged.seconds.push(staged.seconds);
        figures.staged.tokensPerSecond.push(work.tokens / staged.seconds);
        figures.ratios.push(staged.seconds / scheduled.seconds);
        o.log(`  staged: ${breakdownText(staged.breakdown)}`);
        stagedText = `staged ${staged.seconds.toFixed(1)} s (${(work.tokens / staged.seconds).toFixed(1)} tok/s), ${(staged.seconds / scheduled.seconds).toFixed(2)}x; `;
      }
      o.log(`audit round ${round + 1}/${o.rounds}: ${work.generations} generations, ${work.tokens} tokens; ${stagedText}scheduled ${scheduled.seconds.toFixed(1)} s (${(work.tokens / scheduled.seconds).toFixed(1)} tok/s); engine mixed-route decode at batch ${figures.engine.batch} ${engineTokensPerSecond.toFixed(1)} tok/s; audit / engine ${figures.engineRatios[round].toFixed(2)}`);
    }
  } finally {
    model.maxBatch = restore;
  }
  figures.medianRatio = figures.ratios.length > 0 ? median(figures.ratios) : 0;
  figures.medianEngineRatio = median(figures.engineRatios);
  return figures;
}

function profileText(p: AuditProfile): string {
  const pc = (x: number) => `${x.toFixed(1)} s (${((100 * x) / p.wallSeconds).toFixed(0)}%)`;
  return `wall ${p.wallSeconds.toFixed(1)} s = prefill ${pc(p.prefillSeconds)} + decode ${pc(p.decodeSeconds)} + token choice ${pc(p.chooseSeconds)} + between steps ${pc(p.betweenSeconds)} (grading alone ${p.gradingSeconds.toFixed(2)} s) + queue empty ${pc(p.idleSeconds)}; decode ${p.decodeSteps} steps at ${p.meanDecodeBatch.toFixed(1)} of ${p.maxBatch} sequences, ${p.emptyPlacesWhileWaiting} places empty while requests waited; search-only steps ${p.searchOnlySteps} (${pc(p.searchOnlySeconds)}); prefill ${p.prefillSteps} steps, ${(p.prefillRows / Math.max(1, p.prefillSteps)).toFixed(1)} prompts per step`;
}

function breakdownText(b: StepBreakdown): string {
  return `prefill ${b.prefillSteps} steps ${b.prefillSeconds.toFixed(1)} s, ${b.prefillBlockRows} prompt block rows run, ${b.sharedPrefixRows} shared in their call and ${b.storedPrefixRows} from the prefix store; decode ${b.decodeSteps} steps ${b.decodeSeconds.toFixed(1)} s, ${b.meanDecodeBatch.toFixed(1)} sequences and ${b.blockCallsPerDecodeStep.toFixed(1)} block calls per step; KV gathers ${b.kvGathers}, row moves ${b.kvRowMoves} (${b.kvGatheredMB.toFixed(0)} MB copied), idle rows ${b.kvIdleRows}; outside the engine ${b.otherSeconds.toFixed(1)} s`;
}

export function auditBenchText(f: AuditBenchFigures): string[] {
  const med = (xs: number[]) => median(xs).toFixed(1);
  const prof = (k: keyof AuditProfile) => median(f.scheduled.profile.map((p) => p[k] as number));
  return [
    `audit workload   ${f.questions} questions × (deployment + sample/routes/search:${f.budget}) = ${f.generationsPerPath} generations, ${f.generatedTokensPerPath} tokens; limits ${f.tokenLimits[0]}–${f.tokenLimits[1]} tokens (log-uniform per request)`,
    ...(f.staged ? [`  staged         ${med(f.staged.tokensPerSecond)} tokens/s, ${med(f.staged.seconds)} s (chunks of ${f.staged.chunk} questions, batch ${f.staged.maxBatch})`] : []),
    `  scheduled      ${med(f.scheduled.tokensPerSecond)} tokens/s, ${med(f.scheduled.seconds)} s (${f.scheduled.inFlight} questions open, batch ${f.scheduled.maxBatch})`,
    ...(f.staged ? [`  ratio          ${f.medianRatio.toFixed(2)}x (median of ${f.ratios.length} interleaved rounds: ${f.ratios.map((r) => r.toFixed(2)).join(' ')}); records identical: ${f.recordsIdentical ? 'yes' : 'NO'}`] : []),
    `engine           ${med(f.engine.mixedRouteDecodeTokensPerSecond)} tokens/s mixed-route decode at batch ${f.engine.batch} (${f.engine.promptTokens}-token prompts, one skip or repeat per route)`,
    `audit / engine   ${f.medianEngineRatio.toFixed(2)} (median of ${f.engineRatios.length} rounds: ${f.engineRatios.map((r) => r.toFixed(2)).join(' ')}; target >= 0.8)`,
    `  the gap       prefill bound ${median(f.prefillBounds).toFixed(2)} (the most audit / engine can reach with the prompts this workload prefills, every route its own, at the prefill speed measured); ` +
      `scheduling ${median(f.schedulingEfficiencies).toFixed(2)} (the engine's time for the same work — that prefill plus every later token at the reference decode speed — over the audit's wall time); audit / engine = prefill bound × scheduling`,
    `  where it went  (medians, s) prefill ${prof('prefillSeconds').toFixed(1)}, decode ${prof('decodeSeconds').toFixed(1)}, token choice ${prof('chooseSeconds').toFixed(1)}, between steps ${prof('betweenSeconds').toFixed(1)} (grading ${prof('gradingSeconds').toFixed(2)}), queue empty ${prof('idleSeconds').toFixed(1)}; decode batch ${prof('meanDecodeBatch').toFixed(1)} of ${f.scheduled.maxBatch}; search-only decode ${prof('searchOnlySeconds').toFixed(1)} s`,
  ];
}
