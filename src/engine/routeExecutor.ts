/**
 * Runs one step (prefill or one decode token) for a batch of sequences, each with its own route,
 * silenced MLPs and per-route-position KV caches, and returns last-position logits.
 *
 * Scheduling: every sequence keeps a pointer into its route. Each block call runs the smallest
 * block index that any sequence needs next, for all sequences whose next block it is. Routes drawn
 * from the identity by a few skips / repeats / swaps stay nearly in block order, so most calls
 * carry the whole batch (identity + skip-2: one call per block, block 2 alone; see the bench).
 *
 * KV caches: a sequence owns one cache per route position (a repeated block gets a second cache).
 * A cache is a row of the batched present_k/v tensor that produced it; when the next call for that
 * block has the very same members in the same order (the normal decode case), that tensor is fed
 * back as is, otherwise the rows are gathered into a new tensor.
 *
 * Batches run in lockstep: all sequences share one time axis T. Shorter prompts are left-padded;
 * padded slots are masked out of every attention row and get no rotary position.
 */
import * as ort from 'onnxruntime-node';
import type { ModelConfig } from './config';
import type { EmbeddingTable } from './embeddingTable';

/** Additive attention mask value: exp(-1e9 - max) is exactly 0 in float32. */
const MASKED = -1e9;

interface KvRef {
  k: ort.Tensor;
  v: ort.Tensor;
  row: number;
  rows: number;
}

/** One sequence of a running batch. */
export class SequenceSlot {
  /** Per route position: this sequence's cache for that application of the block. */
  readonly kv: (KvRef | null)[];

  constructor(
    readonly route: readonly number[],
    readonly silenced: ReadonlySet<number>,
    /** Number of pad slots at the start of the time axis. */
    readonly padding: number,
  ) {
    this.kv = route.map(() => null);
  }
}

export interface ExecutorParts {
  config: ModelConfig;
  embedding: EmbeddingTable;
  blocks: ort.InferenceSession[];
  head: ort.InferenceSession;
  /** Rotary inverse frequencies (D/2 values), scaling already applied. */
  invFreq: Float64Array;
}

/** Counters for the bench and the grouping measurements. */
export interface ExecutorStats {
  blockCalls: number;
  blockRows: number;
  kvGathers: number;
}

