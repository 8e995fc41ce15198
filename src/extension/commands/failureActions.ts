/**
 * The buttons of the notification of a failed request: Show Log always; where a server refused the
 * request for its key (401 missing or wrong, 403 not allowed), Set Server API Key… first, the way
 * forward; where it names a setting to change, Open Settings on it. Pure: the session shows them, tests read them.
 */
export const SHOW_LOG = 'Show Log';
export const SET_SERVER_KEY = 'Set Server API Key…';
export const OPEN_SETTINGS = 'Open Settings';

/** "…: the server answered 401: …" (remoteErrors.ts in the engine). */
const KEY_REFUSED = /\bthe server answered 40[13]\b/;

/** `namesSettings`: the message names a setting to change (settingNames.ts), so Open Settings comes first. */
export function failureActions(message: string, namesSettings = false): string[] {
  if (KEY_REFUSED.test(message)) return [SET_SERVER_KEY, SHOW_LOG];
  return namesSettings ? [OPEN_SETTINGS, SHOW_LOG] : [SHOW_LOG];
}
