/**
 * Which integer path of onnxruntime multiplies a projection fastest on this processor, and how far
 * each lands from the F32 product: the measurement behind the int8 kernel that
 * checkpoint/weightPrecision.ts builds (MLAS has different integer kernels per instruction set, so a
 * choice measured on an AVX-512 VNNI machine need not hold on AVX2 without VNNI).
 *
 * Each candidate is a graph computing x [rows, K] · Wᵀ for W [N, K] (Hugging Face layout),
 * run at 1 and 16 rows on the projection shapes of one model (Qwen2.5-0.5B's by default: the fused
 * q/k/v, o, the fused gate/up, down and the LM head), in sessions with the engine's options.
 * Rounds are interleaved (round r times every shape × candidate × rows once, the candidate order
 * turning each round) so drift of a shared machine hits every candidate alike; medians over rounds
 * are printed with the per-round ratio to the current kernel.
 *
 * Candidates (weights from the same seeded N(0, 0.02²) matrix; activations N(0, 1), the scale after
 * RMSNorm):
 *   f32         MatMul on the F32 weight (the reference; the engine's graph)
 *   block       the engine's block path: MatMulNBits, 8 bits, blocks of 32, accuracy_level 4
 *               (activations quantized per block too, int8 products; llama.cpp's Q8_0 layout)
 *   q8-f32      the same weights, accuracy_level 0: dequantized, F32 products
 *   q8-int8-b128 MatMulNBits 8 bits with blocks of 128 (a coarser scale, fewer scale loads)
 *   q4-int8     MatMulNBits 4 bits, blocks of 32, int8 products (llama.cpp's Q4_0 class: a
 *               different, lossier precision, shown for scale only)
 *   dqmm        DynamicQuantizeMatMul: activations quantized per tensor to u8, weights s8 with one
 *               scale per output (MLAS's U8S8 QGEMM)
 *   row         the engine's row path: MatMulInteger on activations quantized per row (u8 around
 *               128) and 7-bit s8 weights with one scale per output (AVX2's u8·s8 pair sums
 *               cannot saturate int16), the exact int32 sums scaled in F32
 *   mmi-row8    the row path with 8-bit weights (|q| ≤ 127), which AVX2 can saturate
 *
 * Usage (after `npx tsc -p .`):
 *   node out/tools/engine/int8Kernels.js [--rounds 3] [--threads 2] [--rows 1,16]
 *     [--shapes qkv,o,gate_up,down,head] [--only block,row,dqmm,...] [--json FILE]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { ExternalDataFile, FLOAT, GraphBuilder, INT8, UINT8 } from '../../src/engine/graphs/graphBuilder';
import { linear, rowPathLinear } from '../../src/engine/checkpoint/weightPrecision';
import { numericsPlatform, Xoshiro128 } from '../../src/engine/index';
import { median } from '../../src/common';

interface Shape { name: string; N: number; K: number }

/** Qwen2.5-0.5B: hidden 896, 14 query heads and 2 key/value heads of 64, MLP 4,864, vocabulary 151,936. */
const QWEN05B_SHAPES: readonly Shape[] = [
  { name: 'qkv', N: 896 + 2 * 128, K: 896 },
  { name: 'o', N: 896, K: 896 },
  { name: 'gate_up', N: 2 * 4864, K: 896 },
  { name: 'down', N: 896, K: 4864 },
  { name: 'head', N: 151936, K: 896 },
];

const CANDIDATES = ['f32', 'block', 'q8-f32', 'q8-int8-b128', 'q4-int8', 'dqmm', 'mmi-row8', 'row'] as const;
type Candidate = (typeof CANDIDATES)[number];