function concat(parts: readonly Float32Array[]): Float32Array {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Float32Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export class RouteExecutor {
  readonly stats: ExecutorStats = { blockCalls: 0, blockRows: 0, kvGathers: 0 };

  constructor(private readonly parts: ExecutorParts) {}

  /**
   * Feeds `tokens[i]` (all the same length S; pad ids where i is left-padded) to sequence i at
   * time slots pastLength..pastLength+S-1 and returns the logits at the last slot, [n, V].
   */
  async step(seqs: readonly SequenceSlot[], tokens: readonly (readonly number[])[], pastLength: number): Promise<Float32Array> {
    const { config, embedding } = this.parts;
    const H = config.hiddenSize;
    const S = tokens[0].length;
    const T = pastLength + S;
    const half = config.headDim / 2;

    // Per-sequence inputs, built once per step and shared by every block call.
    const hidden: Float32Array[] = seqs.map((_, i) => embedding.lookup(tokens[i]));
    const cos: Float32Array[] = [];
    const sin: Float32Array[] = [];
    const bias: Float32Array[] = [];
    for (const seq of seqs) {
      const c = new Float32Array(S * half);
      const s = new Float32Array(S * half);
      const b = new Float32Array(S * T).fill(MASKED);
      for (let j = 0; j < S; j++) {
        const t = pastLength + j;
        const pos = t - seq.padding;
        if (pos >= 0) {
          for (let f = 0; f < half; f++) {
            const angle = pos * this.parts.invFreq[f];
            c[j * half + f] = Math.cos(angle);
            s[j * half + f] = Math.sin(angle);
          }
        }
        const window = config.slidingWindow ?? Infinity;
        if (pos < 0) {
          b[j * T + t] = 0; // a pad slot looks at itself only; its output is never used
        } else {
          for (let key = Math.max(seq.padding, t - window + 1); key <= t; key++) b[j * T + key] = 0;
        }
      }
      cos.push(c);
      sin.push(s);
      bias.push(b);
    }

    const pointer = seqs.map(() => 0);
    for (;;) {
      let block = Infinity;
      seqs.forEach((seq, i) => {
        if (pointer[i] < seq.route.length) block = Math.min(block, seq.route[pointer[i]]);
      });
      if (block === Infinity) break;
      const members: number[] = [];
      seqs.forEach((seq, i) => {
        if (pointer[i] < seq.route.length && seq.route[pointer[i]] === block) members.push(i);
      });
      await this.runBlock(block, members, seqs, pointer, hidden, cos, sin, bias, S, T);
      for (const i of members) pointer[i]++;
    }

    const last = new Float32Array(seqs.length * H);
    hidden.forEach((h, i) => last.set(h.subarray((S - 1) * H, S * H), i * H));
    const out = await this.parts.head.run({ hidden: new ort.Tensor('float32', last, [seqs.length, H]) });
    return out.logits.data as Float32Array;
  }

  private async runBlock(
    block: number,
    members: readonly number[],
    seqs: readonly SequenceSlot[],
    pointer: readonly number[],
    hidden: Float32Array[],
    cos: readonly Float32Array[],
    sin: readonly Float32Array[],
    bias: readonly Float32Array[],
    S: number,
    T: number,
  ): Promise<void> {
    const { config } = this.parts;
    const H = config.hiddenSize;
    const D = config.headDim;
    const KV = config.numKvHeads;
    const n = members.length;
    const P = T - S;
    const pick = (arrays: readonly Float32Array[]): Float32Array => concat(members.map((i) => arrays[i]));

    let pastK: ort.Tensor;
    let pastV: ort.Tensor;
    const refs = members.map((i) => seqs[i].kv[pointer[i]]);
    if (P === 0) {
      pastK = new ort.Tensor('float32', new Float32Array(0), [n, KV, 0, D]);
      pastV = pastK;
    } else {
      const first = refs[0];
      if (!first || refs.some((r) => !r)) throw new Error('internal: missing KV cache for a route position');
      const sameTensor = first.rows === n && refs.every((r, j) => r && r.k === first.k && r.row === j);
      if (sameTensor) {
        pastK = first.k;
        pastV = first.v;
      } else {
        this.stats.kvGathers++;
        const rowLen = KV * P * D;
        const gather = (t: (r: KvRef) => ort.Tensor): Float32Array => {
          const out = new Float32Array(n * rowLen);
          refs.forEach((r, j) => {
            const data = t(r as KvRef).data as Float32Array;
            out.set(data.subarray((r as KvRef).row * rowLen, ((r as KvRef).row + 1) * rowLen), j * rowLen);
          });
          return out;
        };
        pastK = new ort.Tensor('float32', gather((r) => r.k), [n, KV, P, D]);
        pastV = new ort.Tensor('float32', gather((r) => r.v), [n, KV, P, D]);
      }
    }

    const gate = new Float32Array(n);
    members.forEach((i, j) => { gate[j] = seqs[i].silenced.has(block) ? 0 : 1; });
    const half = D / 2;
    const feeds: Record<string, ort.Tensor> = {
      hidden: new ort.Tensor('float32', pick(hidden), [n, S, H]),
      cos: new ort.Tensor('float32', pick(cos), [n, S, 1, half]),
      sin: new ort.Tensor('float32', pick(sin), [n, S, 1, half]),
      attn_bias: new ort.Tensor('float32', pick(bias), [n, 1, S, T]),
      past_k: pastK,
      past_v: pastV,
      mlp_gate: new ort.Tensor('float32', gate, [n, 1, 1]),
    };
    const out = await this.parts.blocks[block].run(feeds);
    this.stats.blockCalls++;
    this.stats.blockRows += n;
    const h = out.hidden_out.data as Float32Array;
    members.forEach((i, j) => {
      hidden[i] = h.subarray(j * S * H, (j + 1) * S * H);
      seqs[i].kv[pointer[i]] = { k: out.present_k, v: out.present_v, row: j, rows: n };
    });
  }
}
