/**
 * One generation queue per model: every generate call, from any caller and at any time, feeds it,
 * and one loop decodes the running sequences together. Requests are checked up front (a bad one
 * fails its call before any work).
 *
 * Continuous batching: up to `maxBatch` sequences decode together; when one finishes, a waiting
 * request takes its place at the next step, whichever call it came from. So an audit can put all
 * of its questions' generations into the queue as they become known (a route search submits its
 * next route when the previous one is graded) and the batch stays full. Sequences need not be
 * aligned (each has its own position and caches), and a sequence's numbers never depend on its
 * batch-mates, so the order and grouping change speed only, never results.
 *
 * Memory-aware admission (a KV budget set): a sequence joins only while the KV caches it can come to
 * hold (its route, prompt and whole token budget, kvMemory.ts) fit in the budget beside the running
 * sequences' and the prompts prefilled ahead; the rest wait in order. A request that cannot fit even
 * alone is refused when submitted. Admission changes which sequences decode together, never results.
 *
 * Waiting requests are served by priority (lower first; equal priorities in submission order), so
 * an audit's earlier questions finish first while later ones fill the slots they leave free.
 *
 * Shared prompts: waiting requests with the same priority, prompt, route, silenced MLPs and residual
 * perturbation (the B
 * samples of one question and its deployment) are prefilled once; each forks that prefill's
 * caches (copy on write) and draws its first token from the shared last-position logits with its
 * own PRNG.
 *
 * Results come back in request order. A cancelled call (its signal) is rejected at once; its
 * waiting requests leave the queue and its running sequences leave the batch at the next step.
 */
import { InputError, memorySizeText } from '../../common';
import { checkRoute, checkSilenced, checkTokenIds } from './routeValidation';
import { type RouteExecutor, SequenceSlot } from './routeExecutor';
import { type AppliedPerturbation, checkPerturbation } from './residualPerturbation';
import { type TokenChoice, Xoshiro128 } from '../sampling/sampling';
import type { TokenChoicePool } from '../sampling/tokenChoicePool';
import type { LogSumExp } from '../sampling/logSumExp';
import type { ChoiceRow } from '../sampling/tokenChoiceRows';
import { StopDetector } from '../text/stopDetector';
import { checkTokenRecordK, tokenStep } from '../sampling/tokenRecord';
import type { FinishReason, Generation, GenerationRequest, TokenStep } from '../types';
import { KeptStates } from './keptStates';
import { chargedPromptTokens } from './chargedPromptTokens';

/** Most bytes of kept generation states (keepState): this, or a quarter of a KV budget when one is set. */
export const KEPT_STATE_BYTES = 64 * 2 ** 20;

export interface GenerationContext {
  executor: RouteExecutor;
  numBlocks: number;
  vocabSize: number;
  /** Width of the residual stream (a perturbation's direction has this many values). */
  hiddenSize: number;
  eosIds: ReadonlySet<number>;
  decode(ids: readonly number[]): string;
  /** Most sequences in one decode step (read at every step, so it can be changed between calls). */
  maxBatch(): number;
  /** The KV-cache budget in bytes, null for none (admission by maxBatch alone); read at every admission. */
  kvMemory(): number | null;
  /** The most bytes of KV cache a sequence of this route length can hold with `tokens` tokens (kvMemory.ts). */
  kvBytes(routeLength: number, tokens: number): number;
  /** Where a decode step's tokens are chosen (on two threads when the model has two cores). */
  choices: TokenChoicePool;
  /** Each row's log Σ exp(logits): a chosen token's log-probability is its logit minus this. */
  logSumExp: Pick<LogSumExp, 'rows'>;
  /** Called after every step with its wall time; used by the bench and the audit's tokens/s. */
  onStep?: (step: StepTiming) => void;
}

export interface StepTiming {
  step: number;
  /** A step that prefilled prompts (the first token of each comes from it) rather than decoding. */
  prefill: boolean;
  /** Sequences in the step. */
  batch: number;
  /** Tokens fed per sequence (the longest prompt when prefilling, else 1). */
  tokens: number;
  ms: number;
}

