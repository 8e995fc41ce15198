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
import type { GenerateOptions, Generation, GenerationRequest, Model, TextGenerator } from '../engine';
import { parseDataset } from '../audit/dataset';
import { DEFAULT_DEPLOYMENT, DEFAULT_PROBE_DECODING, DEFAULT_SEARCH } from '../audit/probes';
import { DEFAULT_GRADING } from '../audit/answers';
import type { QuestionRecord, RunSettings } from '../contract';
import { median } from '../common';
import { auditQuestions } from '../audit/runner';
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
  log(message: string): void;
}

export interface AuditBenchFigures {
  questions: number;
  budget: number;
  tokenLimits: [number, number];
  generationsPerPath: number;
  generatedTokensPerPath: number;
  staged: { maxBatch: number; chunk: number; seconds: number[]; tokensPerSecond: number[]; breakdown: StepBreakdown[] };
  scheduled: { maxBatch: number; inFlight: number; seconds: number[]; tokensPerSecond: number[]; breakdown: StepBreakdown[] };
  /** Per round: scheduled tokens/s over staged tokens/s. */
  ratios: number[];
  medianRatio: number;
  recordsIdentical: boolean;
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

/** Gives every request its own token limit, the same for the same request on every path. */
class SpreadTokenLimits implements TextGenerator {
  constructor(private readonly model: Model, private readonly min: number, private readonly max: number) {}
  get numBlocks(): number { return this.model.numBlocks; }
  get context() { return this.model.context; }
  encodeChat(messages: Parameters<TextGenerator['encodeChat']>[0]): number[] { return this.model.encodeChat(messages); }
  encodeRaw(text: string): number[] { return this.model.encodeRaw(text); }
  decode(ids: readonly number[]): string { return this.model.decode(ids); }
  generate(requests: readonly GenerationRequest[], signal?: AbortSignal, options?: GenerateOptions): Promise<Generation[]> {
    return this.model.generate(requests.map((r) => ({ ...r, maxNewTokens: this.limitOf(r) })), signal, options);
  }
  limitOf(r: GenerationRequest): number {
    const h = createHash('sha256').update(JSON.stringify([r.promptIds, r.route ?? null, r.silencedMlp ?? null, r.decoding.seed])).digest();
    const u = h.readUInt32LE(0) / 4294967296;
    return Math.round(Math.exp(Math.log(this.min) + u * (Math.log(this.max) - Math.log(this.min))));
  }
}

function benchSettings(budget: number, maxTokens: number): RunSettings {
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

function tokensOf(records: readonly QuestionRecord[]): { generations: number; tokens: number } {
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

export async function benchAudit(model: Model, o: AuditBenchOptions): Promise<AuditBenchFigures> {
  const dataset = parseDataset('bench-questions.jsonl', benchQuestionsText(o.questions));
  const settings = benchSettings(o.budget, o.maxTokens);
  const generator = new SpreadTokenLimits(model, o.minTokens, o.maxTokens);
  const restore = model.maxBatch;
  const runPath = async (path: 'staged' | 'scheduled'): Promise<{ seconds: number; records: QuestionRecord[]; breakdown: StepBreakdown }> => {
    const records: QuestionRecord[] = [];
    const b: StepBreakdown = { prefillSteps: 0, prefillSeconds: 0, prefillBlockRows: 0, sharedPrefixRows: 0, storedPrefixRows: 0, decodeSteps: 0, decodeSeconds: 0, meanDecodeBatch: 0, blockCallsPerDecodeStep: 0, kvGathers: 0, kvGatheredMB: 0, kvRowMoves: 0, kvIdleRows: 0, otherSeconds: 0 };
    let decodeRows = 0;
    let decodeCalls = 0;
    const stats0 = { ...model.stats };
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
      }
      callsBefore = model.stats.blockCalls;
      rowsBefore = model.stats.blockRows;
    };
    const started = performance.now();
    if (path === 'staged') {
      model.maxBatch = STAGED_MAX_BATCH;
      await auditQuestionsByStage(generator, dataset.questions, settings, { onRecord: (r) => records.push(r) }, { chunkSize: STAGED_CHUNK });
    } else {
      model.maxBatch = o.maxBatch;
      await auditQuestions(generator, dataset.questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: o.inFlight });
    }
    const seconds = (performance.now() - started) / 1000;
    model.onStep = undefined;
    b.meanDecodeBatch = decodeRows / Math.max(1, b.decodeSteps);
    b.blockCallsPerDecodeStep = decodeCalls / Math.max(1, b.decodeSteps);
    b.kvGathers = model.stats.kvGathers - stats0.kvGathers;
    b.kvGatheredMB = (model.stats.kvGatheredBytes - stats0.kvGatheredBytes) / 1e6;
    b.kvRowMoves = model.stats.kvRowMoves - stats0.kvRowMoves;
    b.kvIdleRows = model.stats.kvIdleRows - stats0.kvIdleRows;
    b.sharedPrefixRows = model.stats.sharedPrefixRows - stats0.sharedPrefixRows;
    b.storedPrefixRows = model.stats.storedPrefixRows - stats0.storedPrefixRows;
    b.otherSeconds = seconds - b.prefillSeconds - b.decodeSeconds;
    return { seconds, records, breakdown: b };
  };
  const figures: AuditBenchFigures = {
    questions: o.questions,
    budget: o.budget,
    tokenLimits: [o.minTokens, o.maxTokens],
    generationsPerPath: 0,
    generatedTokensPerPath: 0,
    staged: { maxBatch: STAGED_MAX_BATCH, chunk: STAGED_CHUNK, seconds: [], tokensPerSecond: [], breakdown: [] },
    scheduled: { maxBatch: o.maxBatch, inFlight: o.inFlight, seconds: [], tokensPerSecond: [], breakdown: [] },
    ratios: [],
    medianRatio: 0,
    recordsIdentical: true,
  };
  try {
    for (let round = 0; round < o.rounds; round++) {
      // Alternate which path goes first, so drift in the machine's speed falls on both.
      const order: ('staged' | 'scheduled')[] = round % 2 === 0 ? ['staged', 'scheduled'] : ['scheduled', 'staged'];
      const results: Partial<Record<'staged' | 'scheduled', { seconds: number; records: QuestionRecord[]; breakdown: StepBreakdown }>> = {};
      for (const path of order) results[path] = await runPath(path);
      const staged = results.staged!;
      const scheduled = results.scheduled!;
      const work = tokensOf(staged.records);
      figures.generationsPerPath = work.generations;
      figures.generatedTokensPerPath = work.tokens;
      const byId = new Map(scheduled.records.map((r) => [r.id, JSON.stringify(r)]));
      if (scheduled.records.length !== staged.records.length || staged.records.some((r) => byId.get(r.id) !== JSON.stringify(r))) figures.recordsIdentical = false;
      figures.staged.breakdown.push(staged.breakdown);
      figures.scheduled.breakdown.push(scheduled.breakdown);
      figures.staged.seconds.push(staged.seconds);
      figures.scheduled.seconds.push(scheduled.seconds);
      figures.staged.tokensPerSecond.push(work.tokens / staged.seconds);
      figures.scheduled.tokensPerSecond.push(work.tokens / scheduled.seconds);
      figures.ratios.push(staged.seconds / scheduled.seconds);
      for (const [name, r] of [['staged', staged], ['scheduled', scheduled]] as const) o.log(`  ${name}: ${breakdownText(r.breakdown)}`);
      o.log(`audit round ${round + 1}/${o.rounds}: ${work.generations} generations, ${work.tokens} tokens; staged ${staged.seconds.toFixed(1)} s (${(work.tokens / staged.seconds).toFixed(1)} tok/s), scheduled ${scheduled.seconds.toFixed(1)} s (${(work.tokens / scheduled.seconds).toFixed(1)} tok/s), ${(staged.seconds / scheduled.seconds).toFixed(2)}x`);
    }
  } finally {
    model.maxBatch = restore;
  }
  figures.medianRatio = median(figures.ratios);
  return figures;
}

