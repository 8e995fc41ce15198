/**
 * Where one decoder block's decode call spends its time at long contexts: the engine's own block
 * graph (from the graph cache, as the engine builds it for the model and precision given), run
 * alone in an onnxruntime session with the engine's options and onnxruntime's profiler on, at each
 * context × batch asked for, one new token per sequence (a decode step; --new-tokens N: a long
 * prompt's chunk of N tokens after the cache, prefillChunks.ts), every cache slot visible.
 *
 * Each operator is put in one of four groups by what it reads:
 *   cache GEMMs          MatMul/FusedMatMul with an input that spans the cache (a C or C+N axis):
 *                        the scores against the past keys and the probabilities times past values
 *   cache elementwise    every other operator over a cache-length axis: the mask add, softmax,
 *                        the concatenation and split of past and new scores, their transposes, casts
 *   weights              the projections and the MLP (MatMul, MatMulNBits, MatMulInteger, …)
 *   other                norms, rotary, activations, reshapes
 * and the cache GEMMs' bytes per second is the KV cache's bytes (keys and values of every sequence)
 * over their time: the figure to hold against the machine's memory bandwidth.
 *
 * The cache axis is recognised by its length, so a context equal to one of the model's own
 * dimensions (hidden, heads × head size, …) is refused: choose another.
 *
 * Usage (after `npx tsc -p .`):
 *   node out/tools/engine/attentionProfile.js (--model DIR | --random-qwen-0.5b) [--contexts 128,2048,8192,16384]
 *     [--batches 1,16] [--new-tokens 1] [--calls 30] [--block 0] [--threads 2] [--weights f32|int8] [--kv-cache f32|f16]
 *     [--json FILE]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { loadModel, parseKvPrecision, parseWeightPrecision } from '../../src/engine/index';
import { cacheHeadSize } from '../../src/engine/graphs/blockGraph';
import { writeRandomQwen05bModel } from '../../src/bench/randomBenchModel';
import { median } from '../../src/common';

type Group = 'cache GEMMs' | 'cache elementwise' | 'weights' | 'other';
const GROUPS: readonly Group[] = ['cache GEMMs', 'cache elementwise', 'weights', 'other'];
const WEIGHT_OPS = new Set(['MatMul', 'FusedMatMul', 'MatMulNBits', 'MatMulInteger', 'DynamicQuantizeMatMul', 'Gemm', 'MatMulIntegerToFloat']);

interface ProfileEvent {
  cat: string;
  name: string;
  dur: number;
  args?: { op_name?: string; input_type_shape?: Record<string, number[]>[] };
}

interface Cell {
  context: number;
  batch: number;
  /** New tokens per sequence: 1 for a decode step, more for a prompt's chunk after the cache. */
  newTokens: number;
  calls: number;
  /** Wall time of one block call, median over the calls, and the fastest. */
  medianMs: number;
  minMs: number;
  /** Kernel time per call by group (profiler, mean over the calls). */
  groupMs: Record<Group, number>;
  /** The largest operators, kernel time per call. */
  topOps: { op: string; node: string; group: Group; ms: number }[];
  kvBytes: number;
  cacheGemmGBps: number;
}

function fail(message: string): never {
  process.stderr.write(`attentionProfile: ${message}\n`);
  process.exit(2);
}

function list(text: string, flag: string): number[] {
  const out = text.split(',').map((s) => Number(s.trim()));
  if (out.some((n) => !Number.isInteger(n) || n < 1)) fail(`${flag}: expected whole numbers ≥ 1 separated by commas, got "${text}"`);
  return out;
}

function randomFloats(n: number, seed: number): Float32Array {
  // A cheap deterministic fill: the profile does not depend on the values, only on finite ones.
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    out[i] = ((s >>> 0) / 4294967296 - 0.5) * 0.2;
  }
  return out;
}