function gaussian(rng: Xoshiro128, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(rng.nextFloat(), 1e-12);
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    const t = 2 * Math.PI * rng.nextFloat();
    out[i] = r * Math.cos(t);
    if (i + 1 < n) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

/** MatMulNBits' layout for any bit width: per output n, blocks of `block` values (unsigned, zero point 2^(bits-1)), packed low bits first. */
function quantizeNBits(w: Float32Array, N: number, K: number, bits: 4 | 8, block: number): { data: Uint8Array; scales: Float32Array; blocks: number; blob: number } {
  const blocks = Math.ceil(K / block);
  const blob = (block * bits) / 8;
  const zero = 1 << (bits - 1);
  const maxQ = zero - 1;
  const data = new Uint8Array(N * blocks * blob);
  const scales = new Float32Array(N * blocks);
  for (let n = 0; n < N; n++) {
    for (let b = 0; b < blocks; b++) {
      const from = b * block;
      const to = Math.min(K, from + block);
      let max = 0;
      for (let k = from; k < to; k++) max = Math.max(max, Math.abs(w[n * K + k]));
      const scale = max / maxQ;
      scales[n * blocks + b] = scale;
      const out = (n * blocks + b) * blob;
      for (let j = 0; j < block; j++) {
        const k = from + j;
        const q = k < to && scale > 0 ? Math.max(-maxQ, Math.min(maxQ, Math.round(w[n * K + k] / scale))) + zero : zero;
        if (bits === 8) data[out + j] = q;
        else data[out + (j >> 1)] |= (j & 1) === 0 ? q : q << 4;
      }
    }
  }
  return { data, scales, blocks, blob };
}

/** The candidate's graph, written to dir; returns the .onnx path. */
function writeGraph(dir: string, candidate: Candidate, shape: Shape, w: Float32Array): string {
  const { N, K } = shape;
  const file = path.join(dir, `${shape.name}-${candidate}.onnx`);
  const data = new ExternalDataFile(`${file}.data`, path.basename(`${file}.data`));
  const g = new GraphBuilder(`${shape.name}-${candidate}`, data);
  const x = g.input('x', FLOAT, ['rows', K]);
  let y: string;
  if (candidate === 'f32' || candidate === 'block' || candidate === 'row') {
    // What the engine builds, so the figures are of the shipped graphs.
    y = candidate === 'f32' ? linear(g, x, 'w', w, N, K, 'f32') : linear(g, x, 'w', w, N, K, 'int8', candidate);
  } else if (candidate === 'mmi-row8') {
    y = rowPathLinear(g, x, 'w', w, N, K, 127);
  } else if (candidate === 'dqmm') {
    // Weights s8 [K, N] with one symmetric scale per output column.
    const maxQ = 127;
    const q = new Int8Array(K * N);
    const scales = new Float32Array(N);
    for (let n = 0; n < N; n++) {
      let max = 0;
      for (let k = 0; k < K; k++) max = Math.max(max, Math.abs(w[n * K + k]));
      const s = max / maxQ;
      scales[n] = s;
      if (s > 0) for (let k = 0; k < K; k++) q[k * N + n] = Math.max(-maxQ, Math.min(maxQ, Math.round(w[n * K + k] / s)));
    }
    const qw = g.typedWeight('w_q', INT8, new Uint8Array(q.buffer), [K, N]);
    const sw = g.typedWeight('w_scale', FLOAT, new Uint8Array(scales.buffer), [N]);
    y = g.op1('DynamicQuantizeMatMul', [x, qw, sw], {}, 'com.microsoft');
  } else {
    const bits = candidate === 'q4-int8' ? 4 : 8;
    const block = candidate === 'q8-int8-b128' ? 128 : 32;
    const accuracy = candidate === 'q8-f32' ? 0 : 4;
    const { data: q, scales, blocks, blob } = quantizeNBits(w, N, K, bits, block);
    const qw = g.typedWeight('w_q', UINT8, q, [N, blocks, blob]);
    const sw = g.typedWeight('w_scales', FLOAT, new Uint8Array(scales.buffer), [N * blocks]);
    y = g.op1('MatMulNBits', [x, qw, sw], { K, N, bits, block_size: block, accuracy_level: accuracy }, 'com.microsoft');
  }
  g.op('Identity', [y], {}, ['y']);
  g.output('y', FLOAT, ['rows', N]);
  fs.writeFileSync(file, g.toBytes());
  data.close();
  return file;
}

function relativeError(y: Float32Array, ref: Float32Array): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < y.length; i++) {
    num += (y[i] - ref[i]) ** 2;
    den += ref[i] ** 2;
  }
  return Math.sqrt(num / den);
}

