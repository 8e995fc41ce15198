/**
 * A loaded model: tokenizer + embedding table + one onnxruntime session per block + head session.
 * Implements the engine contract (TextGenerator) plus forward passes for the CLI and the tests.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';
import { type ModelConfig, readModelConfig, ropeInverseFrequencies } from './checkpoint/config';
import { openWeights, resolveWeightNames } from './checkpoint/weights';
import { type ModelTokenizer, loadModelTokenizer } from './text/tokenizer';
import { tokenizerFolder } from './text/tokenizerFolder';
import { DEFAULT_VARIANT, type GraphVariant } from './graphs/blockGraph';
import type { WeightPrecision } from './checkpoint/weightPrecision';
import type { KvPrecision } from './decode/kvPrecision';
import type { PrefillChunking } from './decode/prefillChunks';
import { type CachedGraphs, defaultCacheRoot, ensureGraphs } from './graphs/graphCache';
import { EmbeddingTable } from './checkpoint/embeddingTable';
import { RouteExecutor, SequenceSlot } from './decode/routeExecutor';
import { GenerationScheduler, type SchedulerProfile, type StepTiming } from './decode/generationScheduler';
import { checkRoute, checkSilenced, checkTokenIds } from './decode/routeValidation';
import { checkContextLength } from './text/contextLength';
import { DEFAULT_MAX_BATCH, InputError } from '../common';
import { type ChatMessage, type ContinuationScore, type GenerateOptions, type Generation, type GenerationRequest, type ModelContext, type PromptSource, type Route, type ScoreRequest, type TemplateKwargs, type TextGenerator } from './types';
import { scoreContinuations } from './decode/continuationScore';
import { NonFiniteActivations } from './decode/nonFiniteActivations';
import { TokenChoicePool } from './sampling/tokenChoicePool';
import { LogSumExp } from './sampling/logSumExp';
import { type BlockInspection, inspectBlocks } from './decode/blockInspection';
import { sequenceKvNeed } from './decode/kvMemory';
import { numericsPlatform } from './platform/numericsPlatform';

export interface LoadOptions {
  /** Graph cache folder; default REACH_AUDIT_CACHE or ~/.cache/reach-audit/graphs. */
  cacheDir?: string;
  /** onnxruntime intra-op threads; default: the machine's available cores. */
  threads?: number;
  onProgress?: (message: string) => void;
  /** Warnings worth a line on their own (a damaged graph-cache entry rebuilt); default: stderr. */
  onWarning?: (message: string) => void;
  /** Most sequences decoded together in one batch (default DEFAULT_MAX_BATCH). */
  maxBatch?: number;
  /** KV-cache budget in bytes: sequences are admitted while their caches fit (generationScheduler.ts); default none. */
  kvMemory?: number;
  /** Let onnxruntime's worker threads spin between ops (faster only on an otherwise idle machine). */
  spinThreads?: boolean;
  /** Graph construction choices (default: the measured fastest). */
  variant?: GraphVariant;
  /** Projection and lm_head weights: f32 (default) or int8 (see weightPrecision.ts). */
  weights?: WeightPrecision;
  /** KV cache storage: f32 (default) or f16, computed in f32 either way (kvPrecision.ts). */
  kvCache?: KvPrecision;
  /**
   * Bytes kept of earlier prefills so later prefills of the same prompt skip the blocks their
   * routes share (promptPrefixStore.ts); default defaultPrefixStoreBytes, 0 turns it off.
   */
  prefixStoreBytes?: number;
  /** The folder the tokenizer files are read from when the model folder has none (--tokenizer-from); default the model folder. */
  tokenizerDir?: string;
  /**
   * How long prompts are split into block calls (prefillChunks.ts). Not a user setting: the
   * engine version names the split; the tests and the chunking measurement set it to compare.
   */
  prefillChunking?: PrefillChunking;
}

