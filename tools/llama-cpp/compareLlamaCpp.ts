/**
 * Reach Audit's engine against llama.cpp (node-llama-cpp 3.21.1, its prebuilt CPU binary) on the
 * same weights: the bench's random Qwen2.5-0.5B-shaped model, converted to GGUF F32 and Q8_0 by
 * convertToGguf.ts. Compared: ours f32 vs llama.cpp F32, ours int8 vs llama.cpp Q8_0, at batch 1
 * and with 16 sequences in lock step. Decode time runs from the moment every sequence has its first
 * token to the last token, token choice included, for both engines; each also reports tokens/s over
 * the time inside its decode calls alone (llama.cpp's native decode; our executor's decode steps),
 * and the time between its decode calls (median, mean, 90th percentile: a mean far above the median
 * says a few steps stalled, as on a machine that another process loads).
 *
 * llama.cpp at its best: every configuration of the peer (threads, batch size, flash attention,
 * weights mapped from the file or read into memory) is measured, and the report names the one with
 * the highest median and takes the ratios against it. What node-llama-cpp 3.21.1 does not expose:
 * ggml's thread pool (its polling and priority): the addon attaches none to its contexts, so ggml
 * starts a pool for each decode call and ends it after (nothing of llama.cpp runs between calls;
 * measured: no CPU time in the second after a call).
 *
 * One configuration per process, with one context: a child per configuration and round, warmed up
 * untimed with the same number of sequences, as a user runs either engine. The old tool kept a
 * batch-1 and a 16-sequence context in one child and measured llama.cpp's 16 sequences at 22 tok/s
 * where a process with the one context measured 56 (issue 43). Configurations alternate within
 * each round (the order turns every round), so machine drift hits all of them; medians over
 * rounds and the per-round ratios are printed. Also checks that llama.cpp's greedy tokens equal
 * ours at batch 1. Our children start with the environment of our engine processes
 * (service/allocatorTuning.ts), as the extension and `compare` start theirs; llama.cpp's with the
 * user's environment, as a user starts it (`--llama-allocator engine,plain` measures both). Both
 * ways of asking llama.cpp for tokens are in the grid (`--llama-api`): a generator per sequence
 * (`evaluate`) and `controlledEvaluate`, one call per sequence and step.
 *
 * Long contexts (`--prompt-tokens 8160 --new-tokens 32 --shared-prompt`): every sequence of a run
 * gets the same prompt, computed once by each engine — ours through its prompt-prefix store (as an
 * audit's attempts share their question), llama.cpp by evaluating it on one sequence, saving that
 * sequence's state and loading it into the others (node-llama-cpp's saveStateToFile /
 * loadStateFromFile). Without it, 16 sequences at 8k would be 16 prefills of 8k per engine and
 * round (about 100 s each on 2 cores). The warm-up then uses a 32-token prompt. Decode still reads
 * every sequence's own cache of the full context, so the decode figures are those of 16 different
 * 8k prompts; the end-to-end figure is not (one prefill).
 *
 * Usage (after `npx tsc -p .`):
 *   node out/tools/llama-cpp/compareLlamaCpp.js [--model DIR] [--rounds 3] [--new-tokens 64]
 *     [--prompt-tokens 32] [--threads 2] [--only f32|int8] [--sequences 1,16] [--ours-spin off,on]
 *     [--ours-int8-path block,row]
 *     [--llama-threads 2] [--llama-batch-sizes 512] [--llama-flash-attention off,on] [--llama-mmap on,off]
 *     [--llama-api evaluate,controlled] [--llama-allocator plain,engine] [--llama-beside-batch-1]
 *     [--shared-prompt]
 * Without --model the random model is written to <tmp>/reach-audit-qwen05b-random (as the bench does).
 */
import { spawnSync } from 'node:child_process';
import * as ort from 'onnxruntime-node';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadModel, type Model } from '../../src/engine/index';
import { DEFAULT_VARIANT } from '../../src/engine/graphs/blockGraph';
import { INT8_PATH_ENV } from '../../src/engine/platform/int8Path';
import { writeRandomQwen05bModel } from '../../src/bench/randomBenchModel';
import { ENGINE_ALLOCATOR_ENV } from '../../src/service/allocatorTuning';
import { median } from '../../src/common';
import { convertToGguf } from './convertToGguf';
import { type DecodeParts, type Gaps, type Precision, type Setup, type Timing, PEER_PRECISION, betweenCalls, groupReport, int8PathFlag, listFlag, setupName, setupsOf, wholeNumber } from './peerConfigurations';

