/**
 * The extension's server API key on its way to the engine process. VS Code keeps it in its secret
 * storage; the engine child gets it in one environment variable, and a request that runs on servers
 * names that variable (`apiKeyEnv`, as `--api-key-env` does on the command line). So the key itself
 * is never in a request, a log line, a setting, a manifest or the run folder.
 */
import { isRemoteBackend, REMOTE_ONLY_OPTIONS } from './backend';

/** The engine child's environment variable that holds the key (set only while one is stored). */
export const SERVER_KEY_ENV = 'REACH_AUDIT_SERVER_API_KEY';

/** The engine child's environment additions for the stored key (none without one). */
export function serverKeyEnv(key: string | undefined): Record<string, string> {
  return key ? { [SERVER_KEY_ENV]: key } : {};
}

/**
 * A request's options as the extension sends them: on servers, the key's variable named when a key
 * is stored; on the local engine, the server settings left out (they apply only with
 * `backend: openai`, so a base URL kept in the settings does not stop a local audit). A variable
 * named by anyone else is dropped: the engine reads no other secret on the extension's behalf.
 */
export function withServerKey<O extends object>(options: O, hasKey: boolean): O {
  const out = { ...options } as Record<string, unknown>;
  delete out.apiKeyEnv;
  if (!isRemoteBackend(out as { backend?: string })) {
    for (const k of REMOTE_ONLY_OPTIONS) delete out[k];
  } else if (hasKey) {
    out.apiKeyEnv = SERVER_KEY_ENV;
  }
  return out as O;
}
