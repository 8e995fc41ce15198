/**
 * A server's completion response read as a Generation, within what the request allowed: no more
 * tokens than `max_tokens`, token ids inside the local vocabulary, log-probs that are log
 * probabilities (finite, at most 0) one per generated token, and a text no longer than that many
 * tokens can spell. What falls outside is refused with a message naming the server and the field,
 * never stored: records feed the confidence selector and every later reader.
 */
import { RemoteServerError } from '../../common';
import type { ModelTokenizer } from '../text/tokenizer';
import type { Generation, GenerationRequest, TokenStep } from '../types';
import type { CompletionResponseBody } from './completionApi';
import { chargedPromptTokens } from '../decode/chargedPromptTokens';
import { quoteValue } from './quoteValue';
import { redactSecret } from './remoteErrors';

/**
 * Bytes one token may spell when the tokenizer gives no bound of its own (non-BPE vocabularies):
 * far above any real vocabulary's longest token (Qwen2.5's, Llama 3's: under 260 bytes).
 */
const FALLBACK_BYTES_PER_TOKEN = 1024;
/** A log-prob a hair above 0 is float rounding of log 1, not a claim of probability above 1. */
const LOGPROB_ROUNDING = 1e-6;

export function toGeneration(
  response: CompletionResponseBody,
  request: GenerationRequest,
  tokenizer: Pick<ModelTokenizer, 'encodeText' | 'tokensAtLeast' | 'vocabSize'>,
  numBlocks: number,
  url: string,
  secret?: string,
): Generation {
  const bad = (field: string, what: string) => new RemoteServerError(`${url}: the completion response's ${field} ${what}`);
  const body: unknown = response;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RemoteServerError(`${url}: the completion response is not a JSON object (got ${quoteValue(body)})`);
  }
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  if (typeof choice !== 'object' || choice === null || typeof choice.text !== 'string') {
    throw bad('choices[0].text', `is missing or not a string (got ${quoteValue(choice?.text)})`);
  }
  const budget = request.maxNewTokens;
  // A server that echoes the key into its completions does not get it stored in records.jsonl.
  const text = redactSecret(choice.text, secret);
  // The text is bounded whether or not the server sends token ids: three ids beside 15 MB of text
  // would otherwise be stored whole, question after question, until records.jsonl cannot be read.
  const least = tokenizer.tokensAtLeast({ raw: text });
  const bytes = Buffer.byteLength(text, 'utf8');
  if (least > budget || (least === 0 && bytes > budget * FALLBACK_BYTES_PER_TOKEN)) {
    throw bad('choices[0].text', `is ${bytes} bytes, more than ${budget} tokens (max_tokens) can spell`);
  }

  let tokens: number[];
  let generated: number;
  if (choice.token_ids !== undefined && choice.token_ids !== null) {
    const ids: unknown = choice.token_ids;
    if (!Array.isArray(ids)) throw bad('choices[0].token_ids', `is not an array (got ${quoteValue(ids)})`);
    if (ids.length > budget) throw bad('choices[0].token_ids', `holds ${ids.length} tokens; max_tokens was ${budget}`);
    for (const [i, id] of ids.entries()) {
      if (!Number.isInteger(id) || (id as number) < 0 || (id as number) >= tokenizer.vocabSize) {
        throw bad(`choices[0].token_ids[${i}]`, `is ${quoteValue(id)}; expected a token id in 0..${tokenizer.vocabSize - 1}`);
      }
    }
    tokens = ids as number[];
    generated = tokens.length;
  } else {
    // No ids (llama.cpp, Ollama): the text is tokenized locally (it is known to be short enough).
    tokens = tokenizer.encodeText(text);
    generated = tokens.length;
    const usage: unknown = response.usage?.completion_tokens;
    if (usage !== undefined && usage !== null) {
      if (!Number.isInteger(usage) || (usage as number) < 0 || (usage as number) > budget) {
        throw bad('usage.completion_tokens', `is ${quoteValue(usage)}; expected a whole number from 0 to max_tokens (${budget})`);
      }
      // The server's count is what it generated; a local re-tokenization may split text differently.
      generated = usage as number;
    }
  }

  const logprobs: number[] = [];
  const given: unknown = choice.logprobs?.token_logprobs;
  if (given !== undefined && given !== null) {
    if (!Array.isArray(given)) throw bad('choices[0].logprobs.token_logprobs', `is not an array (got ${quoteValue(given)})`);
    if (given.length > budget || (Array.isArray(choice.token_ids) && given.length !== tokens.length)) {
      throw bad('choices[0].logprobs.token_logprobs', `holds ${given.length} values for ${Array.isArray(choice.token_ids) ? tokens.length : `at most ${budget}`} generated tokens`);
    }
    for (const [i, x] of given.entries()) {
      // Some servers send null for a position they have no log-prob for; it is left out, as before.
      if (x === null) continue;
      if (typeof x !== 'number' || !Number.isFinite(x) || x > LOGPROB_ROUNDING) {
        throw bad(`choices[0].logprobs.token_logprobs[${i}]`, `is ${quoteValue(x)}; expected a log-probability (a finite number at most 0)`);
      }
      logprobs.push(Math.min(0, x));
    }
  }

  const routeLength = request.route?.length ?? numBlocks;
  const tokenRecord = request.tokenRecord === undefined ? undefined : readTokenRecord(choice.token_record, request.tokenRecord, tokens.length, tokenizer.vocabSize, bad);
  return {
    tokens,
    text,
    logprobs,
    finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
    cost: { generatedTokens: generated, blockApplications: routeLength * (chargedPromptTokens(request) + generated) },
    ...(tokenRecord ? { tokenRecord } : {}),
    ...(request.pooledAfterBlock !== undefined ? { pooledState: pooledStateOf(choice.pooled_state, bad) } : {}),
  };
}