/**
 * Times every onnxruntime session call of this process by kind, told apart by the graphs' names
 * (blockGraph.ts reads past_k, headGraph.ts gives logits, logSumExp.ts gives probs). Wraps the
 * prototype's run: the engine's sessions are onnxruntime's own objects, so nothing else changes.
 */
function timeSessionCalls(): { ms: Record<keyof DecodeParts, number>; reset(): void } {
  const ms = { blocks: 0, head: 0, logSumExp: 0, rest: 0 };
  // The typings declare InferenceSession as a factory interface; at run time it is the class.
  const proto = (ort.InferenceSession as unknown as { prototype: ort.InferenceSession }).prototype;
  const run = proto.run as (...a: unknown[]) => Promise<ort.InferenceSession.ReturnType>;
  proto.run = async function (this: ort.InferenceSession, ...a: unknown[]) {
    const kind = this.inputNames.includes('past_k') ? 'blocks' : this.outputNames.includes('probs') ? 'logSumExp' : this.outputNames.includes('logits') ? 'head' : 'rest';
    const t = performance.now();
    try {
      return await run.apply(this, a);
    } finally {
      ms[kind] += performance.now() - t;
    }
  } as typeof proto.run;
  return { ms, reset: () => { ms.blocks = ms.head = ms.logSumExp = ms.rest = 0; } };
}

interface Run {
  ms: number;
  decodeMs: number;
  /** Time inside the engine's decode calls after every sequence had its first token, their number and rows. */
  inCallsMs: number;
  calls: number;
  rows: number;
  /** Each decode call's time after every sequence had its first token, in order. */
  stepMs: number[];
  /** The time between consecutive decode calls after every sequence had its first token. */
  gaps: Gaps;
  tokens: number[][];
  parts?: DecodeParts;
}

interface Engine {
  run(prompts: number[][], newTokens: number): Promise<Run>;
  dispose(): Promise<void>;
}

/** The process's peak resident memory (VmHWM): the child measures one configuration from its start. */
function peakRss(): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

function prompt(n: number, salt: number): number[] {
  return Array.from({ length: n }, (_, i) => (1000 + (i * 7919 + salt * 104729)) % 100000);
}


async function ours(setup: Setup, dir: string): Promise<Engine> {
  const sessions = timeSessionCalls();
  const model: Model = await loadModel(dir, { threads: setup.threads, weights: setup.precision, maxBatch: Math.max(16, setup.sequences), spinThreads: setup.spin === true });
  return {
    async run(prompts, newTokens) {
      // The first decode step starts once every sequence has its first token.
      let decodeStart: number | null = null;
      let inCallsMs = 0;
      let calls = 0;
      let rows = 0;
      let prefillEnd = 0;
      const stepMs: number[] = [];
      const steps: [number, number][] = [];
      model.onStep = (s) => {
        // The breakdown covers everything after the last prefill call: the first tokens' choice
        // and the decode (its session calls and the time between them).
        if (s.prefill) {
          prefillEnd = performance.now();
          return sessions.reset();
        }
        if (decodeStart === null) decodeStart = performance.now() - s.ms;
        inCallsMs += s.ms;
        stepMs.push(s.ms);
        steps.push([performance.now() - s.ms, s.ms]);
        calls++;
        rows += s.batch;
      };
      const t = performance.now();
      const out = await model.generate(prompts.map((p) => ({ promptIds: p, maxNewTokens: newTokens, decoding: { temperature: 0, topP: 1, seed: 0 } })));
      const end = performance.now();
      model.onStep = undefined;
      if (out.some((g) => g.tokens.length !== newTokens) || decodeStart === null) throw new Error(`${setupName(setup)}: a sequence stopped early`);
      const { blocks, head, logSumExp } = sessions.ms;
      const after = end - prefillEnd;
      const parts = { blocks: blocks / after, head: head / after, logSumExp: logSumExp / after, rest: 1 - (blocks + head + logSumExp) / after };
      return { ms: end - t, decodeMs: end - decodeStart, inCallsMs, calls, rows, stepMs, gaps: betweenCalls(steps), tokens: out.map((g) => g.tokens), parts };
    },
    dispose: () => model.dispose(),
  };
}

// The package is ESM only; this file compiles to CommonJS, where `import()` stays an import.
type LlamaModule = typeof import('node-llama-cpp');

/** node-llama-cpp's native context: the two calls timed here (internal to the package, so typed by hand). */
interface NativeContext {
  initBatch(size: number): void;
  decodeBatch(): Promise<void>;
}