/**
 * An eighth of the blocks' f32 weights, from 32 MB to 1 GB: on the Qwen2.5-0.5B shape about
 * 180 MB, a few questions' identity paths and route tries at a 150-token prompt; on a 7B model
 * 1 GB, a few hundred block outputs of such a prompt.
 */
export function defaultPrefixStoreBytes(config: ModelConfig): number {
  const { hiddenSize: H, headDim: D, numHeads, numKvHeads, intermediateSize: I, numBlocks } = config;
  const blockParameters = 2 * H * numHeads * D + 2 * H * numKvHeads * D + 3 * H * I;
  return Math.min(2 ** 30, Math.max(32 * 2 ** 20, Math.round((4 * blockParameters * numBlocks) / 8)));
}

export interface ForwardOptions {
  route?: Route;
  silencedMlp?: readonly number[];
}

export interface ForwardItem extends ForwardOptions {
  ids: readonly number[];
}

/** The graph variant to build: int8 weights are part of the variant (and so of the cache key). */
function variantFor(options: LoadOptions): GraphVariant {
  // The integer path only means something for int8 weights: the variant names it only then, and
  // only when it is 'row', so f32 and block-path graphs keep their cache keys.
  const { int8Path, ...variant } = options.variant ?? DEFAULT_VARIANT;
  const path = options.weights === 'int8' ? int8Path ?? numericsPlatform().int8Path : 'block';
  return {
    ...variant,
    ...(options.weights === 'int8' ? { weights: 'int8' as const } : {}),
    ...(options.kvCache === 'f16' ? { kvCache: 'f16' as const } : {}),
    ...(path === 'row' ? { int8Path: 'row' as const } : {}),
  };
}

export class Model implements TextGenerator {
  readonly numBlocks: number;
  /** Observer of every generation step's wall time (the bench and the audit's tokens/s set it). */
  onStep?: (step: StepTiming) => void;
  /** Most sequences in one decode step; may be changed between steps (the bench does). */
  maxBatch: number;
  /** KV-cache budget in bytes (null: none); may be changed between calls, like maxBatch. */
  kvMemory: number | null;
  private disposed = false;
  private readonly scheduler: GenerationScheduler;

  private constructor(
    /** The model folder (absolute). */
    readonly dir: string,
    readonly config: ModelConfig,
    private readonly tokenizer: ModelTokenizer,
    private readonly executor: RouteExecutor,
    private readonly embedding: EmbeddingTable,
    private readonly sessions: ort.InferenceSession[],
    /** Where the graphs live and whether this load built them. */
    readonly graphs: CachedGraphs,
    maxBatch: number,
    private readonly choices: TokenChoicePool,
    private readonly logSumExp: LogSumExp,
    kvMemory: number | null,
  ) {
    this.numBlocks = config.numBlocks;
    this.maxBatch = maxBatch;
    this.kvMemory = kvMemory;
    this.scheduler = new GenerationScheduler({
      choices,
      logSumExp,
      executor,
      numBlocks: config.numBlocks,
      vocabSize: config.vocabSize,
      hiddenSize: config.hiddenSize,
      eosIds: new Set([...config.eosTokenIds, ...tokenizer.eosTokenIds]),
      decode: (ids) => tokenizer.decode(ids),
      maxBatch: () => this.maxBatch,
      kvMemory: () => this.kvMemory,
      kvBytes: (routeLength, tokens) => sequenceKvNeed(config, routeLength, tokens, executor.kvPrecision).bytes,
      onStep: (s) => this.onStep?.(s),
    });
  }