function breakdownText(b: StepBreakdown): string {
  return `prefill ${b.prefillSteps} steps ${b.prefillSeconds.toFixed(1)} s, ${b.prefillBlockRows} prompt block rows run, ${b.sharedPrefixRows} shared in their call and ${b.storedPrefixRows} from the prefix store; decode ${b.decodeSteps} steps ${b.decodeSeconds.toFixed(1)} s, ${b.meanDecodeBatch.toFixed(1)} sequences and ${b.blockCallsPerDecodeStep.toFixed(1)} block calls per step; KV gathers ${b.kvGathers}, row moves ${b.kvRowMoves} (${b.kvGatheredMB.toFixed(0)} MB copied), idle rows ${b.kvIdleRows}; outside the engine ${b.otherSeconds.toFixed(1)} s`;
}

export function auditBenchText(f: AuditBenchFigures): string[] {
  const med = (xs: number[]) => median(xs).toFixed(1);
  return [
    `audit workload   ${f.questions} questions × (deployment + sample/routes/search:${f.budget}) = ${f.generationsPerPath} generations, ${f.generatedTokensPerPath} tokens; limits ${f.tokenLimits[0]}–${f.tokenLimits[1]} tokens (log-uniform per request)`,
    `  staged         ${med(f.staged.tokensPerSecond)} tokens/s, ${med(f.staged.seconds)} s (chunks of ${f.staged.chunk} questions, batch ${f.staged.maxBatch})`,
    `  scheduled      ${med(f.scheduled.tokensPerSecond)} tokens/s, ${med(f.scheduled.seconds)} s (${f.scheduled.inFlight} questions open, batch ${f.scheduled.maxBatch})`,
    `  ratio          ${f.medianRatio.toFixed(2)}x (median of ${f.ratios.length} interleaved rounds: ${f.ratios.map((r) => r.toFixed(2)).join(' ')}); records identical: ${f.recordsIdentical ? 'yes' : 'NO'}`,
  ];
}
