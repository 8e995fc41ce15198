/**
 * Runs one step (a prompt, a prompt's continuation, or one decode token) for a batch of
 * sequences, each with its own route, silenced MLPs, per-route-position KV caches and its own
 * position, and returns each sequence's logits at its last new token.
 *
 * Scheduling: every sequence keeps a pointer into its route. Each block call runs the smallest
 * block index that any sequence needs next, for all sequences whose next block it is. Routes drawn
 * from the identity by a few skips / repeats / swaps stay nearly in block order, so most calls
 * carry the whole batch (identity + skip-2: one call per block, block 2 alone; see the bench).
 *
 * KV caches: a sequence owns one cache per route position (a repeated block gets a second cache),
 * preallocated and appended in place (kvCache.ts). Sequences need not be aligned: each has its own
 * number of filled slots, a prompt's tokens start at slot 0 and a batch of prompts is right-padded
 * (pad rows are never read by a real row, see blockGraph.ts), so a sequence's numbers do not
 * depend on its batch-mates' lengths.
 */
import * as ort from 'onnxruntime-node';
import type { ModelConfig } from '../checkpoint/config';
import type { EmbeddingTable } from '../checkpoint/embeddingTable';
import { cacheHeadSize } from '../graphs/blockGraph';
import { KvBuffer, KvCache, type KvStats, append, bufferFor, capacityFor } from './kvCache';
import type { KvArray, KvPrecision } from './kvPrecision';
import { NonFiniteActivations, firstNonFinite, nonFiniteName } from './nonFiniteActivations';
import { MaskCache, type MaskRow } from '../graphs/attentionMask';
import { type PrefixNode, PromptPrefixStore, stepKey } from './promptPrefixStore';
import { type AppliedPerturbation, perturbRows } from './residualPerturbation';
import { DEFAULT_PREFILL_CHUNKING, type PrefillChunking, prefillChunks } from './prefillChunks';

/**
 * Whether sequence i of a step still has a caller waiting for it. When none of a group's sequences
 * has, the step stops before its next block call: those rows' logits are zeros and their slots are
 * marked abandoned (their caches are incomplete), so the caller must release them, never step them.
 */
export type Wanted = (i: number) => boolean;

/** Most bytes of one MLP activation ([tokens, intermediate] f32) a prompt call makes; see step. */
const PREFILL_CALL_BYTES = 12 * 2 ** 20;

/** One sequence: its route, silenced MLPs, tokens seen so far and its caches. */
export class SequenceSlot {
  /** Per route position: this sequence's cache for that application of the block. */
  readonly kv: (KvCache | null)[];
  /** Tokens already in the caches (the next token's position). */
  length = 0;
  /** Tokens of the first step (the prompt), once it has run; later tokens are generated ones. */
  promptLength = 0;
  /** A step for it was abandoned part way (nobody wanted it): its caches are incomplete. */
  abandoned = false;
  /** The route position whose prompt output is mean-pooled (`pooledAfterBlock`'s first application); null: none. */
  readonly poolPosition: number | null;
  /** The prompt's mean residual after `poolPosition`, once the prompt step has passed it. */
  pooled: Float32Array | null = null;

  constructor(
    readonly route: readonly number[],
    readonly silenced: ReadonlySet<number>,
    /** A random direction added to the residual after one route position (residualPerturbation.ts). */
    readonly perturbation: AppliedPerturbation | null = null,
    pooledAfterBlock: number | null = null,
  ) {
    this.kv = route.map(() => null);
    const at = pooledAfterBlock === null ? -1 : route.indexOf(pooledAfterBlock);
    this.poolPosition = at >= 0 ? at : null;
  }

  /** Route position p as a prefix-sharing step: its block, silenced MLP and perturbation. */
  step(p: number): string {
    const block = this.route[p];
    return stepKey(block, this.silenced.has(block), this.perturbation?.position === p ? this.perturbation.key : undefined);
  }

  /**
   * A sequence that continues from this one's state without recomputing it: same route and
   * silenced MLPs, every cache shared until it first writes (copy on write, see kvCache.ts).
   */
  fork(): SequenceSlot {
    const child = new SequenceSlot(this.route, this.silenced, this.perturbation, this.poolPosition === null ? null : this.route[this.poolPosition]);
    child.pooled = this.pooled;
    child.length = this.length;
    child.promptLength = this.promptLength;
    this.kv.forEach((c, p) => { child.kv[p] = c ? c.fork() : null; });
    return child;
  }