/**
 * Where the queue's wall time went since it started (the bench's profile of the audit): its steps,
 * the token choice after them, and how long its loop ran: that less the steps and choices is the
 * loop's turns between steps (admission, and the callers' turn: grading and new requests); wall
 * time less it is the queue standing empty. Cumulative ms; runningMs counts when the loop stops.
 */
export interface SchedulerProfile {
  prefillMs: number;
  decodeMs: number;
  chooseMs: number;
  runningMs: number;
  /** Decode steps, the sequences they ran, and the places left empty (maxBatch - batch) while requests waited. */
  decodeSteps: number;
  decodeRows: number;
  emptyPlacesWhileWaiting: number;
  /** Prefill steps and the prompts they ran. */
  prefillSteps: number;
  prefillRows: number;
}

export interface Checked {
  index: number;
  request: GenerationRequest;
  /** The ids prefilled: the prompt, less the tokens a continuation feeds one at a time (`forced`). */
  prompt: readonly number[];
  /** A continuation's tokens after the prompt, fed one at a time before anything is generated. */
  forced: readonly number[];
  route: number[];
  silenced: Set<number>;
  perturbation: AppliedPerturbation | null;
}

export function checkRequest(r: GenerationRequest, index: number, numBlocks: number, vocabSize: number, hiddenSize: number): Checked {
  const what = `request ${index}`;
  checkTokenIds(r.promptIds, vocabSize, `${what} promptIds`);
  const route = checkRoute(r.route, numBlocks, `${what} route`);
  const silenced = checkSilenced(r.silencedMlp, numBlocks, `${what} silencedMlp`);
  const perturbation = checkPerturbation(r.perturbation, route, hiddenSize, `${what} perturbation`);
  if (r.pooledAfterBlock !== undefined && !(Number.isInteger(r.pooledAfterBlock) && route.includes(r.pooledAfterBlock))) {
    throw new InputError(`${what} pooledAfterBlock: expected a block of the route (${route.join(',')}), got ${String(r.pooledAfterBlock)}`);
  }
  if (!Number.isInteger(r.maxNewTokens) || r.maxNewTokens < 0) {
    throw new InputError(`${what} maxNewTokens: expected a whole number >= 0, got ${String(r.maxNewTokens)}`);
  }
  const d = r.decoding;
  if (!d || !Number.isFinite(d.temperature) || d.temperature < 0) {
    throw new InputError(`${what} decoding.temperature: expected a number >= 0 (0 = greedy), got ${String(d?.temperature)}`);
  }
  if (!Number.isFinite(d.topP) || d.topP <= 0 || d.topP > 1) {
    throw new InputError(`${what} decoding.topP: expected a number in (0, 1], got ${String(d.topP)}`);
  }
  if (!Number.isInteger(d.seed)) throw new InputError(`${what} decoding.seed: expected a whole number, got ${String(d.seed)}`);
  checkTokenRecordK(r.tokenRecord, `${what} tokenRecord`);
  const split = checkContinues(r, what);
  return { index, request: r, route, silenced, perturbation, prompt: r.promptIds.slice(0, split), forced: r.promptIds.slice(split) };
}

/** Where a continuation's prompt ends (the whole prompt for any other request). */
function checkContinues(r: GenerationRequest, what: string): number {
  const c = r.continues;
  if (c === undefined) return r.promptIds.length;
  const n = r.promptIds.length;
  if (!Number.isInteger(c.promptTokens) || c.promptTokens < 1 || !Number.isInteger(c.generatedTokens) || c.generatedTokens < 0 || c.promptTokens + c.generatedTokens >= n) {
    throw new InputError(`${what} continues: expected promptTokens >= 1 and generatedTokens >= 0 that leave at least one of the ${n} prompt ids to add, got ${String(c.promptTokens)} and ${String(c.generatedTokens)}`);
  }
  if (r.pooledAfterBlock !== undefined) throw new InputError(`${what}: pooledAfterBlock reads a prompt's own prefill, which a continuation (continues) does not run; ask for one or the other`);
  return c.promptTokens;
}

export function abortError(): Error {
  const err = new Error('generation cancelled');
  err.name = 'AbortError';
  return err;
}

