/**
 * reach-audit bench: prefill and decode speed (batch 1 and batch 16) and peak memory of a model,
 * against a memory-copy bandwidth measured in the same run. Figures are medians of --runs runs.
 *
 * Every generation step is timed on its own: step 0 (the whole prompt) gives prefill tokens/s,
 * the later steps (one token per sequence) give decode tokens/s, so prefill never leaks into it.
 * Bandwidth limit: a batch-1 decode step has to read every block weight and the lm_head once, so
 *   limit tokens/s = copy bandwidth / (weight bytes read per token),
 * with copy bandwidth counted STREAM-style (bytes read + bytes written per second by memcpy).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from '../cli/command';
import { UsageError } from '../cli/command';
import { MODEL_FLAGS, MODEL_FLAGS_HELP, parseFlags, parseKvCache, parseWeights, parseWholeNumber, progressToStderr } from '../cli/flags';
import { writeRandomQwen05bModel } from './randomBenchModel';
import { DEFAULT_MAX_BATCH, loadModel, type GenerationRequest, type Model } from '../engine';
import { median, parseMemorySize } from '../common';
import { benchKvFidelity, kvFidelityText } from './kvCacheFidelity';
import { auditBenchText, benchAudit } from './benchAudit';
import { auditSweepText, benchAuditSweep, parseSweepList } from './benchAuditSweep';
import { benchEstimate } from './benchEstimate';
import { ENGINE_ALLOCATOR_ENV } from '../service';
import { peakRss, resetPeakRss } from './peakRss';

const help = [
  'Usage: reach-audit bench (--model DIR | --random-qwen-0.5b [--random-dir DIR]) [options]',
  '',
  'Measures prefill tokens/s, decode tokens/s at batch 1 and 16, and peak memory, and compares',
  'batch-1 decode with the memory-bandwidth limit measured in the same run.',
  '',
  'Options:',
  ...MODEL_FLAGS_HELP,
  '  --random-qwen-0.5b   bench a random-weight model with the shape of Qwen2.5-0.5B (written once)',
  '  --random-dir DIR     where that model is written (default: <tmp>/reach-audit-qwen05b-random)',
  '  --prompt-tokens N    prompt length (default 64)',
  '  --decode-tokens N    decode steps timed per run (default 16)',
  '  --batch N            the large batch size (default 16)',
  '  --runs N             runs per figure; medians are reported (default 3)',
  '  --long N,N,...       also generate N tokens at batch 1 (e.g. 64,512,2048): decode tokens/s and',
  '                       the per-token time at token 100 vs at the last 50 tokens (KV growth cost)',
  '  --batches N,N,...    also decode tokens/s at each of these batch sizes (e.g. 1,8,16,32,64)',
  '  --contexts N,N,...   also decode at long contexts (e.g. 2048,8192,16384), batch 1 and --batch: one',
  '                       prompt of N - --context-steps tokens prefilled in chunks, shared by the',
  '                       sequences, then --context-steps decode steps (default 32): decode tokens/s,',
  '                       ms per step at the start and end vs at a 128-token context, KV cache bytes',
  '                       and peak RSS (the batch of --batch needs --batch × N slots of cache)',
  '  --kv-fidelity N      instead: an f16 KV cache against the f32 cache at an N-token context',
  '                       (--kv-prompts prompts, default 2, of N - --kv-new-tokens tokens, default 64,',
  '                       greedy): token agreement, log-prob error, decode ms per step (--runs',
  '                       interleaved rounds) and the KV planner\'s bytes per sequence at each',
  '                       precision, with the sequences a --kv-budget (default 8G) admits',
  '  --json               print the figures as JSON',
  '  --inherit-allocator  measure in this process as started; by default the bench measures in a',
  "                       process with the engine processes' allocator settings (on Linux)",
  '',
  'The audit workload (--audit, instead of the figures above): deployment + sample, routes and search',
  'at budget B on GSM8K-shaped questions, each request with its own token limit, run through the',
  "audit's scheduler and through the stage-by-stage runner it replaced, in interleaved rounds:",
  '  --audit-questions N  questions (default 32)',
  '  --audit-budget B     attempts per probe (default 16)',
  '  --audit-tokens A-B   per-request token limits, log-uniform in [A, B] (default 40-300)',
  '  --audit-rounds N     interleaved rounds; medians and the per-round ratio are reported (default 3)',
  '  --audit-no-staged    run the scheduler only (not the stage-by-stage runner it is compared with)',
  "  --audit-records FILE write the scheduler's records of the first round (JSON lines by id), to",
  '                       compare two builds byte for byte',
  "Each round also measures the engine's decode tokens/s on a batch of mixed routes as large as the",
  "scheduler's, after prompts as long as the audit's, and prints the audit's tokens/s over it and",
  'where the audit spent its time (prefill, decode, token choice, between steps, queue empty).',
  'How the cost grows (--audit with either list, instead of the comparison above; scheduler only):',
  '  --audit-sizes N,N,...    question counts to sweep (e.g. 8,16,32,64; default: --audit-questions)',
  '  --audit-budgets B,B,...  budgets to sweep (e.g. 4,16,64; default: --audit-budget)',
  '  Every (questions, budget) cell runs once per round, the cells\' order rotating per round; a',
  '  smaller size runs the first questions of the larger, each cell from an empty prompt-prefix store.',
  '  Per cell: generations, tokens, seconds, tokens/s median (min-max), its tokens/s over the',
  "  16-question cell's of its budget (the smallest size's without 16) per round and median (flat",
  '  is the goal), and where the time went; cells below 0.9 are listed with what differs.',
  '',
  'The estimates (--estimate, with the audit command\'s flags, e.g. --data FILE --limit 8): runs one audit',
  'and sets its pre-run estimate and the time-left ranges shown at 5, 10, 25 and 50% of the run against',
  'the time it actually took (target: the upper end within +25% / -10%).',
].join('\n');


/**
 * memcpy bandwidth (read + write bytes per second), median of several 256 MiB copies. Runs in a
 * child process so its buffers never count toward this process's peak memory.
 */
