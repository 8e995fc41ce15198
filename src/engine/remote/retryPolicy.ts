/**
 * When a failed request to a remote server is tried again, and after how long. The OpenAI client's
 * own retries sleep as long as Retry-After says (3600 s meant hours of silence, absurd values a
 * TimeoutOverflowWarning) and cannot be interrupted, so the backend turns them off and retries here:
 * a bounded number of times, after a wait that honours Retry-After up to MAX_RETRY_AFTER_MS and
 * gives up at once beyond it, each wait announced and cut short by the caller's abort.
 */
import OpenAI from 'openai';
import { RedirectRefusedError, ResponseTooLargeError } from './boundedFetch';
import { MAX_RETRY_AFTER_MS } from '../../common';


export type RetryDecision =
  | { retry: false; reason?: string }
  | { retry: true; waitMs: number; why: string };

/** What went wrong, in words for the progress line. */
function failure(err: unknown): string | undefined {
  if (err instanceof OpenAI.APIUserAbortError) return undefined;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return 'no answer in time';
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof ResponseTooLargeError || cause instanceof RedirectRefusedError) return undefined;
    return 'cannot reach the server';
  }
  if (err instanceof OpenAI.APIError) {
    const s = err.status ?? 0;
    if (s === 408 || s === 409 || s === 429 || s >= 500) return `answered ${s}`;
  }
  return undefined;
}

/** The wait a server asks for (Retry-After-Ms, Retry-After in seconds or as a date); undefined if none or unreadable. */
export function requestedWaitMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  // 1e999 reads as Infinity: a wait past any cap, not an unreadable header.
  if (!Number.isNaN(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** Exponential backoff with jitter: 0.5, 1, 2, 4, 8 s (at most), less up to a quarter. */
function backoffMs(attempt: number, random: () => number): number {
  return Math.min(500 * 2 ** attempt, 8000) * (1 - random() * 0.25);
}

/** Whether attempt `attempt` (0-based) that failed with `err` is tried again, and when. */
export function retryDecision(err: unknown, attempt: number, maxRetries: number, random: () => number = Math.random): RetryDecision {
  const why = failure(err);
  if (why === undefined) return { retry: false };
  // OpenAI's own servers (and proxies copying them) say when a retry would be pointless.
  const headers = err instanceof OpenAI.APIError ? (err.headers as Headers | undefined) : undefined;
  if (headers?.get('x-should-retry')?.trim().toLowerCase() === 'false') return { retry: false, reason: 'the server says not to retry (x-should-retry: false)' };
  if (attempt >= maxRetries) return { retry: false, reason: maxRetries === 0 ? undefined : `gave up after ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'} (--max-retries)` };
  const asked = err instanceof OpenAI.APIError ? requestedWaitMs(err.headers as Headers | undefined) : undefined;
  if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) {
    return { retry: false, reason: `it asks to retry after ${formatSeconds(asked)}, more than the ${MAX_RETRY_AFTER_MS / 1000} s this client waits` };
  }
  return { retry: true, waitMs: asked ?? backoffMs(attempt, random), why };
}

export function formatSeconds(ms: number): string {
  if (!Number.isFinite(ms)) return 'forever';
  const s = ms / 1000;
  return s >= 10 ? `${Math.round(s)} s` : `${s.toFixed(1)} s`;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