async function main(): Promise<void> {
  const { values: v } = parseArgs({
    options: {
      rounds: { type: 'string' }, threads: { type: 'string' }, rows: { type: 'string' },
      shapes: { type: 'string' }, only: { type: 'string' }, json: { type: 'string' },
    },
  });
  const rounds = Number(v.rounds ?? 3);
  const threads = Number(v.threads ?? os.availableParallelism());
  const rowsList = (v.rows ?? '1,16').split(',').map(Number);
  const shapeNames = v.shapes?.split(',');
  const shapes = QWEN05B_SHAPES.filter((s) => !shapeNames || shapeNames.includes(s.name));
  const candidates = (v.only ? v.only.split(',') : [...CANDIDATES]) as Candidate[];
  for (const c of candidates) if (!CANDIDATES.includes(c)) throw new Error(`--only: unknown candidate ${c} (expected ${CANDIDATES.join(', ')})`);
  if (!candidates.includes('f32')) candidates.unshift('f32');

  const platform = numericsPlatform();
  process.stderr.write(`onnxruntime ${platform.onnxruntime}, ${platform.cpu}, f32 ${platform.f32Kernels}, int8 ${platform.int8Kernels} [${platform.features.join(' ')}], ${threads} threads, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-int8-kernels-'));
  const options: ort.InferenceSession.SessionOptions = {
    executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
    executionMode: 'sequential', enableCpuMemArena: false, enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  type Cell = { shape: string; candidate: Candidate; rows: number; ms: number[]; relError: number };
  const cells = new Map<string, Cell>();
  const sessions = new Map<string, ort.InferenceSession>();
  const inputs = new Map<string, ort.Tensor>();
  try {
    for (const shape of shapes) {
      const rng = new Xoshiro128(0x5eed + shape.N * 7 + shape.K);
      const w = gaussian(rng, shape.N * shape.K, 0.02);
      for (const rows of rowsList) inputs.set(`${shape.name}/${rows}`, new ort.Tensor('float32', gaussian(rng, rows * shape.K, 1), [rows, shape.K]));
      for (const c of candidates) {
        const file = writeGraph(dir, c, shape, w);
        sessions.set(`${shape.name}/${c}`, await ort.InferenceSession.create(file, options));
        process.stderr.write(`built ${shape.name} ${c}\n`);
      }
      // Fidelity: each candidate's product against the F32 one, on the 16-row input.
      const x = inputs.get(`${shape.name}/${rowsList[rowsList.length - 1]}`)!;
      const ref = (await sessions.get(`${shape.name}/f32`)!.run({ x })).y.data as Float32Array;
      for (const c of candidates) {
        const y = (await sessions.get(`${shape.name}/${c}`)!.run({ x })).y.data as Float32Array;
        for (const rows of rowsList) cells.set(`${shape.name}/${c}/${rows}`, { shape: shape.name, candidate: c, rows, ms: [], relError: relativeError(y, ref) });
      }
    }
    for (let r = 0; r < rounds; r++) {
      const order = candidates.map((_, i) => candidates[(i + r) % candidates.length]);
      for (const shape of shapes) {
        for (const rows of rowsList) {
          const x = inputs.get(`${shape.name}/${rows}`)!;
          for (const c of order) {
            const session = sessions.get(`${shape.name}/${c}`)!;
            // Enough calls for ~0.3 s of work per cell, after two untimed ones.
            await session.run({ x });
            const t0 = performance.now();
            await session.run({ x });
            const once = performance.now() - t0;
            const n = Math.max(5, Math.min(200, Math.round(300 / Math.max(once, 0.01))));
            const times: number[] = [];
            for (let i = 0; i < n; i++) {
              const t = performance.now();
              await session.run({ x });
              times.push(performance.now() - t);
            }
            cells.get(`${shape.name}/${c}/${rows}`)!.ms.push(median(times));
          }
        }
      }
      process.stderr.write(`round ${r + 1} of ${rounds} done (load ${os.loadavg()[0].toFixed(2)})\n`);
    }
  } finally {
    for (const s of sessions.values()) await s.release();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const lines: string[] = [];
  lines.push(`int8 paths on ${platform.cpu} (int8 kernels: ${platform.int8Kernels}; f32: ${platform.f32Kernels}), onnxruntime ${platform.onnxruntime}, ${threads} threads, ${rounds} interleaved rounds`);
  lines.push('ms per call, median of rounds (min–max); ratio = block ÷ candidate per round, median (> 1: the candidate is faster); rel. error ‖y − y_f32‖ / ‖y_f32‖');
  for (const shape of shapes) {
    for (const rows of rowsList) {
      lines.push(`${shape.name} (N ${shape.N}, K ${shape.K}), ${rows} row${rows === 1 ? '' : 's'}:`);
      const base = cells.get(`${shape.name}/block/${rows}`);
      for (const c of candidates) {
        const cell = cells.get(`${shape.name}/${c}/${rows}`)!;
        const ratio = base ? median(base.ms.map((b, i) => b / cell.ms[i])) : NaN;
        lines.push(`  ${c.padEnd(13)} ${median(cell.ms).toFixed(3).padStart(9)} ms (${Math.min(...cell.ms).toFixed(3)}–${Math.max(...cell.ms).toFixed(3)})  ×${ratio.toFixed(2).padStart(5)}  rel. error ${cell.relError.toExponential(2)}`);
      }
    }
  }
  process.stdout.write(lines.join('\n') + '\n');
  if (v.json) fs.writeFileSync(v.json, JSON.stringify({ platform, threads, rounds, loadavg: os.loadavg(), cells: [...cells.values()] }, null, 2) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`int8Kernels: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