  /** The sequence is done: the rows its caches own can take other sequences' caches. */
  release(): void {
    for (const c of this.kv) c?.release();
  }

  /** Bytes of the cache buffers this sequence's caches live in (shared buffers counted whole). */
  get cacheBytes(): number {
    const seen = new Set<KvBuffer>();
    for (const c of this.kv) if (c) seen.add(c.buffer);
    let n = 0;
    for (const b of seen) n += b.bytes;
    return n;
  }
}

export interface ExecutorParts {
  config: ModelConfig;
  embedding: EmbeddingTable;
  blocks: ort.InferenceSession[];
  head: ort.InferenceSession;
  /** Rotary inverse frequencies (D/2 values), scaling already applied. */
  invFreq: Float64Array;
  /** Bytes kept of earlier prefills for later prefills of the same prompt (promptPrefixStore.ts); 0: none. */
  prefixStoreBytes: number;
  /** How the caches store keys and values (kvPrecision.ts); the block graphs were built for it. */
  kvPrecision?: KvPrecision;
  /** How long prompts are split into calls (prefillChunks.ts); default DEFAULT_PREFILL_CHUNKING. */
  prefillChunking?: PrefillChunking;
}

/** Counters for the bench and the grouping measurements. */
export interface ExecutorStats extends KvStats {
  blockCalls: number;
  blockRows: number;
  /** Tokens run through a block, summed over block calls: the block applications actually computed. */
  blockTokens: number;
  /** Prompt rows that took a block's output from an identical row of the same call instead of running it. */
  sharedPrefixRows: number;
  /** Prompt rows that took a block's output from an earlier prefill of the same prompt (the prefix store). */
  storedPrefixRows: number;
}

/** Per-step inputs of one sequence, shared by every block call of the step. */
interface StepRow {
  seq: SequenceSlot;
  /** Real new tokens (the rest of the S rows are padding). */
  count: number;
  hidden: Float32Array;
  cos: Float32Array;
  sin: Float32Array;
}

/**
 * Mean over a prompt's `count` rows of H values, accumulated in float64 in row order, so the same
 * rows give the same bits whichever call, batch or stored prefix they came from.
 */
export function meanRows(hidden: Float32Array, count: number, H: number): Float32Array {
  const sum = new Float64Array(H);
  for (let t = 0; t < count; t++) for (let d = 0; d < H; d++) sum[d] += hidden[t * H + d];
  return Float32Array.from(sum, (v) => v / count);
}

/** "route [0,1,1,2]", with any silenced MLPs. */
function routeText(seq: SequenceSlot): string {
  const silenced = [...seq.silenced].sort((a, b) => a - b);
  const p = seq.perturbation?.spec;
  const perturbed = p ? `, perturbed after block ${p.afterBlock} (seed ${p.seed}, scale ${p.scale}, ${p.positions})` : '';
  return `route [${seq.route.join(',')}]${silenced.length > 0 ? ` with the MLP of block${silenced.length > 1 ? 's' : ''} ${silenced.join(', ')} silenced` : ''}${perturbed}`;
}

/** Which token of a row: "token 12 of the 20-token prompt" or "generated token 3". */
function tokenText(row: StepRow, token: number): string {
  if (row.seq.length === 0) return `token ${token + 1} of the ${row.count}-token prompt`;
  const position = row.seq.length + token;
  return position < row.seq.promptLength ? `token ${position + 1} of the prompt` : `generated token ${position - row.seq.promptLength + 1}`;
}

/**
 * Which prompt rows of a call are in the same state: the same tokens through the same blocks with
 * the same MLPs silenced. Each state is a small number, so comparing is cheap for long prompts.
 */
class PrefixStates {
  private readonly state: number[];
  private readonly ids = new Map<string, number>();

  constructor(tokens: readonly (readonly number[])[]) {
    this.state = tokens.map((t) => this.id(t.join(',')));
  }