/**
 * The token record the request asked for: one entry per generated token, each an entropy (finite,
 * at least 0) and at most k [token id in the vocabulary, log-probability] pairs. Anything else is
 * refused, never stored.
 */
function readTokenRecord(given: unknown, k: number, tokens: number, vocabSize: number, bad: (field: string, what: string) => RemoteServerError): TokenStep[] {
  const field = 'choices[0].token_record';
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw bad(field, `is missing or not an object (got ${quoteValue(given)}); the request asked for it`);
  const { entropy, top } = given as { entropy?: unknown; top?: unknown };
  if (!Array.isArray(entropy) || entropy.length !== tokens) throw bad(`${field}.entropy`, `is not an array of ${tokens} entropies, one per generated token`);
  if (!Array.isArray(top) || top.length !== tokens) throw bad(`${field}.top`, `is not an array of ${tokens} lists, one per generated token`);
  return entropy.map((h: unknown, i): TokenStep => {
    if (typeof h !== 'number' || !Number.isFinite(h) || h < 0) throw bad(`${field}.entropy[${i}]`, `is ${quoteValue(h)}; expected an entropy (a finite number at least 0)`);
    const row: unknown = top[i];
    if (!Array.isArray(row) || row.length === 0 || row.length > k) throw bad(`${field}.top[${i}]`, `is not a list of 1 to ${k} [token id, log-probability] pairs`);
    return {
      entropy: h,
      top: row.map((pair: unknown, j): [number, number] => {
        const ok = Array.isArray(pair) && pair.length === 2 && Number.isInteger(pair[0]) && pair[0] >= 0 && pair[0] < vocabSize && typeof pair[1] === 'number' && Number.isFinite(pair[1]) && pair[1] <= LOGPROB_ROUNDING;
        if (!ok) throw bad(`${field}.top[${i}][${j}]`, `is ${quoteValue(pair)}; expected [a token id in 0..${vocabSize - 1}, a log-probability]`);
        return [pair[0] as number, Math.min(0, pair[1] as number)];
      }),
    };
  });
}

/** The pooled state a request asked for: an array of finite numbers, at most 65,536 of them (a model's width). */
function pooledStateOf(given: unknown, bad: (field: string, what: string) => Error): number[] {
  if (!Array.isArray(given)) throw bad('choices[0].pooled_state', `is ${quoteValue(given)}; the request asked for the prompt's pooled state (a server other than reach-audit serve --http does not send it)`);
  if (given.length === 0 || given.length > 65536) throw bad('choices[0].pooled_state', `holds ${given.length} values; expected 1 to 65536 (the model's hidden size)`);
  for (const [i, x] of given.entries()) if (typeof x !== 'number' || !Number.isFinite(x)) throw bad(`choices[0].pooled_state[${i}]`, `is ${quoteValue(x)}; expected a finite number`);
  return given as number[];
}