function feedsFor(session: ort.InferenceSession, batch: number, context: number, S: number): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  for (const meta of session.inputMetadata) {
    if (!meta.isTensor) fail(`input ${meta.name} is not a tensor`);
    const dims = meta.shape.map((d) => {
      if (typeof d === 'number') return d;
      if (d === 'batch') return batch;
      if (d === 'seq') return S;
      if (d === 'capacity') return context;
      if (d === 'width') return context + S;
      return fail(`input ${meta.name}: unknown axis "${d}" (a sliding-window model's graph is not profiled by this tool)`);
    });
    const n = dims.reduce((a, b) => a * b, 1);
    if (meta.name === 'attn_mask') feeds[meta.name] = new ort.Tensor('float32', new Float32Array(n), dims);
    else if (meta.name === 'mlp_gate') feeds[meta.name] = new ort.Tensor('float32', new Float32Array(n).fill(1), dims);
    else if (meta.type === 'float16') feeds[meta.name] = new ort.Tensor('float16', new Uint16Array(n).fill(0x2e66), dims); // ≈ 0.1
    else if (meta.type === 'float32') feeds[meta.name] = new ort.Tensor('float32', randomFloats(n, n + meta.name.length), dims);
    else fail(`input ${meta.name}: type ${meta.type} not expected in a block graph`);
  }
  return feeds;
}

function groupOf(event: ProfileEvent, cacheLengths: Set<number>): Group {
  const op = event.args?.op_name ?? '';
  const shapes = (event.args?.input_type_shape ?? []).flatMap((entry) => Object.values(entry));
  const overCache = shapes.some((dims) => dims.some((d) => cacheLengths.has(d)));
  if (overCache) return op === 'MatMul' || op === 'FusedMatMul' ? 'cache GEMMs' : 'cache elementwise';
  return WEIGHT_OPS.has(op) ? 'weights' : 'other';
}

async function profileCell(file: string, options: ort.InferenceSession.SessionOptions, context: number, batch: number, newTokens: number, calls: number, kvBytesPerToken: number, prefix: string): Promise<Cell> {
  const session = await ort.InferenceSession.create(file, { ...options, enableProfiling: true, profileFilePrefix: prefix });
  const feeds = feedsFor(session, batch, context, newTokens);
  const warm = 3;
  for (let i = 0; i < warm; i++) await session.run(feeds);
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  session.endProfiling();
  await session.release();
  const dir = path.dirname(prefix);
  const written = fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(prefix))).map((f) => path.join(dir, f));
  if (written.length !== 1) fail(`expected one profile file from onnxruntime under ${prefix}*, found ${written.length}`);
  const events = JSON.parse(fs.readFileSync(written[0], 'utf8')) as ProfileEvent[];
  fs.unlinkSync(written[0]);

  const cacheLengths = new Set([context, context + newTokens]);
  const groupMs = Object.fromEntries(GROUPS.map((g) => [g, 0])) as Record<Group, number>;
  const byNode = new Map<string, { op: string; group: Group; us: number }>();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const group = groupOf(e, cacheLengths);
    groupMs[group] += e.dur;
    const node = e.name.slice(0, -'_kernel_time'.length);
    const seen = byNode.get(node) ?? { op: e.args?.op_name ?? '?', group, us: 0 };
    seen.us += e.dur;
    byNode.set(node, seen);
  }
  const total = warm + calls;
  for (const g of GROUPS) groupMs[g] = groupMs[g] / total / 1000;
  const topOps = [...byNode.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, 10).map(([node, v]) => ({ op: v.op, node, group: v.group, ms: v.us / total / 1000 }));
  const kvBytes = kvBytesPerToken * context * batch;
  return {
    context, batch, newTokens, calls,
    medianMs: median(ms), minMs: Math.min(...ms),
    groupMs, topOps, kvBytes,
    cacheGemmGBps: kvBytes / (groupMs['cache GEMMs'] / 1000) / 1e9,
  };
}

