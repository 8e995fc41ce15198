/**
 * Batched generation: many requests at once, each with its own route, silenced MLPs, decoding
 * rule and PRNG. Requests are checked up front (a bad one fails the call before any work), sorted
 * by prompt length into batches of at most `maxBatch` to keep left padding small, and decoded in
 * lockstep until every sequence of the batch has stopped. Results come back in request order.
 */
import { InputError } from './errors';
import { checkRoute, checkSilenced, checkTokenIds } from './routeValidation';
import { RouteExecutor, SequenceSlot } from './routeExecutor';
import { Xoshiro128, chooseToken, logProbOf } from './sampling';
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
  /** Sequences in the step. */
  batch: number;
  /** Tokens fed per sequence (prompt length at step 0, then 1). */
  tokens: number;
  ms: number;
}

interface Checked {
  index: number;
  request: GenerationRequest;
  route: number[];
  silenced: Set<number>;
}

function checkRequest(r: GenerationRequest, index: number, numBlocks: number, vocabSize: number): Checked {
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

/** Cuts `text` at the earliest stop string; null when none occurs. */
function cutAtStop(text: string, stops: readonly string[]): string | null {
  let cut = -1;
  for (const s of stops) {
    if (!s) continue;
    const at = text.indexOf(s);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  return cut < 0 ? null : text.slice(0, cut);
}

function abortError(): Error {
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
  const results: Generation[] = new Array(requests.length);
  const order = [...checked].sort((a, b) => a.request.promptIds.length - b.request.promptIds.length || a.index - b.index);
  for (let at = 0; at < order.length; at += ctx.maxBatch) {
    if (signal?.aborted) throw abortError();
    const batch = order.slice(at, at + ctx.maxBatch);
    const generations = await generateOneBatch(ctx, batch, signal);
    batch.forEach((c, j) => { results[c.index] = generations[j]; });
  }
  return results;
}

interface Running {
  c: Checked;
  slot: SequenceSlot;
  rng: Xoshiro128 | null;
  tokens: number[];
  logprobs: number[];
  text: string | null;
  finish: FinishReason | null;
}

async function generateOneBatch(ctx: GenerationContext, batch: readonly Checked[], signal?: AbortSignal): Promise<Generation[]> {
  const maxLen = Math.max(...batch.map((c) => c.request.promptIds.length));
  const runs: Running[] = batch.map((c) => ({
    c,
    slot: new SequenceSlot(c.route, c.silenced, maxLen - c.request.promptIds.length),
    rng: c.request.decoding.temperature > 0 ? new Xoshiro128(c.request.decoding.seed) : null,
    tokens: [],
    logprobs: [],
    text: null,
    finish: c.request.maxNewTokens === 0 ? 'length' : null,
  }));

  let active = runs.filter((r) => r.finish === null);
  let feed = active.map((r) => [...new Array<number>(r.slot.padding).fill(0), ...r.c.request.promptIds]);
  let past = 0;
  let step = 0;
  while (active.length > 0) {
    if (signal?.aborted) throw abortError();
    const started = performance.now();
    const logits = await ctx.executor.step(active.map((r) => r.slot), feed, past);
    ctx.onStep?.({ step: step++, batch: active.length, tokens: feed[0].length, ms: performance.now() - started });
    past += feed[0].length;
    const V = ctx.vocabSize;
    active.forEach((r, j) => {
      const row = logits.subarray(j * V, (j + 1) * V);
      const token = chooseToken(row, r.c.request.decoding, r.rng);
      r.tokens.push(token);
      r.logprobs.push(logProbOf(row, token));
      const stops = r.c.request.stop ?? [];
      if (stops.length > 0) {
        const cut = cutAtStop(ctx.decode(r.tokens), stops);
        if (cut !== null) {
          r.text = cut;
          r.finish = 'stop';
          return;
        }
      }
      if (ctx.eosIds.has(token)) r.finish = 'stop';
      else if (r.tokens.length >= r.c.request.maxNewTokens) r.finish = 'length';
    });
    active = active.filter((r) => r.finish === null);
    feed = active.map((r) => [r.tokens[r.tokens.length - 1]]);
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
