/**
 * Reach Audit's engine against llama.cpp (node-llama-cpp 3.21.1, its prebuilt CPU binary) on the
 * same weights: the bench's random Qwen2.5-0.5B-shaped model, converted to GGUF F32 and Q8_0 by
 * convertToGguf.ts. Compared: ours f32 vs llama.cpp F32, ours int8 vs llama.cpp Q8_0, at batch 1
 * (decode tokens/s) and with 16 sequences (end to end, and decode calls only: from the moment
 * every sequence has its first token). Engines alternate within each round, so machine drift
 * hits all of them; medians over rounds and per-round ratios are printed. Also checks that
 * llama.cpp F32's greedy tokens equal ours on the batch-1 prompt.
 *
 * Usage (after `npx tsc -p .`):
 *   node out/tools/llama-cpp/compareLlamaCpp.js [--model DIR] [--rounds 5] [--new-tokens 64]
 *     [--prompt-tokens 32] [--threads 2] [--only f32|int8] [--spin-threads]
 * Without --model the random model is written to <tmp>/reach-audit-qwen05b-random (as the bench does).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadModel, type Model } from '../../src/engine/index';
import { writeRandomQwen05bModel } from '../../src/cli/randomBenchModel';
import { convertToGguf } from './convertToGguf';

interface Timing {
  /** Batch 1: decode tokens/s after the first token. */
  b1: number;
  /** 16 sequences: generated tokens/s end to end, and over the decode calls only. */
  endToEnd: number;
  decodeOnly: number;
  tokens: number[];
}

interface Engine {
  name: string;
  run(prompts: number[][], newTokens: number): Promise<{ ms: number; decodeMs: number; tokens: number[][] }>;
  dispose(): Promise<void>;
}

