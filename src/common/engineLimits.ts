/**
 * The numbers that bound the engine's work (the default batch, a remote backend's retries, timeouts
 * and response size), in a module of their own (no imports) below the engine, so that the option
 * table the extension reads can name them without loading the model runtime or the OpenAI client.
 */

/**
 * Sequences decoded together by default. Measured once with `reach-audit bench --batches
 * 1,8,16,32,64` on the Qwen2.5-0.5B shape, on a 2-core machine so loaded that the bench got 0.14
 * cores: decode 0.6, 4.0, 3.6, 9.1 and 13.1 tokens/s. 32 doubles the former 16; 64 looked faster
 * still but doubles a full batch's KV memory and wants a measurement on a quiet machine first.
 */
export const DEFAULT_MAX_BATCH = 32;

/** Tries after the first for a request that failed in a way worth trying again. */
export const DEFAULT_MAX_RETRIES = 4;
/** One attempt's limit, headers and body together (generations of thousands of tokens on a busy server). */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** The longest Retry-After honoured; a server asking for more is given up on at once. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** The largest response body read from a server: 8,192 tokens with log-probs take about 1.5 MB. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
