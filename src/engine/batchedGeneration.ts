/**
 * Batched generation: many requests at once, each with its own route, silenced MLPs, decoding
 * rule and PRNG. Requests are checked up front (a bad one fails the call before any work).
 *
 * Continuous batching: up to `maxBatch` sequences decode together; when one finishes, the next
 * waiting request takes its place at the next step. Sequences need not be aligned (each has its
 * own position and caches), and a sequence's numbers never depend on its batch-mates, so the
 * order and grouping change speed only, never results.
 *
 * Shared prompts: requests with the same prompt, route and silenced MLPs (e.g. the B samples of
 * one question) are prefilled once; each request forks that prefill's caches (copy on write) and
 * draws its first token from the shared last-position logits with its own PRNG.
 *
 * Results come back in request order.
 */
import { InputError } from './errors';
import { checkRoute, checkSilenced, checkTokenIds } from './routeValidation';
import { type RouteExecutor, SequenceSlot } from './routeExecutor';
import { Xoshiro128, chooseToken, logProbOf } from './sampling';
import { StopDetector } from './stopDetector';
import type { FinishReason, Generation, GenerationRequest } from './types';

export interface GenerationContext {
  executor: RouteExecutor;
  numBlocks: number;
  vocabSize: number;
  eosIds: ReadonlySet<number>;
  decode(ids: readonly number[]): string;
  maxBatch: number;
  /** Called after every step (step 0 = prefill) with its wall time; used by the bench. */
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

export interface Checked {
  index: number;
  request: GenerationRequest;
  route: number[];
  silenced: Set<number>;
}

export function checkRequest(r: GenerationRequest, index: number, numBlocks: number, vocabSize: number): Checked {
  const what = `request ${index}`;
  checkTokenIds(r.promptIds, vocabSize, `${what} promptIds`);
  const route = checkRoute(r.route, numBlocks, `${what} route`);
  const silenced = checkSilenced(r.silencedMlp, numBlocks, `${what} silencedMlp`);
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
  return { index, request: r, route, silenced };
}

export function abortError(): Error {
  const err = new Error('generation cancelled');
  err.name = 'AbortError';
  return err;
}

export async function generateBatched(
  ctx: GenerationContext,
  requests: readonly GenerationRequest[],
  signal?: AbortSignal,
): Promise<Generation[]> {
  const checked = requests.map((r, i) => checkRequest(r, i, ctx.numBlocks, ctx.vocabSize));
  const runs: Running[] = checked.map((c) => ({
    c,
    slot: null,
    rng: c.request.decoding.temperature > 0 ? new Xoshiro128(c.request.decoding.seed) : null,
    stop: c.request.stop && c.request.stop.length > 0 ? new StopDetector(c.request.stop, ctx.decode) : null,
    tokens: [],
    logprobs: [],
    text: null,
    finish: c.request.maxNewTokens === 0 ? 'length' : null,
  }));

  // Requests that share a prompt, route and silenced MLPs, in order of first appearance.
  const byPrompt = new Map<string, PromptGroup>();
  const queue: PromptGroup[] = [];
  for (const r of runs) {
    if (r.finish !== null) continue;
    const key = JSON.stringify([r.c.request.promptIds, r.c.route, [...r.c.silenced].sort((x, y) => x - y)]);
    let g = byPrompt.get(key);
    if (!g) {
      g = { members: [], next: 0, prefix: null, logits: null };
      byPrompt.set(key, g);
      queue.push(g);
    }
    g.members.push(r);
  }

  const V = ctx.vocabSize;
  let active: Running[] = [];
  let step = 0;
  while (active.length > 0 || queue.length > 0) {
    if (signal?.aborted) throw abortError();
    // Admit waiting requests into free places; prefill the prompts not yet prefilled, together.
    const admitted: { r: Running; g: PromptGroup; last: boolean }[] = [];
    const toPrefill: PromptGroup[] = [];
    while (active.length + admitted.length < ctx.maxBatch && queue.length > 0) {
      const g = queue[0];
      if (!g.prefix && !toPrefill.includes(g)) toPrefill.push(g);
      admitted.push({ r: g.members[g.next++], g, last: g.next === g.members.length });
      if (g.next === g.members.length) queue.shift();
    }
    if (toPrefill.length > 0) {
      const started = performance.now();
      const slots = toPrefill.map((g) => new SequenceSlot(g.members[0].c.route, g.members[0].c.silenced));
      const logits = await ctx.executor.step(slots, toPrefill.map((g) => g.members[0].c.request.promptIds));
      ctx.onStep?.({ step: step++, prefill: true, batch: slots.length, tokens: Math.max(...toPrefill.map((g) => g.members[0].c.request.promptIds.length)), ms: performance.now() - started });
      toPrefill.forEach((g, j) => {
        g.prefix = slots[j];
        g.logits = logits.slice(j * V, (j + 1) * V);
      });
    }
    for (const { r, g, last } of admitted) {
      const prefix = g.prefix as SequenceSlot;
      // The last member takes the prefill itself; the others fork it.
      r.slot = last ? prefix : prefix.fork();
      take(ctx, r, g.logits as Float32Array);
      if (r.finish !== null) r.slot = null;
      if (last) {
        g.prefix = null;
        g.logits = null;
      }
    }
    active = [...active, ...admitted.map((a) => a.r)].filter((r) => r.finish === null);
    if (active.length === 0) continue;

    const started = performance.now();
    const logits = await ctx.executor.step(active.map((r) => r.slot as SequenceSlot), active.map((r) => [r.tokens[r.tokens.length - 1]]));
    ctx.onStep?.({ step: step++, prefill: false, batch: active.length, tokens: 1, ms: performance.now() - started });
    active.forEach((r, j) => take(ctx, r, logits.subarray(j * V, (j + 1) * V)));
    for (const r of active) if (r.finish !== null) r.slot = null; // frees its caches
    active = active.filter((r) => r.finish === null);
  }

  return runs.map((r) => ({
    tokens: r.tokens,
    text: r.text ?? ctx.decode(r.tokens),
    logprobs: r.logprobs,
    finishReason: r.finish ?? 'length',
    cost: {
      generatedTokens: r.tokens.length,
      blockApplications: r.c.route.length * (r.c.request.promptIds.length + r.tokens.length),
    },
  }));
}

interface PromptGroup {
  members: Running[];
  /** Members admitted so far. */
  next: number;
  /** The prefilled prompt, kept until the last member has forked it. */
  prefix: SequenceSlot | null;
  logits: Float32Array | null;
}

interface Running {
  c: Checked;
  slot: SequenceSlot | null;
  rng: Xoshiro128 | null;
  stop: StopDetector | null;
  tokens: number[];
  logprobs: number[];
  text: string | null;
  finish: FinishReason | null;
}

/** Chooses the next token of `r` from its logits and decides whether it is finished. */
function take(ctx: GenerationContext, r: Running, row: Float32Array): void {
  const token = chooseToken(row, r.c.request.decoding, r.rng);
  r.tokens.push(token);
  r.logprobs.push(logProbOf(row, token));
  if (r.stop) {
    const cut = r.stop.push(r.tokens);
    if (cut !== null) {
      r.text = cut;
      r.finish = 'stop';
      return;
    }
  }
  if (ctx.eosIds.has(token)) r.finish = 'stop';
  else if (r.tokens.length >= r.c.request.maxNewTokens) r.finish = 'length';
}