/** One generate call: its results fill in as its sequences finish. */
interface Call {
  results: Generation[];
  remaining: number;
  settled: boolean;
  resolve(g: Generation[]): void;
  reject(err: unknown): void;
  /** Drops the call's abort listener. */
  release(): void;
}

interface Running {
  c: Checked;
  call: Call;
  slot: SequenceSlot | null;
  rng: Xoshiro128 | null;
  stop: StopDetector | null;
  tokens: number[];
  /** How many of the continuation's tokens (`c.forced`) have been fed. */
  fed: number;
  logprobs: number[];
  /** The token record, when the request asked for one. */
  steps: TokenStep[] | null;
  text: string | null;
  finish: FinishReason | null;
  /** The most KV-cache bytes it can come to hold: its share of a KV budget. */
  kvBytes: number;
}

/** Waiting requests that share a priority, prompt, route and silenced MLPs. */
interface PromptGroup {
  key: string;
  priority: number;
  order: number;
  /** Members not yet admitted, in submission order. */
  waiting: Running[];
  /** The prefilled prompt, kept until the last member has forked it. */
  prefix: SequenceSlot | null;
  /** A continuation started from a kept state: `prefix` is that state, nothing to prefill or park. */
  resumed: boolean;
  logits: Float32Array | null;
}

/** How `r`'s next token is chosen: its decoding, and its PRNG's draw for this token when sampled. */
function choiceRow(r: Running): ChoiceRow {
  const { temperature, topP } = r.c.request.decoding;
  return { decoding: { temperature, topP }, u: r.rng ? r.rng.nextFloat() : null };
}