function prompt(n: number, salt: number): number[] {
  return Array.from({ length: n }, (_, i) => (1000 + (i * 7919 + salt * 104729)) % 100000);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function ours(dir: string, weights: 'f32' | 'int8', threads: number, spinThreads: boolean): Promise<Engine> {
  const model: Model = await loadModel(dir, { threads, weights, maxBatch: 16, spinThreads });
  const name = `reach-audit ${weights}${spinThreads ? ' (spinning threads)' : ''}`;
  return {
    name,
    async run(prompts, newTokens) {
      let decodeMs = 0;
      model.onStep = (s) => { if (!s.prefill) decodeMs += s.ms; };
      const t = performance.now();
      const out = await model.generate(prompts.map((p) => ({ promptIds: p, maxNewTokens: newTokens, decoding: { temperature: 0, topP: 1, seed: 0 } })));
      const ms = performance.now() - t;
      model.onStep = undefined;
      if (out.some((g) => g.tokens.length !== newTokens)) throw new Error(`${name}: a sequence stopped early`);
      return { ms, decodeMs, tokens: out.map((g) => g.tokens) };
    },
    dispose: () => model.dispose(),
  };
}

// The package is ESM only; this file compiles to CommonJS, where `import()` stays an import.
type LlamaModule = typeof import('node-llama-cpp');

async function llamaCpp(llama: Awaited<ReturnType<LlamaModule['getLlama']>>, file: string, label: string, threads: number, newTokens: number, promptTokens: number): Promise<Engine> {
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const contexts = new Map<number, Awaited<ReturnType<typeof model.createContext>>>();
  const contextFor = async (n: number) => {
    let c = contexts.get(n);
    if (!c) {
      c = await model.createContext({ sequences: n, contextSize: promptTokens + newTokens + 16, threads, batchSize: Math.max(512, n * promptTokens) });
      contexts.set(n, c);
    }
    return c;
  };
  return {
    name: `llama.cpp ${label}`,
    async run(prompts, n) {
      const context = await contextFor(prompts.length);
      const seqs = prompts.map(() => context.getSequence());
      let firsts = 0;
      let allFirst = 0;
      const t = performance.now();
      const tokens = await Promise.all(seqs.map(async (seq, i) => {
        const got: number[] = [];
        for await (const token of seq.evaluate(prompts[i] as never, { temperature: 0 })) {
          got.push(token as unknown as number);
          if (got.length === 1 && ++firsts === prompts.length) allFirst = performance.now();
          if (got.length >= n) break;
        }
        return got;
      }));
      const end = performance.now();
      for (const s of seqs) s.dispose();
      return { ms: end - t, decodeMs: end - allFirst, tokens };
    },
    async dispose() {
      for (const c of contexts.values()) await c.dispose();
      await model.dispose();
    },
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const rounds = Number(flag('--rounds') ?? 5);
  const newTokens = Number(flag('--new-tokens') ?? 64);
  const promptTokens = Number(flag('--prompt-tokens') ?? 32);
  const threads = Number(flag('--threads') ?? os.availableParallelism());
  const only = flag('--only');
  // llama.cpp's worker threads spin between ops; ours sleep unless asked (see model.ts).
  const spin = args.includes('--spin-threads');
  const dir = flag('--model') ?? writeRandomQwen05bModel(path.join(os.tmpdir(), 'reach-audit-qwen05b-random'));
  const ggufDir = path.join(dir, 'gguf');
  fs.mkdirSync(ggufDir, { recursive: true });
  for (const type of ['f32', 'q8_0'] as const) {
    const file = path.join(ggufDir, `model-${type}.gguf`);
    if (!fs.existsSync(file)) {
      process.stderr.write(`converting to ${file}\n`);
      convertToGguf(dir, `${file}.tmp`, type);
      fs.renameSync(`${file}.tmp`, file);
    }
  }
  const lib: LlamaModule = await import('node-llama-cpp');
  const llama = await lib.getLlama({ gpu: false, build: 'never', logLevel: lib.LlamaLogLevel.error });
  const pairs: [string, string, 'f32' | 'int8'][] = [['f32', 'model-f32.gguf', 'f32'], ['Q8_0', 'model-q8_0.gguf', 'int8']];
  for (const [label, file, weights] of pairs) {
    if (only && only !== weights) continue;
    const engines = [await ours(dir, weights, threads, spin), await llamaCpp(llama, path.join(ggufDir, file), label, threads, newTokens, promptTokens)];
    const results: Timing[][] = engines.map(() => []);
    try {
      for (let r = 0; r < rounds; r++) {
        for (const engine of r % 2 ? [...engines].reverse() : engines) {
          const index = engines.indexOf(engine);
          const one = await engine.run([prompt(promptTokens, 7)], newTokens);
          const many = await engine.run(Array.from({ length: 16 }, (_, s) => prompt(promptTokens, s)), newTokens);
          const timing: Timing = {
            b1: ((newTokens - 1) * 1000) / one.decodeMs,
            endToEnd: (16 * newTokens * 1000) / many.ms,
            decodeOnly: (16 * (newTokens - 1) * 1000) / many.decodeMs,
            tokens: one.tokens[0],
          };
          results[index].push(timing);
          process.stderr.write(`round ${r + 1} ${engine.name}: batch 1 ${timing.b1.toFixed(2)} tok/s, 16 seqs ${timing.endToEnd.toFixed(1)} end to end, ${timing.decodeOnly.toFixed(1)} decode only\n`);
        }
      }
    } finally {
      for (const e of engines) await e.dispose();
    }
    const same = results[0][0].tokens.findIndex((t, i) => t !== results[1][0].tokens[i]);
    const fmt = (xs: number[]): string => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
    const lines = [`== ${engines[0].name} vs ${engines[1].name}: ${rounds} interleaved rounds, ${promptTokens}-token prompts, ${newTokens} new tokens, ${threads} threads`];
    for (const [i, e] of engines.entries()) {
      const r = results[i];
      lines.push(`${e.name.padEnd(20)} batch 1 ${fmt(r.map((x) => x.b1))} tok/s | 16 seqs end to end ${fmt(r.map((x) => x.endToEnd))} | decode only ${fmt(r.map((x) => x.decodeOnly))}`);
    }
    const ratio = (k: keyof Omit<Timing, 'tokens'>): string => fmt(results[0].map((x, r) => x[k] / results[1][r][k]));
    lines.push(`ours / llama.cpp, per round: batch 1 ${ratio('b1')}, 16 seqs end to end ${ratio('endToEnd')}, decode only ${ratio('decodeOnly')}`);
    lines.push(`greedy tokens at batch 1: ${same < 0 ? `equal on all ${newTokens}` : `first difference at token ${same + 1} of ${newTokens}`}`);
    process.stdout.write(lines.join('\n') + '\n');
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
