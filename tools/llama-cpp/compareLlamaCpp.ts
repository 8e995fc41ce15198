/**
 * Reach Audit's engine against llama.cpp (node-llama-cpp 3.21.1, its prebuilt CPU binary) on the
 * same weights: the bench's random Qwen2.5-0.5B-shaped model, converted to GGUF F32 and Q8_0 by
 * convertToGguf.ts. Compared: ours f32 vs llama.cpp F32, ours int8 vs llama.cpp Q8_0, at batch 1
 * (decode tokens/s) and with 16 sequences (end to end, and decode only). Decode time runs from the
 * moment every sequence has its first token to the last token, for both engines: ours from the
 * start of its first decode step, so choosing tokens counts as llama.cpp's sampling does (it used
 * to count our decode steps alone, without the token choice after each). Engines alternate within
 * each round, so machine drift hits all of them; medians over rounds and per-round ratios are
 * printed. Also checks that llama.cpp F32's greedy tokens equal ours on the batch-1 prompt.
 * llama.cpp's 16 sequences decode as one batched call per step (see llamaCpp below), and both
 * engines also report decode tokens/s over the time inside their decode calls alone (llama.cpp's
 * native decode; our executor's decode steps), without token choice or scheduling.
 *
 * Each engine measures in a process of its own (a child per engine and round, after an untimed
 * warm-up generation), as a user runs either one. In one process the engines can disturb each
 * other: llama.cpp's worker threads poll for work after each of its calls, and both models stay
 * mapped (measured: batch 1 medians 13.8 / 18.0 tok/s in one process, 17.6 / 19.3 alone). Both
 * children start with the environment of our engine processes (service/allocatorTuning.ts), as
 * the extension and `compare` start theirs; llama.cpp maps its weights from the GGUF file, so the
 * allocator settings reach only its smaller buffers.
 * `--same-process` measures the old way (both loaded once in this process).
 *
 * Usage (after `npx tsc -p .`):
 *   node out/tools/llama-cpp/compareLlamaCpp.js [--model DIR] [--rounds 5] [--new-tokens 64]
 *     [--prompt-tokens 32] [--threads 2] [--only f32|int8] [--spin-threads] [--same-process]
 * Without --model the random model is written to <tmp>/reach-audit-qwen05b-random (as the bench does).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadModel, type Model } from '../../src/engine/index';
import { writeRandomQwen05bModel } from '../../src/bench/randomBenchModel';
import { ENGINE_ALLOCATOR_ENV } from '../../src/service/allocatorTuning';
import { convertToGguf } from './convertToGguf';
import { median } from '../../src/common';

interface Timing {
  /** Batch 1: decode tokens/s after the first token. */
  b1: number;
  /** Batch 1: decode tokens/s over the time inside the engine's decode calls alone. */
  b1InCalls: number;
  /** 16 sequences: generated tokens/s end to end, and from every first token to the last. */
  endToEnd: number;
  decodeOnly: number;
  /** 16 sequences: decode tokens/s over the time inside the decode calls alone (no sampling, no scheduling). */
  decodeInCalls: number;
  /** 16 sequences: decode calls after the first tokens, and sequences per call (16: one batched call per step). */
  decodeCalls: number;
  sequencesPerCall: number;
  tokens: number[];
}

interface Run {
  ms: number;
  decodeMs: number;
  /** Time inside the engine's decode calls after every sequence had its first token, their number and rows. */
  inCallsMs: number;
  calls: number;
  rows: number;
  tokens: number[][];
}

interface Engine {
  run(prompts: number[][], newTokens: number): Promise<Run>;
  dispose(): Promise<void>;
}

function prompt(n: number, salt: number): number[] {
  return Array.from({ length: n }, (_, i) => (1000 + (i * 7919 + salt * 104729)) % 100000);
}


