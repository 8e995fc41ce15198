/**
 * A remote failure as one readable line naming the server. What a server says is quoted, never
 * trusted: the known API key is blanked out of it (a server or proxy that echoes the request
 * would otherwise print it to the terminal and into logs), and it is cut to a few hundred
 * characters (a 100 KB error page is not a message).
 */
import OpenAI from 'openai';
import { InputError, RemoteServerError } from '../../common';
import { RedirectRefusedError, ResponseTooLargeError } from './boundedFetch';

/** The most characters of a server's own text quoted in a message. */
export const MAX_QUOTED_CHARS = 500;

/** Server text with the secret replaced: what a server reflects of the key is never stored or shown. */
export function redactSecret(text: string, secret?: string): string {
  return secret && secret.length >= 4 && text.includes(secret) ? text.split(secret).join('[redacted]') : text;
}

/**
 * Refuses a key that cannot be one header value (a line break, a control character, a character
 * outside Latin-1: a two-line key file), before anything is sent. The message never shows the key:
 * the header error fetch would give quotes it whole.
 */
export function checkApiKey(key: string, where: string): void {
  if (/[^\u0020-\u007e\u0080-\u00ff]/.test(key)) {
    throw new InputError(`${where}: the API key holds a line break or control character; a key is one line (check the file or variable it came from)`);
  }
}

/** Server text as it may be shown: the secret replaced, control characters dropped, long text cut. */
export function quoteServerText(text: string, secret?: string): string {
  let out = redactSecret(text, secret);
  // Terminal control characters from a server are dropped (they could rewrite the terminal).
  out = out.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ');
  if (out.length > MAX_QUOTED_CHARS) out = `${out.slice(0, MAX_QUOTED_CHARS)}… (${out.length - MAX_QUOTED_CHARS} more characters)`;
  return out;
}

/** One readable line naming the server and what it said; an abort stays an abort. */
export function remoteError(url: string, err: unknown, secret?: string): Error {
  if (err instanceof OpenAI.APIUserAbortError) return err;
  const say = (s: string) => new RemoteServerError(`${url}: ${quoteServerText(s, secret)}`);
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new RemoteServerError(`${url}: the server did not answer in time`);
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof ResponseTooLargeError || cause instanceof RedirectRefusedError) return say(cause.message);
    return say(`cannot reach the server (${err.message})`);
  }
  if (err instanceof OpenAI.APIError) return say(`the server answered ${err.status ?? '?'}: ${err.message}`);
  if (err instanceof SyntaxError) return say(`the response body is not valid JSON (${err.message})`);
  return err instanceof Error ? err : new Error(String(err));
}
