/**
 * A server's completion response read as a Generation, within what the request allowed: no more
 * tokens than `max_tokens`, token ids inside the local vocabulary, log-probs that are log
 * probabilities (finite, at most 0) one per generated token, and a text no longer than that many
 * tokens can spell. What falls outside is refused with a message naming the server and the field,
 * never stored: records feed the confidence selector and every later reader.
 */
import { RemoteServerError } from '../../common';
import type { ModelTokenizer } from '../text/tokenizer';
import type { Generation, GenerationRequest } from '../types';
import type { CompletionResponseBody } from './completionApi';
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
  return {
    tokens,
    text,
    logprobs,
    finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
    cost: { generatedTokens: generated, blockApplications: routeLength * (request.promptIds.length + generated) },
    ...(request.pooledAfterBlock !== undefined ? { pooledState: pooledStateOf(choice.pooled_state, bad) } : {}),
  };
}

/** The pooled state a request asked for: an array of finite numbers, at most 65,536 of them (a model's width). */
function pooledStateOf(given: unknown, bad: (field: string, what: string) => Error): number[] {
  if (!Array.isArray(given)) throw bad('choices[0].pooled_state', `is ${quoteValue(given)}; the request asked for the prompt's pooled state (a server other than reach-audit serve --http does not send it)`);
  if (given.length === 0 || given.length > 65536) throw bad('choices[0].pooled_state', `holds ${given.length} values; expected 1 to 65536 (the model's hidden size)`);
  for (const [i, x] of given.entries()) if (typeof x !== 'number' || !Number.isFinite(x)) throw bad(`choices[0].pooled_state[${i}]`, `is ${quoteValue(x)}; expected a finite number`);
  return given as number[];
}