/**
 * llama.cpp with one context of `setup.sequences` sequences, all decoded in lock step: one batched
 * decode call per step. node-llama-cpp dispatches whatever sequences have queued a token by its next
 * event-loop turn, so 16 free-running generators were split into several smaller calls (measured
 * 26-28 tokens/s against 44-47 in one call per step). Here each sequence waits for the others'
 * tokens before it asks for its next one (every sequence generates exactly n tokens), so all of
 * them queue in one turn.
 */
async function llamaCpp(setup: Setup, file: string, newTokens: number, promptTokens: number, sharedPrompt: boolean): Promise<Engine> {
  const lib: LlamaModule = await import('node-llama-cpp');
  const llama = await lib.getLlama({ gpu: false, build: 'never', logLevel: lib.LlamaLogLevel.error, maxThreads: setup.threads });
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0, useMmap: setup.mmap === true });
  const beside = setup.besideBatch1 ? await model.createContext({ sequences: 1, contextSize: promptTokens + newTokens + 16, threads: setup.threads, batchSize: setup.batchSize, flashAttention: setup.flashAttention === true }) : null;
  if (beside) {
    const seq = beside.getSequence();
    let n = 0;
    for await (const token of seq.evaluate(prompt(promptTokens, 9) as never, { temperature: 0 })) {
      void token;
      if (++n >= newTokens) break;
    }
  }
  const context = await model.createContext({
    sequences: setup.sequences,
    contextSize: promptTokens + newTokens + 16,
    threads: setup.threads,
    batchSize: setup.batchSize,
    flashAttention: setup.flashAttention === true,
  });
  // Every decode call, timed around the native call alone: [start, ms, tokens in the batch].
  const calls: [number, number, number][] = [];
  // `_ctx` is node-llama-cpp's native context, not in its typings (pinned version 3.21.1). Its
  // methods are read-only, so the context gets a proxy of it that times two of them.
  const holder = context as unknown as { _ctx: NativeContext };
  const native = holder._ctx;
  let size = 0;
  const timed: NativeContext = {
    initBatch: (n: number) => { size = n; native.initBatch(n); },
    decodeBatch: async () => {
      const t = performance.now();
      await native.decodeBatch();
      calls.push([t, performance.now() - t, size]);
    },
  };
  holder._ctx = new Proxy(native, {
    get(target, key) {
      if (key === 'initBatch' || key === 'decodeBatch') return timed[key];
      const value: unknown = Reflect.get(target, key);
      // Native methods need the native object as `this`.
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  // The sequences live as long as the context; each run starts them from an empty history.
  const seqs = Array.from({ length: setup.sequences }, () => context.getSequence());
  const shareState = async (prompts: number[][]): Promise<number[][]> => {
    const p = prompts[0];
    if (prompts.some((q) => q.length !== p.length || q.some((token, i) => token !== p[i]))) throw new Error('internal: --shared-prompt with different prompts');
    await seqs[0].evaluateWithoutGeneratingNewTokens(p.slice(0, -1) as never[]);
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-llama-state-'));
    try {
      const file = path.join(scratch, 'prompt.state');
      await seqs[0].saveStateToFile(file);
      for (const seq of seqs.slice(1)) await seq.loadStateFromFile(file, { acceptRisk: true });
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    return prompts.map((q) => q.slice(-1));
  };
  return {
    async run(prompts, n) {
      if (prompts.length !== seqs.length) throw new Error(`internal: ${prompts.length} prompts for a context of ${seqs.length} sequences`);
      for (const seq of seqs) await seq.clearHistory();
      calls.length = 0;
      const t = performance.now();
      // What each sequence still evaluates: its whole prompt, or (one prompt shared) its last token
      // after the state of the rest was computed once and copied into every sequence.
      const rest = sharedPrompt && seqs.length > 1 ? await shareState(prompts) : prompts;
      // Lock step: a sequence asks for its next token only once every sequence has its current
      // one, so all of them queue their tokens in the same event-loop turn and node-llama-cpp
      // dispatches them as one batch (at its next turn).
      const barrier = () => {
        let release = () => {};
        const promise = new Promise<void>((resolve) => { release = resolve; });
        return { promise, release };
      };
      let arrived = 0;
      let step = barrier();
      const arrive = async (): Promise<void> => {
        const current = step;
        if (++arrived === prompts.length) {
          arrived = 0;
          step = barrier();
          current.release();
        }
        await current.promise;
      };
      let firsts = 0;
      let allFirst = 0;
      if (setup.api === 'controlled') {
        // Every sequence asks for its next token in the same turn, each through one
        // controlledEvaluate call with greedy choice: one batched decode per step, no generator.
        const greedy = { generateNext: { token: true, options: { temperature: 0 } } };
        const next = (out: Awaited<ReturnType<typeof seqs[number]['controlledEvaluate']>>, at: number): number => {
          const token = out[at]?.next.token;
          if (token === undefined || token === null) throw new Error(`${setupName(setup)}: no token chosen`);
          return token;
        };
        const tokens: number[][] = await Promise.all(seqs.map(async (seq, i) => {
          const p = rest[i] as never[];
          return [next(await seq.controlledEvaluate([...p.slice(0, -1), [p[p.length - 1], greedy]]), p.length - 1)];
        }));
        allFirst = performance.now();
        while (tokens[0].length < n) {
          const outs = await Promise.all(seqs.map((seq, i) => seq.controlledEvaluate([[tokens[i][tokens[i].length - 1] as never, greedy]])));
          outs.forEach((out, i) => tokens[i].push(next(out, 0)));
        }
        const end = performance.now();
        const decode = calls.filter(([start]) => start >= allFirst);
        return { ms: end - t, decodeMs: end - allFirst, inCallsMs: decode.reduce((a, [, ms]) => a + ms, 0), calls: decode.length, rows: decode.reduce((a, [, , rows]) => a + rows, 0), stepMs: decode.map(([, ms]) => ms), gaps: betweenCalls(decode), tokens };
      }
      const tokens = await Promise.all(seqs.map(async (seq, i) => {
        const got: number[] = [];
        for await (const token of seq.evaluate(rest[i] as never, { temperature: 0 })) {
          got.push(token as unknown as number);
          if (got.length === 1 && ++firsts === prompts.length) allFirst = performance.now();
          if (got.length >= n) break;
          await arrive();
        }
        return got;
      }));
      const end = performance.now();
      if (tokens.some((g) => g.length !== n)) throw new Error(`${setupName(setup)}: a sequence stopped early`);
      const decode = calls.filter(([start]) => start >= allFirst);
      return {
        ms: end - t,
        decodeMs: end - allFirst,
        inCallsMs: decode.reduce((a, [, ms]) => a + ms, 0),
        calls: decode.length,
        rows: decode.reduce((a, [, , rows]) => a + rows, 0),
        stepMs: decode.map(([, ms]) => ms),
        gaps: betweenCalls(decode),
        tokens,
      };
    },
    async dispose() {
      for (const s of seqs) s.dispose();
      await context.dispose();
      await beside?.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

interface Settings {
  dir: string;
  ggufDir: string;
  newTokens: number;
  promptTokens: number;
  /** Every sequence of a run gets the same prompt, computed once (see the header). */
  sharedPrompt: boolean;
}

/**
 * One round of one configuration, in this process: an untimed warm-up with as many sequences, then
 * the timed run. Each round has prompts of its own (the same for every configuration): our engine
 * keeps what it computed for a prompt (promptPrefixStore.ts), so a prompt seen before would skip
 * its prefill.
 */
async function measure(setup: Setup, settings: Settings, round: number): Promise<Timing> {
  const { newTokens, promptTokens } = settings;
  const engine = setup.engine === 'ours'
    ? await ours(setup, settings.dir)
    : await llamaCpp(setup, path.join(settings.ggufDir, PEER_PRECISION[setup.precision].file), newTokens, promptTokens, settings.sharedPrompt);
  try {
    const prompts = (salt: number, n = promptTokens) => Array.from({ length: setup.sequences }, (_, s) => prompt(n, 1000 * round + salt + (settings.sharedPrompt ? 0 : s)));
    await engine.run(prompts(500, settings.sharedPrompt ? Math.min(32, promptTokens) : promptTokens), 8);
    const r = await engine.run(prompts(100), newTokens);
    return {
      decode: (setup.sequences * (newTokens - 1) * 1000) / r.decodeMs,
      endToEnd: (setup.sequences * newTokens * 1000) / r.ms,
      inCalls: (r.rows * 1000) / r.inCallsMs,
      calls: r.calls,
      sequencesPerCall: r.rows / Math.max(1, r.calls),
      // The first and last few decode calls: does a step cost more as the context fills?
      stepStartMs: median(r.stepMs.slice(0, 4)),
      stepEndMs: median(r.stepMs.slice(-4)),
      gapMs: r.gaps,
      peakRssBytes: peakRss(),
      tokens: r.tokens[0],
      parts: r.parts,
    };
  } finally {
    await engine.dispose();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const dir = flag('--model') ?? writeRandomQwen05bModel(path.join(os.tmpdir(), 'reach-audit-qwen05b-random'));
  const settings: Settings = {
    dir,
    ggufDir: path.join(dir, 'gguf'),
    newTokens: wholeNumber('--new-tokens')(flag('--new-tokens') ?? '64'),
    promptTokens: wholeNumber('--prompt-tokens')(flag('--prompt-tokens') ?? '32'),
    sharedPrompt: args.includes('--shared-prompt'),
  };
  const child = flag('--child');
  if (child !== undefined) {
    process.stdout.write(`${JSON.stringify(await measure(JSON.parse(child) as Setup, settings, Number(flag('--round'))))}\n`);
    return;
  }
  const rounds = wholeNumber('--rounds')(flag('--rounds') ?? '3');
  const threads = wholeNumber('--threads')(flag('--threads') ?? String(os.availableParallelism()));
  const only = flag('--only');
  if (only !== undefined && only !== 'f32' && only !== 'int8') throw new Error(`--only: expected f32 or int8, got "${only}"`);
  const precisions: Precision[] = only ? [only] : ['f32', 'int8'];
  const counts = listFlag(flag('--sequences'), [1, 16], wholeNumber('--sequences'));
  fs.mkdirSync(settings.ggufDir, { recursive: true });
  for (const p of precisions) {
    const file = path.join(settings.ggufDir, PEER_PRECISION[p].file);
    if (!fs.existsSync(file)) {
      process.stderr.write(`converting to ${file}\n`);
      convertToGguf(dir, `${file}.tmp`, p === 'f32' ? 'f32' : 'q8_0');
      fs.renameSync(`${file}.tmp`, file);
    }
  }
  for (const p of precisions) {
    // Our graphs are built once before any measuring process: building reads whole tensors and
    // leaves the process bigger (bench.ts measures in a fresh process for the same reason).
    for (const int8Path of p === 'int8' ? listFlag<'block' | 'row' | undefined>(flag('--ours-int8-path'), [undefined], int8PathFlag) : [undefined]) {
      const model = await loadModel(dir, { threads, weights: p, maxBatch: 16, ...(int8Path ? { variant: { ...DEFAULT_VARIANT, int8Path } } : {}) });
      if (model.graphs.built) process.stderr.write(`built our ${p}${int8Path ? ` ${int8Path}-path` : ''} graphs in ${model.graphs.dir}\n`);
      await model.dispose();
    }
  }
  const inChild = (setup: Setup, round: number): Timing => {
    // Ours starts as the extension starts it; llama.cpp as a user starts it, unless asked otherwise.
    const base = setup.engine === 'ours' || setup.engineAllocator ? { ...ENGINE_ALLOCATOR_ENV, ...process.env } : process.env;
    const env = setup.int8Path ? { ...base, [INT8_PATH_ENV]: setup.int8Path } : base;
    const r = spawnSync(process.execPath, [__filename, ...args, '--model', dir, '--child', JSON.stringify(setup), '--round', String(round)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20, env });
    if (r.status !== 0) throw new Error(`${setupName(setup)}, ${setup.sequences} sequences: the measuring process exited with ${r.status ?? r.signal}`);
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Timing;
  };
  const groups = precisions.flatMap((p) => counts.map((n) => setupsOf(p, n, flag, threads, args.includes('--llama-beside-batch-1'))));
  const all = groups.flat();
  process.stderr.write(`${all.length} configurations × ${rounds} rounds, each in a process of its own\n`);
  const results = new Map<Setup, Timing[]>(all.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) {
    // Every round a different order: a configuration is not always measured right after the same one.
    const order = all.map((_, i) => all[(i + r * Math.ceil(all.length / rounds)) % all.length]);
    for (const setup of r % 2 ? order.reverse() : order) {
      const t = inChild(setup, r);
      results.get(setup)?.push(t);
      process.stderr.write(`round ${r + 1} ${setupName(setup)}, ${setup.sequences} sequences: decode ${t.decode.toFixed(2)} tok/s, end to end ${t.endToEnd.toFixed(2)}, in decode calls ${t.inCalls.toFixed(2)} (${t.calls} calls of ${t.sequencesPerCall.toFixed(1)} sequences)\n`);
    }
  }
  const lines = groups.flatMap((g) => groupReport(g, g.map((s) => results.get(s) ?? []), settings, rounds));
  process.stdout.write(lines.join('\n') + '\n');
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