export function copyBandwidth(runs = 5): number {
  const script = `
    const bytes = 256 * 1024 * 1024, src = Buffer.alloc(bytes, 1), dst = Buffer.alloc(bytes);
    src.copy(dst);
    const rates = [];
    for (let r = 0; r < ${runs}; r++) {
      const t = process.hrtime.bigint();
      src.copy(dst);
      rates.push(2 * bytes / (Number(process.hrtime.bigint() - t) / 1e9));
    }
    rates.sort((a, b) => a - b);
    process.stdout.write(String(rates[rates.length >> 1]));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  const rate = Number(r.stdout);
  if (r.status !== 0 || !Number.isFinite(rate)) throw new Error(`copy bandwidth measurement failed: ${r.stderr}`);
  return rate;
}

function randomPrompt(n: number, vocab: number, salt: number): number[] {
  // Deterministic spread of ids; the values don't matter for speed.
  return Array.from({ length: n }, (_, i) => (1000 + (i * 7919 + salt * 104729)) % Math.min(vocab, 100000));
}

/**
 * Salts of the prompts not yet used in this process. Every timed generation gets prompts of its
 * own: the engine keeps what it computed for a prompt (promptPrefixStore.ts), so a prompt seen in
 * an earlier run would prefill from the store and no longer measure prefill.
 */
let nextPromptSalt = 0;

/**
 * `count` distinct routes, each the identity with one skip or one repeat (as the routes probe
 * draws them), for measuring how well sequences with different routes share block calls.
 */
export function mixedRoutes(count: number, numBlocks: number): number[][] {
  const routes: number[][] = [];
  const add = (block: number, skip: boolean): void => {
    const route = Array.from({ length: numBlocks }, (_, b) => b);
    if (skip) route.splice(block, 1);
    else route.splice(block, 0, block);
    if (routes.length < count && !routes.some((r) => r.join() === route.join())) routes.push(route);
  };
  // A spread of blocks first; the stride reaches only some blocks when it shares a factor with
  // the block count (24 blocks: 12 of them), so every block, in order, after.
  for (let i = 0; i < 2 * numBlocks; i++) add((i * 7 + 3) % numBlocks, i % 2 === 0);
  for (let b = 0; b < numBlocks; b++) {
    add(b, true);
    add(b, false);
  }
  if (routes.length < count) throw new Error(`a ${numBlocks}-block model has ${routes.length} routes of one skip or repeat, fewer than the batch of ${count}`);
  return routes;
}

interface Timed {
  /** Prefill step (whole prompt, all sequences), ms. */
  prefillMs: number;
  /** Decode steps after the prefill, ms. */
  decodeMs: number;
  decodeSteps: number;
  blockCallsPerDecodeStep: number;
  /** CPU cores this process got on average (CPU time / wall time): shows contention. */
  coresUsed: number;
}

/** One batched generation, timed per step: step 0 is the prefill, every later step one token. */
async function timeGenerate(model: Model, batch: number, promptTokens: number, newTokens: number, routes?: number[][]): Promise<Timed> {
  const requests: GenerationRequest[] = Array.from({ length: batch }, (_, b) => ({
    promptIds: randomPrompt(promptTokens, model.vocabSize, nextPromptSalt++),
    route: routes?.[b],
    maxNewTokens: newTokens,
    decoding: { temperature: 0, topP: 1, seed: b },
  }));
  const timed: Timed = { prefillMs: 0, decodeMs: 0, decodeSteps: 0, blockCallsPerDecodeStep: 0, coresUsed: 0 };
  const cpu = process.cpuUsage();
  const wall = performance.now();
  let callsAfterPrefill = 0;
  model.onStep = (s) => {
    if (s.prefill) {
      timed.prefillMs = s.ms;
      callsAfterPrefill = model.stats.blockCalls;
    } else if (s.batch === batch) {
      timed.decodeMs += s.ms;
      timed.decodeSteps++;
    }
  };
  try {
    const out = await model.generate(requests);
    if (out.some((g) => g.tokens.length !== newTokens)) {
      throw new Error('a bench sequence stopped early on an eos token; rerun with another --prompt-tokens');
    }
  } finally {
    model.onStep = undefined;
  }
  const used = process.cpuUsage(cpu);
  timed.coresUsed = (used.user + used.system) / 1000 / (performance.now() - wall);
  timed.blockCallsPerDecodeStep = (model.stats.blockCalls - callsAfterPrefill) / Math.max(1, newTokens - 1);
  return timed;
}

/** Per-token decode time over one long batch-1 generation (the KV cache's growth cost). */
interface LongFigures {
  tokens: number;
  decodeTokensPerSecond: number;
  /** Median step time over tokens 90..110, ms. */
  msAtToken100: number;
  /** Median step time over the last 50 tokens, ms, and the token in their middle. */
  msAtEnd: number;
  endToken: number;
  endOver100: number;
}

async function timeLong(model: Model, promptTokens: number, tokens: number): Promise<LongFigures> {
  const steps: number[] = [];
  model.onStep = (s) => { if (!s.prefill) steps.push(s.ms); };
  try {
    const [g] = await model.generate([{ promptIds: randomPrompt(promptTokens, model.vocabSize, nextPromptSalt++), maxNewTokens: tokens, decoding: { temperature: 0, topP: 1, seed: 0 } }]);
    if (g.tokens.length !== tokens) throw new Error(`the long generation stopped at ${g.tokens.length} of ${tokens} tokens on an eos token; rerun with another --prompt-tokens`);
  } finally {
    model.onStep = undefined;
  }
  // steps[i] produced token i + 2 (the prefill produced token 1).
  const window = (from: number, to: number): number => median(steps.slice(Math.max(0, from - 2), Math.max(1, to - 1)));
  const at100 = window(90, 111);
  const endFrom = Math.max(2, tokens - 49);
  const atEnd = window(endFrom, tokens + 1);
  return {
    tokens,
    decodeTokensPerSecond: (steps.length * 1000) / steps.reduce((a, b) => a + b, 0),
    msAtToken100: at100,
    msAtEnd: atEnd,
    endToken: Math.round((endFrom + tokens) / 2),
    endOver100: atEnd / at100,
  };
}

/** Decode at one long context, and the same batch at a short one for comparison. */
interface ContextFigures {
  context: number;
  batch: number;
  steps: number;
  prefillSeconds: number;
  decodeTokensPerSecond: number;
  /** Median ms of the first and of the last 8 decode steps. */
  msPerStepAtStart: number;
  msPerStepAtEnd: number;
  /** Median ms per step of the same batch at a 128-token context, measured just before. */
  msPerStepShort: number;
  endOverShort: number;
  kvCacheBytes: number;
  peakRssBytes: number;
}

async function timeContext(model: Model, context: number, batch: number, steps: number): Promise<ContextFigures> {
  const short = await model.timeDecodeAtContext(randomPrompt(128 - steps, model.vocabSize, nextPromptSalt++), batch, steps);
  resetPeakRss();
  const long = await model.timeDecodeAtContext(randomPrompt(context - steps, model.vocabSize, nextPromptSalt++), batch, steps);
  const edge = Math.min(8, steps);
  const msPerStepShort = median(short.stepMs);
  const msPerStepAtEnd = median(long.stepMs.slice(-edge));
  return {
    context,
    batch,
    steps,
    prefillSeconds: long.prefillMs / 1000,
    decodeTokensPerSecond: (batch * steps * 1000) / long.stepMs.reduce((a, b) => a + b, 0),
    msPerStepAtStart: median(long.stepMs.slice(0, edge)),
    msPerStepAtEnd,
    msPerStepShort,
    endOverShort: msPerStepAtEnd / msPerStepShort,
    kvCacheBytes: long.kvBytes,
    peakRssBytes: peakRss(),
  };
}

/** Weight bytes on disk, and the bytes a batch-1 decode step reads: every block plus the lm_head. */
function weightBytes(model: Model): { total: number; perToken: number } {
  const dir = model.graphs.dir;
  const m = model.graphs.manifest;
  const size = (f: string): number => fs.statSync(path.join(dir, f)).size;
  const blocks = m.blockFiles.reduce((n, f) => n + size(f.replace(/\.onnx$/, '.bin')), 0);
  // F32: the lm_head is the embedding's bytes (tied) or head.bin; int8: its quantized copy in head.bin.
  const lmHead = model.weights === 'int8' ? size('head.bin') : model.config.vocabSize * model.config.hiddenSize * 4;
  return { total: blocks + size('head.bin') + size(m.embedFile), perToken: blocks + lmHead };
}

export const benchCommand: Command = {
  help,
  async run(args) {
    // The estimate check runs a real audit, with the audit command's flags.
    if (args.includes('--estimate')) return benchEstimate(args.filter((a) => a !== '--estimate'));
    const v = parseFlags(args, {
      ...MODEL_FLAGS,
      'random-qwen-0.5b': { type: 'boolean' },
      'random-dir': { type: 'string' },
      'prompt-tokens': { type: 'string' },
      'decode-tokens': { type: 'string' },
      batch: { type: 'string' },
      runs: { type: 'string' },
      long: { type: 'string' },
      batches: { type: 'string' },
      contexts: { type: 'string' },
      'kv-fidelity': { type: 'string' },
      'kv-prompts': { type: 'string' },
      'kv-new-tokens': { type: 'string' },
      'kv-budget': { type: 'string' },
      'context-steps': { type: 'string' },
      json: { type: 'boolean' },
      audit: { type: 'boolean' },
      'audit-questions': { type: 'string' },
      'audit-budget': { type: 'string' },
      'audit-tokens': { type: 'string' },
      'audit-rounds': { type: 'string' },
      'audit-no-staged': { type: 'boolean' },
      'audit-records': { type: 'string' },
      'audit-sizes': { type: 'string' },
      'audit-budgets': { type: 'string' },
      'inherit-allocator': { type: 'boolean' },
    });
    // Checked before a child process is started for the measurement.
    const auditQuestions = parseWholeNumber(v['audit-questions'], '--audit-questions', 1) ?? 32;
    const auditBudget = parseWholeNumber(v['audit-budget'], '--audit-budget', 1) ?? 16;
    const auditRounds = parseWholeNumber(v['audit-rounds'], '--audit-rounds', 1) ?? 3;
    const sweep = v['audit-sizes'] === undefined && v['audit-budgets'] === undefined
      ? null
      : { sizes: v['audit-sizes'] === undefined ? [auditQuestions] : parseSweepList(v['audit-sizes'], '--audit-sizes'), budgets: v['audit-budgets'] === undefined ? [auditBudget] : parseSweepList(v['audit-budgets'], '--audit-budgets') };
    if (sweep && !v.audit) throw new UsageError('--audit-sizes and --audit-budgets sweep the audit workload: add --audit');
    if (sweep && v['audit-records']) throw new UsageError('--audit-records writes one size\'s records: leave it out of a sweep (--audit-sizes, --audit-budgets)');
    // The figures are the engine's as the extension and `compare` run it: glibc reads its allocator
    // settings only when a process starts, so a process without them measures in a child that has them.
    const missing = Object.keys(ENGINE_ALLOCATOR_ENV).filter((k) => process.env[k] === undefined);
    if (process.platform === 'linux' && !v['inherit-allocator'] && missing.length > 0) {
      process.stderr.write(`bench: measuring in a child process started with the engine's allocator settings (${missing.map((k) => `${k}=${ENGINE_ALLOCATOR_ENV[k]}`).join(' ')}; --inherit-allocator: without)\n`);
      const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1], 'bench', ...args], { stdio: 'inherit', env: { ...ENGINE_ALLOCATOR_ENV, ...process.env } });
      return child.status ?? 1;
    }
    if (!v.model === !v['random-qwen-0.5b']) throw new UsageError('expected exactly one of --model DIR or --random-qwen-0.5b');
    const promptTokens = parseWholeNumber(v['prompt-tokens'], '--prompt-tokens', 1) ?? 64;
    const decodeTokens = parseWholeNumber(v['decode-tokens'], '--decode-tokens', 1) ?? 16;
    const bigBatch = parseWholeNumber(v.batch, '--batch', 1) ?? 16;
    const runs = parseWholeNumber(v.runs, '--runs', 1) ?? 3;
    const threads = parseWholeNumber(v.threads, '--threads', 1) ?? os.availableParallelism();
    const longLengths = v.long === undefined ? [] : v.long.split(',').map((x) => parseWholeNumber(x.trim(), '--long', 1) as number);
    const contexts = v.contexts === undefined ? [] : v.contexts.split(',').map((x) => parseWholeNumber(x.trim(), '--contexts', 256) as number);
    const contextSteps = parseWholeNumber(v['context-steps'], '--context-steps', 8) ?? 32;
    const curveBatches = v.batches === undefined ? [] : v.batches.split(',').map((x) => parseWholeNumber(x.trim(), '--batches', 1) as number);
    const tokenRange = /^(\d+)-(\d+)$/.exec(v['audit-tokens'] ?? '40-300');
    if (!tokenRange || Number(tokenRange[1]) < 1 || Number(tokenRange[1]) > Number(tokenRange[2])) throw new UsageError(`--audit-tokens: expected MIN-MAX with 1 <= MIN <= MAX, got ${v['audit-tokens']}`);
    const log = (m: string): void => { process.stderr.write(`bench: ${m}\n`); };
    const allocator = Object.fromEntries(Object.keys(ENGINE_ALLOCATOR_ENV).map((k) => [k, process.env[k] ?? null]));
    const allocatorText = `allocator        ${Object.entries(allocator).map(([k, x]) => `${k}=${x ?? '(unset)'}`).join(' ')}`;

    const dir = v.model ?? writeRandomQwen05bModel(v['random-dir'] ?? path.join(os.tmpdir(), 'reach-audit-qwen05b-random'), log);
    const loadOptions = { cacheDir: v['cache-dir'], threads, weights: parseWeights(v.weights), kvCache: parseKvCache(v['kv-cache']), onProgress: progressToStderr(), maxBatch: Math.max(DEFAULT_MAX_BATCH, bigBatch, ...curveBatches) };
    if (v['kv-fidelity'] !== undefined) {
      const newTokens = parseWholeNumber(v['kv-new-tokens'], '--kv-new-tokens', 1) ?? 64;
      const figures = await benchKvFidelity(dir, { cacheDir: v['cache-dir'], threads, weights: parseWeights(v.weights), onProgress: progressToStderr() }, {
        context: parseWholeNumber(v['kv-fidelity'], '--kv-fidelity', newTokens + 1) as number,
        prompts: parseWholeNumber(v['kv-prompts'], '--kv-prompts', 1) ?? 2,
        newTokens,
        rounds: runs,
        budgetBytes: parseMemorySize(v['kv-budget'] ?? '8G', '--kv-budget'),
        log,
      });
      process.stdout.write(v.json ? JSON.stringify({ model: dir, threads, loadavg: os.loadavg(), kvFidelity: figures }, null, 2) + '\n' : [`model            ${dir}`, ...kvFidelityText(figures)].join('\n') + '\n');
      return 0;
    }
    resetPeakRss();
    const loadStart = performance.now();
    const model = await loadModel(dir, loadOptions);
    if (model.graphs.built) {
      // Building reads whole tensors, and not all the memory it frees goes back to the system
      // (measured: 0.6 GB more peak RSS when the same process goes on to run), so the figures
      // come from a fresh process that loads the graphs from the cache like every later run.
      log(`graphs built in ${((performance.now() - loadStart) / 1000).toFixed(1)} s; measuring in a fresh process that loads them from the cache`);
      await model.dispose();
      const fresh = spawnSync(process.execPath, [...process.execArgv, process.argv[1], 'bench', ...args, ...(v.model ? [] : ['--model', dir])].filter((a) => a !== '--random-qwen-0.5b'), { stdio: 'inherit' });
      return fresh.status ?? 1;
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    try {
      log(`loaded in ${loadSeconds.toFixed(1)} s (graphs from cache: ${model.graphs.dir})`);
      // The load average as the run ends.
      const header = (): string[] => [`model            ${dir}`, `threads          ${threads} of ${os.cpus().length} cores (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`, allocatorText];
      if (sweep) {
        const figures = await benchAuditSweep(model, { ...sweep, minTokens: Number(tokenRange[1]), maxTokens: Number(tokenRange[2]), rounds: auditRounds, maxBatch: DEFAULT_MAX_BATCH, inFlight: 32, log });
        process.stdout.write(v.json ? JSON.stringify({ model: dir, threads, loadavg: os.loadavg(), allocator, auditSweep: figures }, null, 2) + '\n' : [...header(), ...auditSweepText(figures)].join('\n') + '\n');
        return 0;
      }
      if (v.audit) {
        const figures = await benchAudit(model, {
          questions: auditQuestions,
          budget: auditBudget,
          minTokens: Number(tokenRange[1]),
          maxTokens: Number(tokenRange[2]),
          rounds: auditRounds,
          maxBatch: DEFAULT_MAX_BATCH,
          inFlight: 32,
          staged: !v['audit-no-staged'],
          recordsFile: v['audit-records'],
          mixedRouteDecode: async (batch, prompt) => {
            const t = await timeGenerate(model, batch, prompt, decodeTokens + 1, mixedRoutes(batch, model.numBlocks));
            return (batch * t.decodeSteps * 1000) / t.decodeMs;
          },
          // A model of L blocks has 2L routes of one skip or repeat.
          mixedRouteBatchLimit: 2 * model.numBlocks,
          log,
        });
        process.stdout.write(v.json ? JSON.stringify({ model: dir, threads, loadavg: os.loadavg(), allocator, audit: figures }, null, 2) + '\n' : [...header(), ...auditBenchText(figures)].join('\n') + '\n');
        return figures.recordsIdentical ? 0 : 1;
      }
      const rssAfterLoad = process.memoryUsage().rss;
      const bandwidthBefore = copyBandwidth();
      const prefill: number[] = [];
      const decode1: number[] = [];
      const decodeB: number[] = [];
      const decodeMixed: number[] = [];
      const routes = mixedRoutes(bigBatch, model.numBlocks);
      let callsPerStep = 0;
      const coresUsed: number[] = [];
      const curve = new Map<number, number[]>(curveBatches.map((b) => [b, []]));
      await timeGenerate(model, 1, 8, 2); // warm-up
      for (let r = 0; r < runs; r++) {
        const one = await timeGenerate(model, 1, promptTokens, decodeTokens + 1);
        prefill.push((promptTokens * 1000) / one.prefillMs);
        decode1.push((one.decodeSteps * 1000) / one.decodeMs);
        const many = await timeGenerate(model, bigBatch, promptTokens, decodeTokens + 1);
        decodeB.push((bigBatch * many.decodeSteps * 1000) / many.decodeMs);
        const mixed = await timeGenerate(model, bigBatch, promptTokens, decodeTokens + 1, routes);
        decodeMixed.push((bigBatch * mixed.decodeSteps * 1000) / mixed.decodeMs);
        callsPerStep = mixed.blockCallsPerDecodeStep;
        coresUsed.push(one.coresUsed, many.coresUsed, mixed.coresUsed);
        for (const b of curveBatches) {
          const t = await timeGenerate(model, b, promptTokens, decodeTokens + 1);
          curve.get(b)!.push((b * t.decodeSteps * 1000) / t.decodeMs);
        }
        if (curveBatches.length > 0) log(`run ${r + 1}/${runs} batch curve: ${curveBatches.map((b) => `b${b} ${curve.get(b)!.at(-1)!.toFixed(1)}`).join(', ')} tok/s`);
        log(`run ${r + 1}/${runs}: prefill ${prefill[r].toFixed(1)} tok/s, decode b1 ${decode1[r].toFixed(2)} tok/s, b${bigBatch} ${decodeB[r].toFixed(2)} tok/s, b${bigBatch} mixed routes ${decodeMixed[r].toFixed(2)} tok/s`);
      }
      const long: LongFigures[] = [];
      for (const n of longLengths) {
        long.push(await timeLong(model, promptTokens, n));
        const l = long[long.length - 1];
        log(`long ${n}: ${l.decodeTokensPerSecond.toFixed(2)} tok/s, ${l.msAtToken100.toFixed(1)} ms/token at token 100, ${l.msAtEnd.toFixed(1)} at token ${l.endToken} (${l.endOver100.toFixed(2)}x)`);
      }
      const atContexts: ContextFigures[] = [];
      for (const n of contexts) {
        for (const b of [...new Set([1, bigBatch])]) {
          const c = await timeContext(model, n, b, contextSteps);
          atContexts.push(c);
          log(`context ${n}, batch ${b}: prefill ${c.prefillSeconds.toFixed(1)} s, decode ${c.decodeTokensPerSecond.toFixed(2)} tok/s, ${c.msPerStepAtStart.toFixed(1)} → ${c.msPerStepAtEnd.toFixed(1)} ms/step (${c.endOverShort.toFixed(2)}x the ${c.msPerStepShort.toFixed(1)} ms at 128), KV ${(c.kvCacheBytes / 1e9).toFixed(2)} GB, peak RSS ${(c.peakRssBytes / 1e9).toFixed(2)} GB`);
        }
      }
      const bandwidth = (bandwidthBefore + copyBandwidth()) / 2; // before and after, to even out drift
      const weights = weightBytes(model);
      const c = model.config;
      const maxT = promptTokens + decodeTokens + 1;
      const kvBytes = 2 * c.numBlocks * c.numKvHeads * c.headDim * 4 * maxT * bigBatch;
      const peak = peakRss();
      const limit = bandwidth / weights.perToken;
      const figures = {
        model: dir,
        threads,
        cpus: os.cpus().length,
        loadavg: os.loadavg().map((x) => Number(x.toFixed(2))),
        medianCoresUsed: median(coresUsed),
        allocator,
        runs,
        promptTokens,
        decodeTokens,
        batch: bigBatch,
        prefillTokensPerSecond: median(prefill),
        decodeTokensPerSecondBatch1: median(decode1),
        decodeTokensPerSecondBatchN: median(decodeB),
        batchSpeedup: median(decodeB) / median(decode1),
        // b1 and bN of one run are measured back to back, so their ratio cancels most of the
        // machine's drift (memory bandwidth here varies by ±15% between runs).
        batchSpeedupMedianOfRuns: median(decodeB.map((x, r) => x / decode1[r])),
        decodeTokensPerSecondMixedRoutes: median(decodeMixed),
        blockCallsPerDecodeStepMixedRoutes: callsPerStep,
        copyBandwidthGBs: bandwidth / 1e9,
        weightBytesPerToken: weights.perToken,
        bandwidthLimitTokensPerSecond: limit,
        fractionOfBandwidthLimit: median(decode1) / limit,
        f32WeightBytes: weights.total,
        kvCacheBytes: kvBytes,
        rssAfterLoadBytes: rssAfterLoad,
        peakRssBytes: peak,
        peakRssOverWeightsPlusKv: peak / (weights.total + kvBytes),
        long,
        contexts: atContexts,
        batchCurve: curveBatches.map((b) => ({ batch: b, decodeTokensPerSecond: median(curve.get(b)!), samples: curve.get(b)! })),
        samples: { prefill, decode1, decodeB, decodeMixed, batchSpeedup: decodeB.map((x, r) => x / decode1[r]) },
      };
      if (v.json) {
        process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
      } else {
        const gb = (b: number): string => `${(b / 1e9).toFixed(2)} GB`;
        process.stdout.write([
          `model            ${dir}`,
          `threads          ${threads} of ${figures.cpus} cores; got ${figures.medianCoresUsed.toFixed(2)} cores on average (load average ${figures.loadavg.join(' ')})`,
          allocatorText,
          `prefill          ${figures.prefillTokensPerSecond.toFixed(1)} tokens/s (${promptTokens}-token prompt, batch 1)`,
          `decode batch 1   ${figures.decodeTokensPerSecondBatch1.toFixed(2)} tokens/s`,
          `decode batch ${String(bigBatch).padEnd(3)} ${figures.decodeTokensPerSecondBatchN.toFixed(2)} tokens/s (${figures.batchSpeedup.toFixed(2)}x batch 1; per run ${figures.batchSpeedupMedianOfRuns.toFixed(2)}x median, ${figures.samples.batchSpeedup.map((x) => x.toFixed(2)).join(' ')})`,
          `mixed routes     ${figures.decodeTokensPerSecondMixedRoutes.toFixed(2)} tokens/s at batch ${bigBatch}, ${bigBatch} different routes (one skip or repeat each), ${callsPerStep.toFixed(1)} block calls per step (identity: ${model.numBlocks})`,
          `copy bandwidth   ${figures.copyBandwidthGBs.toFixed(2)} GB/s (memcpy, read+write)`,
          `bandwidth limit  ${limit.toFixed(2)} tokens/s at batch 1 (${gb(weights.perToken)} of weights per token); reached ${(100 * figures.fractionOfBandwidthLimit).toFixed(0)}%`,
          `peak memory      ${gb(peak)} RSS = ${figures.peakRssOverWeightsPlusKv.toFixed(2)}x (${model.weights === 'int8' ? 'int8' : 'F32'} weights ${gb(weights.total)} + KV cache ${gb(kvBytes)})`,
          ...(curveBatches.length > 0 ? [`batch curve      ${curveBatches.map((b) => `b${b} ${median(curve.get(b)!).toFixed(1)}`).join(' · ')} decode tokens/s (the engine's default batch: ${DEFAULT_MAX_BATCH})`] : []),
          ...atContexts.map((c) => `context ${String(c.context).padEnd(7)} batch ${String(c.batch).padEnd(3)} ${c.decodeTokensPerSecond.toFixed(2)} tokens/s; ${c.msPerStepAtStart.toFixed(1)} → ${c.msPerStepAtEnd.toFixed(1)} ms/step over ${c.steps} steps = ${c.endOverShort.toFixed(2)}x the ${c.msPerStepShort.toFixed(1)} ms at a 128-token context; prefill ${c.prefillSeconds.toFixed(1)} s; KV ${gb(c.kvCacheBytes)}, peak RSS ${gb(c.peakRssBytes)}`),
          ...long.map((l) => `long ${String(l.tokens).padEnd(10)} ${l.decodeTokensPerSecond.toFixed(2)} tokens/s at batch 1; ${l.msAtToken100.toFixed(1)} ms/token at token 100, ${l.msAtEnd.toFixed(1)} ms at token ${l.endToken} (${l.endOver100.toFixed(2)}x)`),
          `medians of ${runs} runs; samples: prefill ${prefill.map((x) => x.toFixed(1)).join(' ')} | b1 ${decode1.map((x) => x.toFixed(2)).join(' ')} | b${bigBatch} ${decodeB.map((x) => x.toFixed(2)).join(' ')}`,
        ].join('\n') + '\n');
      }
      return 0;
    } finally {
      await model.dispose();
    }
  },
};
