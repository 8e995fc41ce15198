/**
 * Where an audit's generations run: the in-process engine (default) or OpenAI-compatible servers
 * (--backend openai). A remote backend is checked before any question runs: probes that need layer
 * access (routes, search, the repair scan, the global-route selector) are refused unless every
 * server announces the layer extensions.
 */
import { checkBaseUrl, InputError, loadModel, RemoteGenerator, type LoadOptions, type TextGenerator } from '../engine/index';
import type { RemoteBackendInfo, RunSettings } from '../contract';
import { AUDIT_OPTIONS, type AuditOptions } from './auditOptions';

/** The options that mean something only with a remote backend. */
export const REMOTE_ONLY_OPTIONS = ['baseUrl', 'apiModel', 'apiKeyEnv', 'concurrency', 'timeout', 'maxRetries'] as const;

export type BackendOptions = Pick<AuditOptions, 'backend' | (typeof REMOTE_ONLY_OPTIONS)[number]>;

export interface OpenedBackend {
  generator: TextGenerator;
  /** Recorded in the manifest; undefined for the local engine. */
  remote?: RemoteBackendInfo;
  dispose(): Promise<void>;
}

/** Generations run on servers (`--backend openai`), not in this process's engine. */
export function isRemoteBackend(options: Pick<BackendOptions, 'backend'>): boolean {
  return (options.backend ?? 'local') !== 'local';
}

/** Checks that need no network or model (run before anything starts). */
export function checkBackendOptions(options: BackendOptions): void {
  const backend = options.backend ?? 'local';
  if (backend !== 'local' && backend !== 'openai') throw new InputError(`--backend ${backend}: expected local or openai`);
  const remoteOnly = REMOTE_ONLY_OPTIONS.filter((k) => options[k] !== undefined);
  if (backend === 'local' && remoteOnly.length > 0) throw new InputError(`--${AUDIT_OPTIONS[remoteOnly[0]].flag} is for --backend openai`);
  if (backend === 'openai' && (options.baseUrl ?? []).length === 0) throw new InputError('--backend openai needs --base-url URL (e.g. http://127.0.0.1:8000/v1)');
  if (options.apiKeyEnv !== undefined && !process.env[options.apiKeyEnv]) {
    throw new InputError(`--api-key-env: the environment variable ${options.apiKeyEnv} is empty or not set`);
  }
  // A file:// or credential-bearing URL is refused now, not retried for seconds at the first request.
  for (const url of options.baseUrl ?? []) checkBaseUrl(url);
}

export async function openBackend(options: BackendOptions, modelDir: string, load: LoadOptions, warn: (message: string) => void): Promise<OpenedBackend> {
  if (!isRemoteBackend(options)) {
    const model = await loadModel(modelDir, load);
    return { generator: model, dispose: () => model.dispose() };
  }
  const remote = await RemoteGenerator.open({
    modelDir,
    baseUrls: options.baseUrl ?? [],
    apiModel: options.apiModel,
    apiKey: options.apiKeyEnv !== undefined ? process.env[options.apiKeyEnv] : undefined,
    concurrency: options.concurrency,
    ...(options.timeout !== undefined ? { timeoutMs: Math.ceil(options.timeout * 1000) } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    onNotice: warn,
  });
  if (remote.info.seedHonoured === false) {
    warn(`${remote.info.baseUrls.join(', ')}: two identical seeded samples differed, so the server does not honour seed; sampled outputs are not reproducible (recorded in manifest.json)`);
  }
  return { generator: remote, remote: remote.info, dispose: async () => {} };
}

/** Probes of these settings that need layer access the backend does not give; empty when all can run. */
export function layerProbesRefused(settings: RunSettings, remote: RemoteBackendInfo | undefined): string[] {
  if (!remote || remote.layerAccess) return [];
  const refused = settings.probes.filter((p) => p.name === 'routes' || p.name === 'search').map((p) => `--probe ${p.name}:${p.budget}`);
  if (settings.repair.enabled) refused.push('--repair');
  if (settings.globalRoutes.routes.length > 0) refused.push('the global-route selector');
  return refused;
}
