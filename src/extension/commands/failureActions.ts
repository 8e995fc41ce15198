/**
 * The buttons of the notification of a failed request: Show Log always; where a server refused the
 * request for its key (401 missing or wrong, 403 not allowed), Set Server API Key… first, the way
 * forward. Pure: the session shows them, tests read them.
 */
export const SHOW_LOG = 'Show Log';
export const SET_SERVER_KEY = 'Set Server API Key…';

/** "…: the server answered 401: …" (remoteErrors.ts in the engine). */
const KEY_REFUSED = /\bthe server answered 40[13]\b/;

export function failureActions(message: string): string[] {
  return KEY_REFUSED.test(message) ? [SET_SERVER_KEY, SHOW_LOG] : [SHOW_LOG];
}