/** Lets callers whose generations just finished submit their next requests before admission. */
function yieldToCallers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class GenerationScheduler {
  private queue: PromptGroup[] = [];
  private readonly groups = new Map<string, PromptGroup>();
  private active: Running[] = [];
  private running = false;
  /** Requests taken from the queue for the prefill under way: a failed prefill fails their calls too. */
  private admitting: Running[] = [];
  private order = 0;
  private steps = 0;
  /** Finished generations' caches, for the requests that continue them. */
  readonly kept = new KeptStates(() => {
    const budget = this.ctx.kvMemory();
    return budget === null ? KEPT_STATE_BYTES : Math.min(KEPT_STATE_BYTES, Math.floor(budget / 4));
  });
  private chosen = 0;
  readonly profile: SchedulerProfile = { prefillMs: 0, decodeMs: 0, chooseMs: 0, runningMs: 0, decodeSteps: 0, decodeRows: 0, emptyPlacesWhileWaiting: 0, prefillSteps: 0, prefillRows: 0 };

  constructor(private readonly ctx: GenerationContext) {}

  /**
   * Tokens chosen since the queue started, a sequence's last step before it was cancelled included:
   * the engine's own work, readable at any moment (an audit's live tokens/s), not only when a call returns.
   */
  get tokensChosen(): number {
    return this.chosen;
  }

  /** Sequences decoding now and requests waiting for a place. */
  get load(): { running: number; waiting: number } {
    let waiting = 0;
    for (const g of this.queue) waiting += g.waiting.length;
    return { running: this.active.length, waiting };
  }

  submit(requests: readonly GenerationRequest[], signal: AbortSignal | undefined, priority = 0): Promise<Generation[]> {
    let checked: Checked[];
    try {
      checked = requests.map((r, i) => checkRequest(r, i, this.ctx.numBlocks, this.ctx.vocabSize, this.ctx.hiddenSize));
    } catch (err) {
      return Promise.reject(err);
    }
    if (signal?.aborted) return Promise.reject(abortError());
    const budget = this.ctx.kvMemory();
    const kvBytes = checked.map((c) => this.ctx.kvBytes(c.route.length, c.request.promptIds.length + c.request.maxNewTokens));
    const over = budget === null ? -1 : kvBytes.findIndex((b) => b > budget);
    if (over >= 0) {
      const c = checked[over];
      return Promise.reject(new InputError(
        `request ${over}: its KV caches can come to ${memorySizeText(kvBytes[over])} (a route of ${c.route.length} blocks, ${c.request.promptIds.length} prompt + ${c.request.maxNewTokens} new tokens), ` +
          `over the whole KV memory budget of ${memorySizeText(budget as number)}: raise the budget (--kv-memory), or lower the token budget (--max-new-tokens) or the route length`,
      ));
    }
    return new Promise<Generation[]>((resolve, reject) => {
      const call: Call = { results: new Array<Generation>(checked.length), remaining: checked.length, settled: false, resolve, reject, release: () => {} };
      if (signal) {
        const onAbort = () => this.cancel(call);
        signal.addEventListener('abort', onAbort, { once: true });
        call.release = () => signal.removeEventListener('abort', onAbort);
      }
      for (const c of checked) {
        const r: Running = {
          c,
          call,
          slot: null,
          rng: c.request.decoding.temperature > 0 ? new Xoshiro128(c.request.decoding.seed) : null,
          stop: c.request.stop && c.request.stop.length > 0 ? new StopDetector(c.request.stop, this.ctx.decode) : null,
          tokens: [],
          fed: 0,
          logprobs: [],
          steps: c.request.tokenRecord !== undefined ? [] : null,
          text: null,
          finish: c.request.maxNewTokens === 0 ? 'length' : null,
          kvBytes: kvBytes[c.index],
        };
        if (r.finish !== null) this.finish(r);
        else this.enqueue(r, priority);
      }
      if (call.remaining === 0) return this.settle(call);
      if (!this.running) {
        // Start after the current tick, so requests submitted together are admitted together.
        this.running = true;
        setImmediate(() => void this.loop());
      }
    });
  }

  /** What a kept state is found by: the prompt and what it ran through. */
  private stateKey(c: Checked): string {
    return JSON.stringify([c.prompt, c.route, [...c.silenced].sort((x, y) => x - y), c.perturbation?.key ?? null]);
  }

  private enqueue(r: Running, priority: number): void {
    // A continuation whose generation kept its state starts from it: a group of its own, prefilled already.
    const resumed = r.c.forced.length > 0 ? this.kept.resume(this.stateKey(r.c), r.c.forced, r.c.forced.length - 1) : null;
    if (resumed) r.fed = resumed.fed;
    const key = resumed
      ? `resumed ${this.order}`
      : JSON.stringify([priority, r.c.prompt, r.c.route, [...r.c.silenced].sort((x, y) => x - y), r.c.perturbation?.key ?? null, ...(r.c.request.pooledAfterBlock !== undefined ? [r.c.request.pooledAfterBlock] : [])]);
    let g = this.groups.get(key);
    if (!g) {
      g = { key, priority, order: this.order++, waiting: [], prefix: resumed?.slot ?? null, logits: null, resumed: resumed !== null };
      this.groups.set(key, g);
      // Binary search for the first group that comes after g.
      let lo = 0;
      let hi = this.queue.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const m = this.queue[mid];
        if (m.priority < g.priority || (m.priority === g.priority && m.order < g.order)) lo = mid + 1;
        else hi = mid;
      }
      this.queue.splice(lo, 0, g);
    }
    g.waiting.push(r);
  }

  private cancel(call: Call): void {
    if (call.settled) return;
    call.settled = true;
    call.release();
    for (const g of this.queue) g.waiting = g.waiting.filter((r) => r.call !== call);
    this.dropEmptyGroups();
    // Its running sequences leave the batch at the next step.
    call.reject(abortError());
  }

  private dropEmptyGroups(): void {
    this.queue = this.queue.filter((g) => {
      if (g.waiting.length > 0) return true;
      this.groups.delete(g.key);
      // A prompt prefilled ahead for requests that were all cancelled: its cache rows go back.
      g.prefix?.release();
      g.prefix = null;
      g.logits = null;
      return false;
    });
  }

  /** KV bytes the running sequences may come to hold, and the prompts prefilled ahead hold. */
  private kvHeld(): number {
    let held = 0;
    for (const r of this.active) held += r.kvBytes;
    for (const g of this.queue) if (g.prefix && !g.resumed) held += this.promptKvBytes(g);
    return held + this.kept.usedBytes;
  }

  /** A prefilled prompt's caches: one slot past the prompt (routeExecutor.ts allocates so). */
  private promptKvBytes(g: PromptGroup): number {
    const c = g.waiting[0].c;
    return this.ctx.kvBytes(c.route.length, c.prompt.length + 1);
  }

  private async loop(): Promise<void> {
    const p = this.profile;
    const began = performance.now();
    try {
      for (;;) {
        this.active = this.active.filter((r) => !r.call.settled);
        if (this.queue.length > 0) await this.admit();
        if (this.active.length === 0) {
          if (this.queue.length === 0) break;
          continue;
        }
        const batch = this.active;
        const started = performance.now();
        // A continuation feeds its tokens first; the logits after all but its last are not read.
        const fed = batch.map((r) => [r.fed < r.c.forced.length ? r.c.forced[r.fed++] : r.tokens[r.tokens.length - 1]]);
        const logits = await this.ctx.executor.step(batch.map((r) => r.slot as SequenceSlot), fed, (i) => !batch[i].call.settled);
        const ms = performance.now() - started;
        this.ctx.onStep?.({ step: this.steps++, prefill: false, batch: batch.length, tokens: 1, ms });
        p.decodeMs += ms;
        p.decodeSteps++;
        p.decodeRows += batch.length;
        if (this.queue.length > 0) p.emptyPlacesWhileWaiting += Math.max(0, this.ctx.maxBatch() - batch.length);
        const feeding = batch.filter((r) => r.fed < r.c.forced.length);
        for (const r of feeding) if (r.call.settled) this.drop(r);
        if (feeding.length === 0) {
          const choices = await this.choose(logits, batch.map((r) => choiceRow(r)), batch.map((r) => r.c.request.tokenRecord));
          batch.forEach((r, j) => this.accept(r, choices[j]));
        } else {
          const V = this.ctx.vocabSize;
          const rows = batch.flatMap((r, j) => (r.fed < r.c.forced.length ? [] : [j]));
          const picked = new Float32Array(rows.length * V);
          rows.forEach((j, i) => picked.set(logits.subarray(j * V, (j + 1) * V), i * V));
          const choices = await this.choose(picked, rows.map((j) => choiceRow(batch[j])), rows.map((j) => batch[j].c.request.tokenRecord));
          rows.forEach((j, i) => this.accept(batch[j], choices[i]));
        }
        this.active = this.active.filter((r) => r.finish === null);
        await yieldToCallers();
      }
    } catch (err) {
      // A failed step fails every call with work in the queue; the queue starts empty again.
      const calls = new Set([...this.active, ...this.admitting, ...this.queue.flatMap((g) => g.waiting)].map((r) => r.call));
      this.active = [];
      this.admitting = [];
      this.queue = [];
      this.groups.clear();
      for (const call of calls) {
        if (call.settled) continue;
        call.settled = true;
        call.release();
        call.reject(err);
      }
    } finally {
      this.running = false;
      p.runningMs += performance.now() - began;
    }
  }

  /** Admits waiting requests into free places; prefills the prompts not yet prefilled, together. */
  private async admit(): Promise<void> {
    const admitted: { r: Running; g: PromptGroup; last: boolean }[] = [];
    const toPrefill: PromptGroup[] = [];
    const maxBatch = Math.max(1, this.ctx.maxBatch());
    const budget = this.ctx.kvMemory();
    let kvRoom = budget === null ? Infinity : budget - this.kvHeld();
    while (this.active.length + admitted.length < maxBatch && this.queue.length > 0) {
      const g = this.queue[0];
      // In order: the next request waits while its caches would not fit (one always runs: submit refused any that cannot fit alone).
      const next = g.waiting[0].kvBytes;
      if (next > kvRoom && this.active.length + admitted.length > 0) break;
      kvRoom -= next;
      if (!g.prefix && !toPrefill.includes(g)) toPrefill.push(g);
      const r = g.waiting.shift() as Running;
      admitted.push({ r, g, last: g.waiting.length === 0 });
      this.admitting.push(r);
      if (g.waiting.length === 0) {
        this.queue.shift();
        this.groups.delete(g.key);
      }
    }
    if (toPrefill.length > 0) {
      const firsts = toPrefill.map((g) => admitted.find((a) => a.g === g)!.r.c);
      const ahead = this.prefillAhead(toPrefill, new Set(firsts.map((c) => c.prompt.length)), maxBatch, kvRoom);
      firsts.push(...ahead.map((g) => g.waiting[0].c));
      toPrefill.push(...ahead);
      const started = performance.now();
      const slots = firsts.map((c) => new SequenceSlot(c.route, c.silenced, c.perturbation, c.request.pooledAfterBlock ?? null));
      // A prompt is still wanted while a caller waits for any request of its group; a long prefill
      // whose callers all cancelled stops at the next block (routeExecutor.ts).
      const live = (r: Running) => !r.call.settled;
      const wanted = (j: number) => admitted.some((a) => a.g === toPrefill[j] && live(a.r)) || toPrefill[j].waiting.some(live);
      const logits = await this.ctx.executor.step(slots, firsts.map((c) => c.prompt), wanted);
      const ms = performance.now() - started;
      this.ctx.onStep?.({ step: this.steps++, prefill: true, batch: slots.length, tokens: Math.max(...firsts.map((c) => c.prompt.length)), ms });
      this.profile.prefillMs += ms;
      this.profile.prefillSteps++;
      this.profile.prefillRows += slots.length;
      const V = this.ctx.vocabSize;
      toPrefill.forEach((g, j) => {
        if (slots[j].abandoned || !wanted(j)) {
          // Nobody waits for this prompt any more (its calls were cancelled during the prefill).
          slots[j].release();
          return;
        }
        g.prefix = slots[j];
        g.logits = logits.slice(j * V, (j + 1) * V);
      });
    }
    for (const { r, g, last } of admitted) {
      if (!r.call.settled) continue;
      // Cancelled while their prompt was prefilled; a resumed state's fork is let go here.
      if (g.resumed && last) g.prefix?.release();
    }
    const taking = admitted.filter(({ r }) => !r.call.settled);
    taking.forEach(({ r, g, last }) => {
      const prefix = g.prefix as SequenceSlot;
      // The last member takes the prefill itself; the others fork it.
      r.slot = last ? prefix : prefix.fork();
    });
    // A continuation feeds its own tokens next: the prompt's logits choose nothing for it.
    const choosing = taking.filter(({ r }) => r.fed >= r.c.forced.length);
    const V = this.ctx.vocabSize;
    const firstLogits = new Float32Array(choosing.length * V);
    choosing.forEach(({ g }, j) => firstLogits.set(g.logits as Float32Array, j * V));
    // First tokens are chosen like a decode step's (on both threads): the 16 samples of a question
    // are admitted together. Until chosen they stay in `admitting`, so a failure fails their calls.
    const choices = await this.choose(firstLogits, choosing.map(({ r }) => choiceRow(r)), choosing.map(({ r }) => r.c.request.tokenRecord));
    this.admitting = [];
    for (const { r } of taking) if (r.fed < r.c.forced.length) this.active.push(r);
    choosing.forEach(({ r }, j) => {
      this.accept(r, choices[j]);
      if (r.finish === null) this.active.push(r);
    });
    for (const { g, last } of admitted) {
      if (!last) continue;
      g.prefix = null;
      g.logits = null;
    }
  }

  /**
   * Waiting groups, not yet prefilled, whose prompts have the length of one being prefilled now:
   * they are prefilled in the same call and wait with their caches until a place frees. With
   * continuous batching places free one or two at a time, so without this the 16 routes of one
   * question (one prompt, 16 routes) would prefill in up to 16 calls of one or two sequences, each
   * as costly as a decode step on a small model; prompts of other lengths are never added (a
   * padded prompt's log-probs would depend on its batch-mates, see routeExecutor.ts). At most
   * `maxBatch` sequences are prefilled in one call and at most `maxBatch` wait prefilled, each
   * holding only its prompt's caches and first-token logits, and under a KV budget only while those
   * caches fit in what admission left (`kvRoom` bytes).
   */
  private prefillAhead(toPrefill: readonly PromptGroup[], lengths: ReadonlySet<number>, maxBatch: number, kvRoom: number): PromptGroup[] {
    let parked = 0;
    for (const g of this.queue) if (g.prefix && !g.resumed) parked++;
    let room = Math.min(maxBatch - toPrefill.length, maxBatch - parked);
    const ahead: PromptGroup[] = [];
    for (const g of this.queue) {
      if (room <= 0) break;
      if (g.prefix || toPrefill.includes(g) || !lengths.has(g.waiting[0].c.prompt.length)) continue;
      const bytes = this.promptKvBytes(g);
      if (bytes > kvRoom) break;
      kvRoom -= bytes;
      ahead.push(g);
      room--;
    }
    return ahead;
  }

  /** Each row's token (on both threads) and its log-probability; its token record where `records[j]` asks for one. */
  private async choose(logits: Float32Array, rows: ChoiceRow[], records: readonly (number | undefined)[]): Promise<(TokenChoice & { step?: TokenStep })[]> {
    const V = this.ctx.vocabSize;
    const started = performance.now();
    const [tokens, lse] = await Promise.all([this.ctx.choices.choose(logits, V, rows), this.ctx.logSumExp.rows(logits, V)]);
    const out = tokens.map((token, j) => {
      const k = records[j];
      const choice: TokenChoice & { step?: TokenStep } = { token, logprob: logits[j * V + token] - lse[j] };
      if (k !== undefined) choice.step = tokenStep(logits.subarray(j * V, (j + 1) * V), k);
      return choice;
    });
    this.profile.chooseMs += performance.now() - started;
    return out;
  }

  /** A sequence whose call was cancelled while it fed a continuation's tokens: it leaves without a result. */
  private drop(r: Running): void {
    r.finish = 'length';
    r.slot?.release();
    r.slot = null;
  }

  /** Appends the chosen token to `r` and finishes it when it is done. */
  private accept(r: Running, { token, logprob, step }: TokenChoice & { step?: TokenStep }): void {
    this.chosen++;
    if (r.call.settled) {
      r.finish = 'length'; // cancelled: leaves without a result
      r.slot?.release();
      r.slot = null;
      return;
    }
    r.tokens.push(token);
    r.logprobs.push(logprob);
    if (r.steps && step) r.steps.push(step);
    if (r.stop) {
      const cut = r.stop.push(r.tokens);
      if (cut !== null) {
        r.text = cut;
        r.finish = 'stop';
      }
    }
    if (r.finish === null) {
      if (this.ctx.eosIds.has(token)) r.finish = 'stop';
      else if (r.tokens.length >= r.c.request.maxNewTokens) r.finish = 'length';
    }
    if (r.finish !== null) this.finish(r);
  }

  private finish(r: Running): void {
    const pooled = r.c.request.pooledAfterBlock !== undefined ? r.slot?.pooled : undefined;
    if (r.c.request.keepState && r.slot && !r.call.settled) {
      const slot = r.slot;
      this.kept.keep(this.stateKey(r.c), slot, [...r.c.forced, ...r.tokens].slice(0, slot.length - slot.promptLength));
    }
    r.slot?.release(); // its cache rows can take joining sequences
    r.slot = null;
    const call = r.call;
    if (call.settled) return;
    call.results[r.c.index] = {
      tokens: r.tokens,
      text: r.text ?? this.ctx.decode(r.tokens),
      logprobs: r.logprobs,
      finishReason: r.finish ?? 'length',
      cost: {
        generatedTokens: r.tokens.length,
        blockApplications: r.c.route.length * (chargedPromptTokens(r.c.request) + r.tokens.length),
      },
      ...(r.steps ? { tokenRecord: r.steps } : {}),
      ...(pooled ? { pooledState: Array.from(pooled) } : {}),
    };
    if (--call.remaining === 0) this.settle(call);
  }

  private settle(call: Call): void {
    if (call.settled) return;
    call.settled = true;
    call.release();
    call.resolve(call.results);
  }
}