async function main(): Promise<void> {
  const { values: v } = parseArgs({
    options: {
      model: { type: 'string' }, 'random-qwen-0.5b': { type: 'boolean' },
      contexts: { type: 'string', default: '128,2048,8192,16384' }, batches: { type: 'string', default: '1,16' },
      calls: { type: 'string', default: '30' }, 'new-tokens': { type: 'string', default: '1' }, block: { type: 'string', default: '0' }, threads: { type: 'string', default: '2' },
      weights: { type: 'string', default: 'f32' }, 'kv-cache': { type: 'string', default: 'f32' }, json: { type: 'string' },
    },
  });
  if (!v.model === !v['random-qwen-0.5b']) fail('expected exactly one of --model DIR or --random-qwen-0.5b');
  const contexts = list(v.contexts!, '--contexts');
  const batches = list(v.batches!, '--batches');
  const [calls, block, threads, newTokens] = [list(v.calls!, '--calls')[0], Number(v.block), list(v.threads!, '--threads')[0], list(v['new-tokens']!, '--new-tokens')[0]];
  const weights = parseWeightPrecision(v.weights!);
  const kvCache = parseKvPrecision(v['kv-cache']!);
  const dir = v.model ?? writeRandomQwen05bModel(path.join(os.tmpdir(), 'reach-audit-qwen05b-random'), (m) => process.stderr.write(`${m}\n`));

  const model = await loadModel(dir, { threads, weights, kvCache });
  const config = model.config;
  const file = path.join(model.graphs.dir, model.graphs.manifest.blockFiles[block] ?? fail(`--block: expected 0..${config.numBlocks - 1}, got ${v.block}`));
  await model.dispose();
  const modelDims = new Set([config.hiddenSize, config.intermediateSize, config.numHeads * config.headDim, config.numKvHeads * config.headDim, config.headDim, cacheHeadSize(config.headDim), config.vocabSize]);
  for (const c of contexts) if (modelDims.has(c) || modelDims.has(c + newTokens)) fail(`--contexts: ${c} (or ${c} + --new-tokens) equals one of the model's dimensions, so the cache's axis cannot be told apart; use ${c - 1} or ${c + 1}`);
  const kvBytesPerToken = 2 * config.numKvHeads * cacheHeadSize(config.headDim) * (kvCache === 'f16' ? 2 : 4);

  // The engine's session options (model.ts), with the profiler on.
  const options: ort.InferenceSession.SessionOptions = {
    executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
    executionMode: 'sequential', enableCpuMemArena: false, enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-profile-'));
  const cells: Cell[] = [];
  try {
    for (const context of contexts) {
      for (const batch of batches) {
        process.stderr.write(`context ${context}, ${batch} sequences…\n`);
        cells.push(await profileCell(file, options, context, batch, newTokens, calls, kvBytesPerToken, path.join(scratch, `c${context}b${batch}`)));
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  const lines = [
    `block ${block} of ${dir} (${weights} weights, ${kvCache} KV cache), ${threads} threads, ${calls} calls per cell, ${newTokens === 1 ? 'one new token per sequence (a decode step)' : `${newTokens} new tokens per sequence (a prompt's chunk after the cache)`}`,
    `${os.cpus()[0]?.model ?? 'unknown CPU'}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
    '',
    '| context | sequences | ms/call median (min) | cache GEMMs | cache elementwise | weights | other | KV read | cache GEMM GB/s |',
    '|---|---|---|---|---|---|---|---|---|',
    ...cells.map((c) => `| ${c.context} | ${c.batch} | ${c.medianMs.toFixed(2)} (${c.minMs.toFixed(2)}) | ${GROUPS.map((g) => c.groupMs[g].toFixed(2)).join(' | ')} | ${(c.kvBytes / 1e6).toFixed(1)} MB | ${c.cacheGemmGBps.toFixed(1)} |`),
    '',
    ...cells.flatMap((c) => [`context ${c.context}, ${c.batch} sequences — largest operators (ms per call):`, ...c.topOps.map((o) => `  ${o.ms.toFixed(3).padStart(8)}  ${o.group.padEnd(18)} ${o.op} (${o.node})`)]),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (v.json) fs.writeFileSync(v.json, JSON.stringify({ block, dir, weights, kvCache, threads, cpu: os.cpus()[0]?.model, loadavg: os.loadavg(), cells }, null, 2) + '\n');
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