  static async load(dir: string, options: LoadOptions = {}): Promise<Model> {
    const modelDir = path.resolve(dir);
    // Everything that can reject the folder runs before anything is written to the cache.
    const config = readModelConfig(modelDir);
    if (options.kvCache === 'f16' && config.slidingWindow !== undefined) {
      throw new InputError(`--kv-cache f16: ${modelDir} has a sliding window, whose attention (onnxruntime's GroupQueryAttention) reads a float32 cache; use --kv-cache f32`);
    }
    const tokenizer = loadModelTokenizer(modelDir, config, tokenizerFolder(modelDir, options.tokenizerDir));
    const store = openWeights(modelDir);
    let graphs: CachedGraphs;
    try {
      const names = resolveWeightNames(store, config, modelDir);
      graphs = ensureGraphs({
        cacheRoot: options.cacheDir ?? defaultCacheRoot(),
        store,
        names,
        config,
        variant: variantFor(options),
        onProgress: options.onProgress,
        onWarning: options.onWarning ?? ((m) => process.stderr.write(`reach-audit: warning: ${m}\n`)),
      });
    } finally {
      store.close();
    }

    const threads = options.threads ?? os.availableParallelism();
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      executionProviders: ['cpu'],
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      // One arena per session would keep each of the L+1 sessions' peak activation memory
      // (measured on the Qwen2.5-0.5B shape: max RSS 5.5 GB with arenas vs 2.5 GB without).
      enableCpuMemArena: false,
      enableMemPattern: false,
      // Worker threads sleep instead of spinning between ops. On a busy machine (the editor, other
      // jobs) a spinning pool stalls whenever one worker is descheduled: measured on a loaded
      // 2-core machine, a 896x9728 MatMul took 50 ms median spinning vs 8 ms not spinning, and
      // Qwen2.5-0.5B-shaped batch-1 decode went from 0.25 to 1.8 tokens/s.
      extra: { session: { intra_op: { allow_spinning: options.spinThreads ? '1' : '0' } } },
    };
    const sessions: ort.InferenceSession[] = [];
    let head: ort.InferenceSession | undefined;
    let logSumExp: LogSumExp | undefined;
    try {
      // The head first: while onnxruntime prepacks the [vocab, hidden] matrix it briefly holds it
      // twice, and doing that before the blocks are resident keeps it under the final footprint
      // (measured peak RSS on the Qwen2.5-0.5B shape: 1.31x the F32 weights head-last, see bench).
      options.onProgress?.('loading head');
      head = await ort.InferenceSession.create(path.join(graphs.dir, graphs.manifest.headFile), sessionOptions);
      for (let i = 0; i < config.numBlocks; i++) {
        options.onProgress?.(`loading block ${i + 1}/${config.numBlocks}`);
        sessions.push(await ort.InferenceSession.create(path.join(graphs.dir, graphs.manifest.blockFiles[i]), sessionOptions));
      }
      sessions.push(head);
      logSumExp = await LogSumExp.create(sessionOptions);
    } catch (err) {
      await Promise.all([...sessions, ...(head && !sessions.includes(head) ? [head] : [])].map((s) => s.release()));
      throw err;
    }
    const embedding = new EmbeddingTable(path.join(graphs.dir, graphs.manifest.embedFile), config.hiddenSize, config.vocabSize);
    const executor = new RouteExecutor({
      config,
      embedding,
      blocks: sessions.slice(0, config.numBlocks),
      head: sessions[config.numBlocks],
      invFreq: ropeInverseFrequencies(config),
      prefixStoreBytes: options.prefixStoreBytes ?? defaultPrefixStoreBytes(config),
      kvPrecision: graphs.manifest.kvCache ?? 'f32',
      ...(options.prefillChunking ? { prefillChunking: options.prefillChunking } : {}),
    });
    return new Model(modelDir, config, tokenizer, executor, embedding, sessions, graphs, options.maxBatch ?? DEFAULT_MAX_BATCH, new TokenChoicePool(threads), logSumExp, options.kvMemory ?? null);
  }

  /** How the projection weights are stored and multiplied. */
  get weights(): WeightPrecision {
    return this.graphs.manifest.weights ?? 'f32';
  }

  /** How the KV cache stores keys and values. */
  get kvCache(): KvPrecision {
    return this.graphs.manifest.kvCache ?? 'f32';
  }

  get vocabSize(): number {
    return this.config.vocabSize;
  }

  /** Eos ids: generation_config.json, config.json and the tokenizer's, together. */
  get context(): ModelContext {
    return { maxPositions: this.config.maxPositionEmbeddings, ...(this.config.slidingWindow !== undefined ? { slidingWindow: this.config.slidingWindow } : {}) };
  }

  get eosIds(): number[] {
    return [...new Set([...this.config.eosTokenIds, ...this.tokenizer.eosTokenIds])];
  }

  /** Block calls / rows / KV gathers since load (bench and grouping measurements). */
  get stats(): Readonly<RouteExecutor['stats']> {
    return this.executor.stats;
  }

  /**
   * Forgets the prompt prefixes earlier prefills kept (promptPrefixStore.ts). Speed only: the
   * numbers are the same either way. A bench that runs overlapping workloads one after another
   * calls it so that each starts, as a fresh audit does, with nothing stored.
   */
  forgetPromptPrefixes(): void {
    this.executor.forgetPromptPrefixes();
  }

  get hasChatTemplate(): boolean {
    return this.tokenizer.hasChatTemplate;
  }

  get templateReadsDate(): boolean {
    return this.tokenizer.templateReadsDate;
  }

  encodeChat(messages: readonly ChatMessage[], templateKwargs?: TemplateKwargs, templateDate?: string): number[] {
    return this.tokenizer.encodeChat(messages, templateKwargs, templateDate);
  }

  encodeRaw(text: string): number[] {
    return this.tokenizer.encodeRaw(text);
  }

  /** Tokenize text as it would continue a prompt: no special tokens added. */
  encodeText(text: string): number[] {
    return this.tokenizer.encodeText(text);
  }

  tokensAtLeast(prompt: PromptSource): number {
    return this.tokenizer.tokensAtLeast(prompt);
  }

  decode(ids: readonly number[]): string {
    return this.tokenizer.decode(ids);
  }

  /** Last-position logits of `ids` under a route and silenced MLPs. */
  async forward(ids: readonly number[], options: ForwardOptions = {}): Promise<Float32Array> {
    return (await this.forwardBatch([{ ids, ...options }]))[0];
  }

  /**
   * What each block adds at the last position of `ids` under the identity route, with the logit
   * lens and direct logits (blockInspection.ts). Separate calls of the same block graphs: no
   * generation is slowed by it.
   */
  async inspect(ids: readonly number[]): Promise<BlockInspection> {
    this.checkAlive();
    checkContextLength([{ promptIds: ids, maxNewTokens: 0 }], this.context);
    checkTokenIds(ids, this.vocabSize, 'ids');
    const L = this.numBlocks;
    return inspectBlocks({ config: this.config, embedding: this.embedding, blocks: this.sessions.slice(0, L), head: this.sessions[L], invFreq: ropeInverseFrequencies(this.config) }, ids).catch((err: unknown) => {
      throw err instanceof NonFiniteActivations ? err.inModel(this.dir) : err;
    });
  }

  /**
   * Decode cost at a long context (the bench's figure): `promptIds` prefilled as `generate`
   * prefills a prompt (a long one in chunks, prefillChunks.ts), forked into `sequences`
   * sequences, then `steps` decode steps of all of them in one call each. The next token is
   * fixed, as decode speed does not depend on it. Returns the prefill's and each decode step's ms.
   */
  async timeDecodeAtContext(promptIds: readonly number[], sequences: number, steps: number): Promise<{ prefillMs: number; stepMs: number[]; kvBytes: number }> {
    this.checkAlive();
    checkContextLength([{ promptIds, maxNewTokens: steps }], this.context);
    checkTokenIds(promptIds, this.vocabSize, 'promptIds');
    const first = new SequenceSlot(Array.from({ length: this.numBlocks }, (_, i) => i), new Set());
    const seqs = [first];
    try {
      const t = performance.now();
      await this.executor.step([first], [promptIds]);
      const prefillMs = performance.now() - t;
      for (let s = 1; s < sequences; s++) seqs.push(first.fork());
      const stepMs: number[] = [];
      for (let s = 0; s < steps; s++) {
        const token = [promptIds[s % promptIds.length]];
        const t0 = performance.now();
        await this.executor.step(seqs, seqs.map(() => token));
        stepMs.push(performance.now() - t0);
      }
      // The cache buffers the sequences' caches live in at the end, each counted once.
      const buffers = new Set(seqs.flatMap((q) => q.kv.flatMap((c) => (c ? [c.buffer] : []))));
      return { prefillMs, stepMs, kvBytes: [...buffers].reduce((n, b) => n + b.bytes, 0) };
    } finally {
      for (const q of seqs) q.release();
    }
  }

  /** Teacher-forced log-probabilities of continuations (continuationScore.ts), in one batched forward pass. */
  scoreContinuations(requests: readonly ScoreRequest[]): Promise<ContinuationScore[]> {
    return scoreContinuations({ numBlocks: this.numBlocks, forwardBatch: (items) => this.forwardBatch(items), logSumExp: (logits, vocab) => this.logSumExp.rows(logits, vocab) }, requests);
  }

  /** Last-position logits of several sequences in one batch. */
  async forwardBatch(items: readonly ForwardItem[]): Promise<Float32Array[]> {
    this.checkAlive();
    if (items.length === 0) return [];
    checkContextLength(items.map((it) => ({ promptIds: it.ids, maxNewTokens: 0 })), this.context);
    const slots = items.map((item, i) => {
      const what = items.length === 1 ? '' : `item ${i} `;
      checkTokenIds(item.ids, this.vocabSize, `${what}ids`);
      return { item, route: checkRoute(item.route, this.numBlocks, `${what}route`), silenced: checkSilenced(item.silencedMlp, this.numBlocks, `${what}silenced MLP blocks`) };
    });
    const seqs = slots.map((s) => new SequenceSlot(s.route, s.silenced));
    const logits = await this.executor.step(seqs, slots.map((s) => s.item.ids)).catch((err: unknown) => {
      throw err instanceof NonFiniteActivations ? err.inModel(this.dir) : err;
    });
    const V = this.vocabSize;
    return items.map((_, i) => logits.slice(i * V, (i + 1) * V));
  }

  /**
   * Generates all requests through the model's one queue (see generationScheduler.ts): calls made
   * while others run share their batches. Lower `priority` is served first.
   */
  async generate(requests: readonly GenerationRequest[], signal?: AbortSignal, options: GenerateOptions = {}): Promise<Generation[]> {
    this.checkAlive();
    checkContextLength(requests, this.context);
    return this.scheduler.submit(requests, signal, options.priority ?? 0).catch((err: unknown) => {
      throw err instanceof NonFiniteActivations ? err.inModel(this.dir) : err;
    });
  }

  /** Finished generations' states kept for continuations: bytes held, continuations that found one and that did not. */
  get keptStates(): { bytes: number; hits: number; misses: number } {
    const k = this.scheduler.kept;
    return { bytes: k.usedBytes, hits: k.hits, misses: k.misses };
  }

  /** Where the generation queue's time went since load (the bench's profile of the audit). */
  get schedulerProfile(): Readonly<SchedulerProfile> {
    return this.scheduler.profile;
  }

  get tokensGenerated(): number {
    return this.scheduler.tokensChosen;
  }

  /** Sequences decoding now and requests waiting for a place in the batch. */
  get load(): { running: number; waiting: number } {
    return this.scheduler.load;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.choices.dispose();
    this.embedding.close();
    await Promise.all([...this.sessions.map((s) => s.release()), this.logSumExp.release()]);
  }

  private checkAlive(): void {
    if (this.disposed) throw new Error('model has been disposed');
  }
}
