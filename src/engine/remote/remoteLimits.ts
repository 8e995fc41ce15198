/**
 * The numbers that bound a remote backend, in a module of their own (no imports) so that the
 * option table the extension reads can name them without loading the OpenAI client.
 */

/** Tries after the first for a request that failed in a way worth trying again. */
export const DEFAULT_MAX_RETRIES = 4;
/** One attempt's limit, headers and body together (generations of thousands of tokens on a busy server). */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** The longest Retry-After honoured; a server asking for more is given up on at once. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** The largest response body read from a server: 8,192 tokens with log-probs take about 1.5 MB. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