  private id(key: string): number {
    let n = this.ids.get(key);
    if (n === undefined) {
      n = this.ids.size;
      this.ids.set(key, n);
    }
    return n;
  }

  /** Row `i` went through `block` without running it (its output came from the prefix store). */
  skip(i: number, step: string): void {
    this.state[i] = this.id(`${this.state[i]}|${step}`);
  }

  /** Moves `members` through their next step (`step(i)`): which of them must run it, and which copy whose output. */
  advance(members: readonly number[], step: (i: number) => string): { run: number[]; copies: [number, number][] } {
    const first = new Map<number, number>();
    const run: number[] = [];
    const copies: [number, number][] = [];
    for (const i of members) {
      this.state[i] = this.id(`${this.state[i]}|${step(i)}`);
      const from = first.get(this.state[i]);
      if (from === undefined) {
        first.set(this.state[i], i);
        run.push(i);
      } else {
        copies.push([i, from]);
      }
    }
    return { run, copies };
  }
}

export class RouteExecutor {
  readonly stats: ExecutorStats = { blockCalls: 0, blockRows: 0, blockTokens: 0, sharedPrefixRows: 0, storedPrefixRows: 0, kvGathers: 0, kvGatheredBytes: 0, kvRowMoves: 0, kvIdleRows: 0 };
  private readonly masks = new MaskCache();
  private readonly store: PromptPrefixStore;
  /** The last step queued: steps run one at a time, whoever calls them (the scheduler, a forward pass). */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly parts: ExecutorParts) {
    this.store = new PromptPrefixStore(parts.prefixStoreBytes);
  }

  /** Forgets what earlier prefills stored (see Model.forgetPromptPrefixes). */
  forgetPromptPrefixes(): void {
    this.store.clear();
  }

  get kvPrecision(): KvPrecision {
    return this.parts.kvPrecision ?? 'f32';
  }

  private get chunking(): PrefillChunking {
    return this.parts.prefillChunking ?? DEFAULT_PREFILL_CHUNKING;
  }

  /**
   * Feeds `tokens[i]` (one or more) to sequence i after its `length` tokens and returns the
   * logits at each sequence's last new token, [n, V]. Sequences in one call may be at different
   * positions; onnxruntime's attention takes either prompts from an empty cache or one token each
   * after a past, or one sequence's several tokens after a past, so a step with a mix runs as one
   * block sequence per kind (and per prompt length, see below).
   */
  step(seqs: readonly SequenceSlot[], tokens: readonly (readonly number[])[], wanted?: Wanted): Promise<Float32Array> {
    // A forward pass asked for during generation (the search's gold-answer score) waits for the
    // scheduler's step in flight: the masks, the prefix store and the sessions are shared.
    const run = this.tail.then(() => this.stepNow(seqs, tokens, wanted));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async stepNow(seqs: readonly SequenceSlot[], tokens: readonly (readonly number[])[], wanted: Wanted | undefined): Promise<Float32Array> {
    const V = this.parts.config.vocabSize;
    const groups: number[][] = [];
    // Prompts run together only with prompts of their own length: a prompt padded to a longer
    // batch-mate's length was measured to change its log-probs in the last bits on the demo model
    // (a 97-token audit prompt beside a longer one), which breaks batch invariance.
    const prompts = new Map<number, number[]>();
    const decodes: number[] = [];
    seqs.forEach((seq, i) => {
      if (tokens[i].length === 0) throw new Error('internal: a step needs at least one token per sequence');
      if (seq.abandoned) throw new Error('internal: a sequence whose step was abandoned was stepped again');
      if (seq.length === 0) {
        const same = prompts.get(tokens[i].length);
        if (same) same.push(i);
        else prompts.set(tokens[i].length, [i]);
      }
      else if (tokens[i].length === 1) decodes.push(i);
      else groups.push([i]);
    });
    // Prompts of one length run in calls of at most PREFILL_CALL_BYTES of MLP activations: above
    // that, each call's activations came from fresh mappings and the cost per token grew with the
    // call (0.5B shape, 120-token prompts, 2 threads: 290 ms per prompt in calls of 4, 441-487 in
    // calls of 8, 861 in calls of 16; flat with the engine process's allocator settings, see
    // service/allocatorTuning.ts). What later chunks share with earlier ones comes from the store.
    const perCallTokens = Math.max(1, Math.floor(PREFILL_CALL_BYTES / (4 * this.parts.config.intermediateSize)));
    for (const [length, same] of prompts) {
      const per = Math.max(1, Math.floor(perCallTokens / length));
      for (let at = 0; at < same.length; at += per) groups.push(same.slice(at, at + per));
    }
    if (decodes.length) groups.push(decodes);
    if (groups.length === 1) return this.stepGroup(seqs, tokens, wanted);
    const logits = new Float32Array(seqs.length * V);
    for (const g of groups) {
      const out = await this.stepGroup(g.map((i) => seqs[i]), g.map((i) => tokens[i]), wanted && ((j) => wanted(g[j])));
      g.forEach((i, j) => logits.set(out.subarray(j * V, (j + 1) * V), i * V));
    }
    return logits;
  }

  private async stepGroup(seqs: readonly SequenceSlot[], tokens: readonly (readonly number[])[], wanted: Wanted | undefined): Promise<Float32Array> {
    const { config, embedding } = this.parts;
    const H = config.hiddenSize;
    const half = config.headDim / 2;
    const S = Math.max(...tokens.map((t) => t.length));

    const rows: StepRow[] = seqs.map((seq, i) => {
      const ids = tokens[i];
      const padded = ids.length === S ? ids : [...ids, ...new Array<number>(S - ids.length).fill(0)];
      const cos = new Float32Array(S * half);
      const sin = new Float32Array(S * half);
      for (let j = 0; j < ids.length; j++) {
        const pos = seq.length + j;
        for (let f = 0; f < half; f++) {
          const angle = pos * this.parts.invFreq[f];
          cos[j * half + f] = Math.cos(angle);
          sin[j * half + f] = Math.sin(angle);
        }
      }
      return { seq, count: ids.length, hidden: embedding.lookup(padded), cos, sin };
    });

    const pointer = seqs.map(() => 0);
    const prefix = seqs[0].length === 0 ? new PrefixStates(tokens) : null;
    // A prompt starts after the longest prefix of its route an earlier prefill of it stored, and
    // stores what it computes beyond (node[i]: where row i is in its prompt's trie; null once the
    // store has no room).
    const keys = prefix ? tokens.map((t) => t.join(',')) : [];
    const node: (PrefixNode | null)[] = seqs.map(() => null);
    const storing = seqs.map(() => prefix !== null && this.store.budgetBytes > 0);
    if (prefix && this.store.budgetBytes > 0) {
      seqs.forEach((seq, i) => {
        const steps = seq.route.map((_, p) => seq.step(p));
        const path = this.store.lookup(keys[i], steps);
        if (path.length === 0) return;
        path.forEach((n, p) => {
          seq.kv[p] = n.kv.fork();
          prefix.skip(i, seq.step(p));
        });
        // A stored prefix that covers the pooled position holds that position's prompt rows.
        const at = seq.poolPosition;
        if (at !== null && at < path.length) seq.pooled = meanRows(path[at].hidden, rows[i].count, this.parts.config.hiddenSize);
        const last = path[path.length - 1];
        rows[i].hidden = last.hidden;
        pointer[i] = path.length;
        node[i] = last;
        this.stats.storedPrefixRows += path.length;
      });
    }
    for (;;) {
      // Checked before every block call: a cancelled 4,000-token prefill through 28 blocks stops
      // within one block instead of finishing its seconds of work for nobody.
      if (wanted && !seqs.some((_, i) => wanted(i))) {
        for (const seq of seqs) seq.abandoned = true;
        return new Float32Array(seqs.length * config.vocabSize);
      }
      let block = Infinity;
      seqs.forEach((seq, i) => {
        if (pointer[i] < seq.route.length) block = Math.min(block, seq.route[pointer[i]]);
      });
      if (block === Infinity) break;
      const members: number[] = [];
      seqs.forEach((seq, i) => {
        if (pointer[i] < seq.route.length && seq.route[pointer[i]] === block) members.push(i);
      });
      // Prompts that are the same tokens through the same blocks so far (a question's deployment,
      // its routes up to where each leaves the identity, a silenced MLP up to its block) get the
      // same numbers from this block: one of them runs it, the others take its output and fork its
      // cache. Rows of a same-length call do not depend on their batch-mates, so this changes no bit.
      const { run, copies } = prefix ? prefix.advance(members, (i) => seqs[i].step(pointer[i])) : { run: members, copies: [] };
      await this.runBlock(block, run.map((i) => ({ row: rows[i], position: pointer[i] })), S);
      for (const [i, from] of copies) {
        rows[i].hidden = rows[from].hidden;
        seqs[i].kv[pointer[i]] = (seqs[from].kv[pointer[from]] as KvCache).fork();
      }
      this.stats.sharedPrefixRows += copies.length;
      // Read during the prompt's own step, before any later block replaces the rows.
      if (prefix) for (const i of members) if (seqs[i].poolPosition === pointer[i]) seqs[i].pooled = meanRows(rows[i].hidden, rows[i].count, H);
      if (prefix) {
        for (const i of run) {
          if (!storing[i]) continue;
          const seq = seqs[i];
          const stored = this.store.insert(keys[i], node[i], seq.step(pointer[i]), rows[i].hidden.subarray(0, rows[i].count * H), seq.kv[pointer[i]] as KvCache);
          node[i] = stored;
          storing[i] = stored !== null;
        }
        // A copy is in the same state as the row it copied, so at the same node.
        for (const [i, from] of copies) {
          node[i] = node[from];
          storing[i] = storing[from];
        }
      }
      for (const i of members) pointer[i]++;
    }

    const last = new Float32Array(seqs.length * H);
    rows.forEach((r, i) => last.set(r.hidden.subarray((r.count - 1) * H, r.count * H), i * H));
    const out = await this.parts.head.run({ hidden: new ort.Tensor('float32', last, [seqs.length, H]) });
    const logits = out.logits.data as Float32Array;
    const V = config.vocabSize;
    rows.forEach((r, i) => {
      const bad = firstNonFinite(logits, i * V, (i + 1) * V);
      if (bad >= 0) throw new NonFiniteActivations(`the head (final norm and lm_head) produced ${nonFiniteName(logits[bad])} in the logits after ${tokenText(r, r.count - 1)} (${routeText(r.seq)})`);
    });
    for (const r of rows) {
      if (r.seq.length === 0) r.seq.promptLength = r.count;
      r.seq.length += r.count;
    }
    return logits;
  }

  private async runBlock(block: number, members: readonly { row: StepRow; position: number }[], S: number): Promise<void> {
    const { config } = this.parts;
    const H = config.hiddenSize;
    const D = config.headDim;
    const Dp = cacheHeadSize(D);
    const KV = config.numKvHeads;
    const prompt = members[0].row.seq.length === 0;
    const session = this.parts.blocks[block];
    const readsMask = session.inputNames.includes('attn_mask');
    // A long prompt runs in chunks (prefillChunks.ts). Prompts of one call have one length, S.
    // GroupQueryAttention (sliding-window models) takes several new tokens after a past for one
    // sequence only, so its prompts still run in one call.
    const chunks = prompt && readsMask ? prefillChunks(S, capacityFor(S + 1), this.chunking) : [S];
    if (chunks.length > 1) return this.runPromptInChunks(block, members, S, chunks);

    let total = 0;
    for (const { row } of members) total = Math.max(total, row.seq.length + row.count);
    let past: KvBuffer;
    // Member j runs in row rowOf[j] of the call; a decode call's buffer may have idle rows (a
    // sequence that left), which run on zeros, attend one slot of their own and are never read.
    let rowOf: number[];
    if (prompt) {
      // Nothing to read: one empty slot per row keeps the tensor non-empty.
      past = new KvBuffer(members.length, KV, 1, Dp, false, this.kvPrecision);
      rowOf = members.map((_, j) => j);
      total = S;
    } else {
      const caches = members.map(({ row, position }) => {
        const c = row.seq.kv[position];
        if (!c) throw new Error('internal: missing KV cache for a route position');
        return c;
      });
      ({ buffer: past, rowOf } = bufferFor(caches, Math.max(...members.map((m) => m.row.count)), this.stats));
    }
    const n = past.rows;

    const half = D / 2;
    // What each row attends to. Idle rows attend their first new slot only: never read, but never
    // a softmax over nothing.
    const maskRows: MaskRow[] = Array.from({ length: n }, () => ({ past: 0, fresh: 1 }));
    const gate = new Float32Array(n).fill(1);
    const hidden = new Float32Array(n * S * H);
    const cos = new Float32Array(n * S * half);
    const sin = new Float32Array(n * S * half);
    members.forEach(({ row }, j) => {
      const r = rowOf[j];
      maskRows[r] = { past: prompt ? 0 : row.seq.length, fresh: row.count };
      if (row.seq.silenced.has(block)) gate[r] = 0;
      hidden.set(row.hidden, r * S * H);
      cos.set(row.cos, r * S * half);
      sin.set(row.sin, r * S * half);
    });
    const feeds = this.blockFeeds(S, hidden, cos, sin, past, gate);
    if (readsMask) {
      feeds.attn_mask = new ort.Tensor('float32', this.masks.get(maskRows, S, past.capacity), [n, 1, 1, S, past.capacity + S]);
    } else {
      // GroupQueryAttention's form of the same lengths: past + new - 1 per row.
      feeds.seqlens_k = new ort.Tensor('int32', Int32Array.from(maskRows, (m) => m.past + m.fresh - 1), [n]);
      feeds.total_len = new ort.Tensor('int32', Int32Array.from([total]), []);
    }
    // A sliding-window model's decode step binds GroupQueryAttention's present outputs to the past
    // buffers themselves, so it writes the new keys and values into the cache in place (measured on
    // the demo model: a call's attention cost grew with the cache's capacity, 0.2 ms at 32 slots vs
    // 5 ms at 256, when it cleared and refilled a fresh present buffer each call). Our own
    // attention (attentionGraph.ts) has no present outputs. A prompt's past is a placeholder.
    const writesInPlace = !prompt && session.outputNames.includes('present_k');
    const out = !writesInPlace
      ? await session.run(feeds, ['hidden_out', 'new_k', 'new_v'])
      : await session.run(feeds, { hidden_out: null, new_k: null, new_v: null, present_k: feeds.past_k, present_v: feeds.past_v });
    this.stats.blockCalls++;
    this.stats.blockRows += members.length;
    for (const { row } of members) this.stats.blockTokens += row.count;
    const h = out.hidden_out.data as Float32Array;
    const newK = out.new_k.data as KvArray;
    const newV = out.new_v.data as KvArray;
    let fresh: KvBuffer | null = null;
    if (prompt) fresh = new KvBuffer(n, KV, capacityFor(Math.max(...members.map((m) => m.row.count)) + 1), Dp, false, this.kvPrecision);
    this.takeOutputs(block, members, S, h, rowOf, prompt);
    members.forEach(({ row, position }, j) => {
      let cache = row.seq.kv[position];
      if (fresh) {
        cache = new KvCache(fresh, j, 0);
        fresh.owner[j] = cache;
        row.seq.kv[position] = cache;
      }
      // GroupQueryAttention bound to the buffer has already written the new slots into it.
      if (writesInPlace) (cache as KvCache).length += row.count;
      else append(cache as KvCache, rowOf[j], newK, newV, S, row.count);
    });
  }

  /**
   * A prompt longer than one call (prefillChunks.ts): its first chunk as a prompt from an empty
   * cache, then each chunk after the caches it has filled, written into one buffer sized for the
   * whole prompt. Every member is an S-token prompt.
   */
  private async runPromptInChunks(block: number, members: readonly { row: StepRow; position: number }[], S: number, chunks: readonly number[]): Promise<void> {
    const { config } = this.parts;
    const H = config.hiddenSize;
    const half = config.headDim / 2;
    const KV = config.numKvHeads;
    const Dp = cacheHeadSize(config.headDim);
    const n = members.length;
    const session = this.parts.blocks[block];
    const buffer = new KvBuffer(n, KV, capacityFor(S + 1), Dp, false, this.kvPrecision);
    const caches = members.map((_, j) => {
      const cache = new KvCache(buffer, j, 0);
      buffer.owner[j] = cache;
      return cache;
    });
    const gate = Float32Array.from(members, ({ row }) => (row.seq.silenced.has(block) ? 0 : 1));
    const h = new Float32Array(n * S * H);
    let at = 0;
    for (const c of chunks) {
      // The first chunk reads nothing: a one-slot placeholder, as a whole prompt's call does.
      const past = at === 0 ? new KvBuffer(n, KV, 1, Dp, false, this.kvPrecision) : buffer;
      const hidden = new Float32Array(n * c * H);
      const cos = new Float32Array(n * c * half);
      const sin = new Float32Array(n * c * half);
      members.forEach(({ row }, j) => {
        hidden.set(row.hidden.subarray(at * H, (at + c) * H), j * c * H);
        cos.set(row.cos.subarray(at * half, (at + c) * half), j * c * half);
        sin.set(row.sin.subarray(at * half, (at + c) * half), j * c * half);
      });
      const maskRows: MaskRow[] = members.map(() => ({ past: at, fresh: c }));
      const out = await session.run({
        ...this.blockFeeds(c, hidden, cos, sin, past, gate),
        attn_mask: new ort.Tensor('float32', this.masks.get(maskRows, c, past.capacity), [n, 1, 1, c, past.capacity + c]),
      }, ['hidden_out', 'new_k', 'new_v']);
      this.stats.blockCalls++;
      this.stats.blockRows += n;
      this.stats.blockTokens += n * c;
      const part = out.hidden_out.data as Float32Array;
      for (let j = 0; j < n; j++) h.set(part.subarray(j * c * H, (j + 1) * c * H), (j * S + at) * H);
      caches.forEach((cache, j) => append(cache, j, out.new_k.data as KvArray, out.new_v.data as KvArray, c, c));
      at += c;
    }
    this.takeOutputs(block, members, S, h, members.map((_, j) => j), true);
    members.forEach(({ row, position }, j) => { row.seq.kv[position] = caches[j]; });
  }

  /** A block call's inputs but its mask: `S` new tokens for each of the past buffer's rows. */
  private blockFeeds(S: number, hidden: Float32Array, cos: Float32Array, sin: Float32Array, past: KvBuffer, gate: Float32Array): Record<string, ort.Tensor> {
    const { hiddenSize: H, headDim: D } = this.parts.config;
    const n = past.rows;
    const kvDims = [n, past.kvHeads, past.capacity, past.headSize];
    const kvType = past.precision === 'f16' ? 'float16' : 'float32';
    return {
      hidden: new ort.Tensor('float32', hidden, [n, S, H]),
      cos: new ort.Tensor('float32', cos, [n, S, 1, D / 2]),
      sin: new ort.Tensor('float32', sin, [n, S, 1, D / 2]),
      past_k: new ort.Tensor(kvType, past.k, kvDims),
      past_v: new ort.Tensor(kvType, past.v, kvDims),
      mlp_gate: new ort.Tensor('float32', gate, [n, 1, 1]),
    };
  }

  /**
   * A block's output rows become its members' hidden states: checked for non-finite values (the
   * real tokens' rows only: padding and idle rows are never read), then perturbed where asked.
   */
  private takeOutputs(block: number, members: readonly { row: StepRow; position: number }[], S: number, h: Float32Array, rowOf: readonly number[], prompt: boolean): void {
    const H = this.parts.config.hiddenSize;
    members.forEach(({ row, position }, j) => {
      const at = rowOf[j] * S * H;
      const bad = firstNonFinite(h, at, at + row.count * H);
      if (bad >= 0) {
        const token = Math.floor((bad - at) / H);
        throw new NonFiniteActivations(`block ${block} (position ${position} of ${routeText(row.seq)}) produced ${nonFiniteName(h[bad])} at ${tokenText(row, token)}`);
      }
    });
    members.forEach(({ row, position }, j) => {
      row.hidden = h.subarray(rowOf[j] * S * H, (rowOf[j] + 1) * S * H);
      // The perturbation goes in before anything reads this output: later blocks, their caches,
      // row copies and the prefix store all see the perturbed stream.
      const p = row.seq.perturbation;
      if (p?.position === position) perturbRows(row.hidden, row.count, row.seq.length, prompt ? row.count : row.seq.promptLength, p);
    });
  }
}
