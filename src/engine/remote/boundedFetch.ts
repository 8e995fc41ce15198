/**
 * The fetch the OpenAI client is given for a remote server. A server's response is not trusted
 * whole: its body is read here, up to a byte limit, before the client parses it, so an endless or
 * huge body fails with a message instead of filling the heap, and the client's timeout covers the
 * whole body rather than the headers alone (the client clears its timer when fetch returns).
 * Redirects are not followed: the manifest names the server the user gave, so a redirect to another
 * one is an error naming where it pointed. Error bodies of the form {"object":"error","message":…}
 * (vLLM's, among others) are rewrapped into the OpenAI envelope {"error":{…}}, the only one the
 * client reads a message from.
 */

import { MAX_RESPONSE_BYTES } from '../../common';
import { isObject } from '../../contract';

/** A body over the limit; not retried (the server would send it again). */
export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the response body is over ${limit} bytes; stopped reading`);
    this.name = 'ResponseTooLargeError';
  }
}

/** A redirect, refused rather than followed; not retried. */
export class RedirectRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly location: string,
  ) {
    super(`the server answered ${status}, a redirect to ${location || '(no location)'}; redirects are not followed: give that URL as --base-url if it is the server you mean`);
    this.name = 'RedirectRefusedError';
  }
}

export function boundedFetch(limit = MAX_RESPONSE_BYTES): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, { ...init, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new RedirectRefusedError(response.status, response.headers.get('location') ?? '');
    }
    const text = await readBounded(response, limit);
    let body = text;
    if (!response.ok) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (isObject(parsed) && !('error' in parsed) && typeof parsed.message === 'string') body = JSON.stringify({ error: parsed });
    }
    // The body is now decoded text of another length: its length and encoding headers no longer apply.
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The body as text, refusing it once it passes `limit` bytes (a declared length over it is refused unread). */
export async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new ResponseTooLargeError(limit);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new ResponseTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