async function ours(name: string, dir: string, weights: 'f32' | 'int8', threads: number, spinThreads: boolean): Promise<Engine> {
  const model: Model = await loadModel(dir, { threads, weights, maxBatch: 16, spinThreads });
  return {
    async run(prompts, newTokens) {
      // The first decode step starts once every sequence has its first token.
      let decodeStart: number | null = null;
      let inCallsMs = 0;
      let calls = 0;
      let rows = 0;
      model.onStep = (s) => {
        if (s.prefill) return;
        if (decodeStart === null) decodeStart = performance.now() - s.ms;
        inCallsMs += s.ms;
        calls++;
        rows += s.batch;
      };
      const t = performance.now();
      const out = await model.generate(prompts.map((p) => ({ promptIds: p, maxNewTokens: newTokens, decoding: { temperature: 0, topP: 1, seed: 0 } })));
      const end = performance.now();
      model.onStep = undefined;
      if (out.some((g) => g.tokens.length !== newTokens) || decodeStart === null) throw new Error(`${name}: a sequence stopped early`);
      return { ms: end - t, decodeMs: end - decodeStart, inCallsMs, calls, rows, tokens: out.map((g) => g.tokens) };
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
 * llama.cpp with all sequences decoded in lock step: one batched decode call per step. node-llama-cpp
 * dispatches whatever sequences have queued a token by its next event-loop turn, so 16 free-running
 * generators were split into several smaller calls (measured 26-28 tokens/s against 44-47 in one
 * call per step). Here each sequence waits for the others' tokens before it asks for its next one
 * (every sequence generates exactly n tokens), so all 16 queue in one turn.
 */
async function llamaCpp(llama: LlamaHandle, file: string, threads: number, newTokens: number, promptTokens: number): Promise<Engine> {
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const contexts = new Map<number, Awaited<ReturnType<typeof model.createContext>>>();
  // Every decode call, timed around the native call alone: [start, ms, tokens in the batch].
  const calls: [number, number, number][] = [];
  const contextFor = async (n: number) => {
    let c = contexts.get(n);
    if (!c) {
      c = await model.createContext({
        sequences: n,
        contextSize: promptTokens + newTokens + 16,
        threads,
        batchSize: Math.max(512, n * promptTokens),
      });
      // `_ctx` is node-llama-cpp's native context, not in its typings (pinned version 3.21.1). Its
      // methods are read-only, so the context gets a proxy of it that times two of them.
      const holder = c as unknown as { _ctx: NativeContext };
      const native = holder._ctx;
      let size = 0;
      const timed: Partial<NativeContext> = {
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
      contexts.set(n, c);
    }
    return c;
  };
  return {
    async run(prompts, n) {
      const context = await contextFor(prompts.length);
      const seqs = prompts.map(() => context.getSequence());
      calls.length = 0;
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
      const t = performance.now();
      const tokens = await Promise.all(seqs.map(async (seq, i) => {
        const got: number[] = [];
        for await (const token of seq.evaluate(prompts[i] as never, { temperature: 0 })) {
          got.push(token as unknown as number);
          if (got.length === 1 && ++firsts === prompts.length) allFirst = performance.now();
          if (got.length >= n) break;
          await arrive();
        }
        return got;
      }));
      const end = performance.now();
      for (const s of seqs) s.dispose();
      if (tokens.some((g) => g.length !== n)) throw new Error('llama.cpp: a sequence stopped early');
      const decode = calls.filter(([start]) => start >= allFirst);
      return {
        ms: end - t,
        decodeMs: end - allFirst,
        inCallsMs: decode.reduce((a, [, ms]) => a + ms, 0),
        calls: decode.length,
        rows: decode.reduce((a, [, , size]) => a + size, 0),
        tokens,
      };
    },
    async dispose() {
      for (const c of contexts.values()) await c.dispose();
      await model.dispose();
    },
  };
}

interface Settings {
  dir: string;
  ggufDir: string;
  newTokens: number;
  promptTokens: number;
  threads: number;
  spin: boolean;
}

type LlamaHandle = Awaited<ReturnType<LlamaModule['getLlama']>>;

async function loadLlama(): Promise<LlamaHandle> {
  const lib: LlamaModule = await import('node-llama-cpp');
  return lib.getLlama({ gpu: false, build: 'never', logLevel: lib.LlamaLogLevel.error });
}

/** The pair's two engines as the report names them: ours, then llama.cpp. */
function engineNames([label, , weights]: Pair, settings: Settings): [string, string] {
  return [`reach-audit ${weights}${settings.spin ? ' (spinning threads)' : ''}`, `llama.cpp ${label}`];
}

/** Engine `index` of a pair: 0 ours, 1 llama.cpp. */
async function openEngine(index: number, pair: Pair, settings: Settings, llama: () => Promise<LlamaHandle>): Promise<Engine> {
  const [, file, weights] = pair;
  return index === 0
    ? ours(engineNames(pair, settings)[0], settings.dir, weights, settings.threads, settings.spin)
    : llamaCpp(await llama(), path.join(settings.ggufDir, file), settings.threads, settings.newTokens, settings.promptTokens);
}

/**
 * One round of one engine: batch 1, then 16 sequences. Each round and run has prompts of its own
 * (the same for both engines): our engine keeps what it computed for a prompt
 * (promptPrefixStore.ts), so a prompt seen before would skip its prefill.
 */
async function measure(engine: Engine, settings: Settings, round: number): Promise<Timing> {
  const { newTokens, promptTokens } = settings;
  const one = await engine.run([prompt(promptTokens, 1000 * round + 7)], newTokens);
  const many = await engine.run(Array.from({ length: 16 }, (_, s) => prompt(promptTokens, 1000 * round + 100 + s)), newTokens);
  return {
    b1: ((newTokens - 1) * 1000) / one.decodeMs,
    b1InCalls: (one.rows * 1000) / one.inCallsMs,
    endToEnd: (16 * newTokens * 1000) / many.ms,
    decodeOnly: (16 * (newTokens - 1) * 1000) / many.decodeMs,
    decodeInCalls: (many.rows * 1000) / many.inCallsMs,
    decodeCalls: many.calls,
    sequencesPerCall: many.rows / Math.max(1, many.calls),
    tokens: one.tokens[0],
  };
}

type Pair = [label: string, file: string, weights: 'f32' | 'int8'];
const PAIRS: Pair[] = [['f32', 'model-f32.gguf', 'f32'], ['Q8_0', 'model-q8_0.gguf', 'int8']];

/** `--child INDEX --pair N`: opens one engine, warms it up untimed, measures one round, prints it as JSON. */
async function child(args: readonly string[], settings: Settings): Promise<void> {
  const flag = (name: string): number => Number(args[args.indexOf(name) + 1]);
  const engine = await openEngine(flag('--child'), PAIRS[flag('--pair')], settings, loadLlama);
  try {
    const round = flag('--round');
    await engine.run([prompt(settings.promptTokens, 1000 * round + 3)], 8);
    process.stdout.write(`${JSON.stringify(await measure(engine, settings, round))}\n`);
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
  const rounds = Number(flag('--rounds') ?? 5);
  const only = flag('--only');
  const sameProcess = args.includes('--same-process');
  const dir = flag('--model') ?? writeRandomQwen05bModel(path.join(os.tmpdir(), 'reach-audit-qwen05b-random'));
  const settings: Settings = {
    dir,
    ggufDir: path.join(dir, 'gguf'),
    newTokens: Number(flag('--new-tokens') ?? 64),
    promptTokens: Number(flag('--prompt-tokens') ?? 32),
    threads: Number(flag('--threads') ?? os.availableParallelism()),
    // llama.cpp's worker threads spin between ops; ours sleep unless asked (see model.ts).
    spin: args.includes('--spin-threads'),
  };
  if (args.includes('--child')) return child(args, settings);
  fs.mkdirSync(settings.ggufDir, { recursive: true });
  for (const type of ['f32', 'q8_0'] as const) {
    const file = path.join(settings.ggufDir, `model-${type}.gguf`);
    if (!fs.existsSync(file)) {
      process.stderr.write(`converting to ${file}\n`);
      convertToGguf(dir, `${file}.tmp`, type);
      fs.renameSync(`${file}.tmp`, file);
    }
  }
  let shared: Promise<LlamaHandle> | undefined;
  const llama = () => (shared ??= loadLlama());
  for (const [p, pair] of PAIRS.entries()) {
    if (only && only !== pair[2]) continue;
    const names = engineNames(pair, settings);
    const engines = sameProcess ? [await openEngine(0, pair, settings, llama), await openEngine(1, pair, settings, llama)] : [];
    const inChild = (index: number, round: number): Timing => {
      const r = spawnSync(process.execPath, [__filename, ...args, '--child', String(index), '--pair', String(p), '--round', String(round), '--model', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20, env: { ...ENGINE_ALLOCATOR_ENV, ...process.env } });
      if (r.status !== 0) throw new Error(`${names[index]}: the measuring process exited with ${r.status ?? r.signal}`);
      return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Timing;
    };
    const results: Timing[][] = names.map(() => []);
    try {
      for (let r = 0; r < rounds; r++) {
        for (const index of r % 2 ? [1, 0] : [0, 1]) {
          const timing = sameProcess ? await measure(engines[index], settings, r) : inChild(index, r);
          results[index].push(timing);
          process.stderr.write(`round ${r + 1} ${names[index]}: batch 1 ${timing.b1.toFixed(2)} tok/s (${timing.b1InCalls.toFixed(2)} in decode calls), 16 seqs ${timing.endToEnd.toFixed(1)} end to end, ${timing.decodeOnly.toFixed(1)} decode only, ${timing.decodeInCalls.toFixed(1)} in decode calls (${timing.decodeCalls} calls of ${timing.sequencesPerCall.toFixed(1)} sequences)\n`);
        }
      }
    } finally {
      for (const e of engines) await e.dispose();
    }
    const same = results[0][0].tokens.findIndex((t, i) => t !== results[1][0].tokens[i]);
    const fmt = (xs: number[]): string => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
    const lines = [`== ${names[0]} vs ${names[1]}: ${rounds} interleaved rounds, ${sameProcess ? 'both in one process' : 'each engine in its own process'}, ${settings.promptTokens}-token prompts, ${settings.newTokens} new tokens, ${settings.threads} threads`];
    for (const [i, name] of names.entries()) {
      const r = results[i];
      lines.push(`${name.padEnd(20)} batch 1 ${fmt(r.map((x) => x.b1))} tok/s (in decode calls ${fmt(r.map((x) => x.b1InCalls))}) | 16 seqs end to end ${fmt(r.map((x) => x.endToEnd))} | decode only ${fmt(r.map((x) => x.decodeOnly))} | in decode calls ${fmt(r.map((x) => x.decodeInCalls))} (${median(r.map((x) => x.decodeCalls))} calls of ${median(r.map((x) => x.sequencesPerCall)).toFixed(1)} sequences)`);
    }
    const ratio = (k: 'b1' | 'b1InCalls' | 'endToEnd' | 'decodeOnly' | 'decodeInCalls'): string => fmt(results[0].map((x, r) => x[k] / results[1][r][k]));
    lines.push(`ours / llama.cpp, per round: batch 1 ${ratio('b1')} (in decode calls ${ratio('b1InCalls')}), 16 seqs end to end ${ratio('endToEnd')}, decode only ${ratio('decodeOnly')}, in decode calls ${ratio('decodeInCalls')}`);
    lines.push(`greedy tokens at batch 1: ${same < 0 ? `equal on all ${settings.newTokens}` : `first difference at token ${same + 1} of ${settings.newTokens}`}`);
    process.stdout.write(lines.join('\n') + '\n');
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
