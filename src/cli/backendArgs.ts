/**
 * --backend: the in-process engine (default) or OpenAI-compatible servers. A remote backend is
 * checked before any question runs: probes that need layer access (routes, search, the repair
 * scan, the global-route selector) are refused unless every server announces the layer extensions.
 */
import { loadModel, RemoteGenerator, type LoadOptions, type RemoteBackendInfo, type TextGenerator } from '../engine/index';
import type { RunSettings } from '../audit/run/manifest';
import { UsageError, warn } from './command';
import { parseWholeNumber } from './engineArgs';

export interface BackendFlagValues {
  backend?: string;
  'base-url'?: string[];
  'api-model'?: string;
  'api-key-env'?: string;
  concurrency?: string;
}

export interface OpenedBackend {
  generator: TextGenerator;
  /** Recorded in the manifest; undefined for the local engine. */
  remote?: RemoteBackendInfo;
  dispose(): Promise<void>;
}

/** Flag checks that need no network or model (run before anything starts). */
export function checkBackendFlags(values: BackendFlagValues): void {
  const backend = values.backend ?? 'local';
  if (backend !== 'local' && backend !== 'openai') throw new UsageError(`--backend ${backend}: expected local or openai`);
  const remoteOnly = (['base-url', 'api-model', 'api-key-env', 'concurrency'] as const).filter((f) => values[f] !== undefined);
  if (backend === 'local' && remoteOnly.length > 0) throw new UsageError(`--${remoteOnly[0]} is for --backend openai`);
  if (backend === 'openai' && (values['base-url'] ?? []).length === 0) throw new UsageError('--backend openai needs --base-url URL (e.g. http://127.0.0.1:8000/v1)');
  if (values['api-key-env'] !== undefined && !process.env[values['api-key-env']]) {
    throw new UsageError(`--api-key-env: the environment variable ${values['api-key-env']} is empty or not set`);
  }
  parseWholeNumber(values.concurrency, '--concurrency', 1);
}

export async function openBackend(values: BackendFlagValues, modelDir: string, load: LoadOptions): Promise<OpenedBackend> {
  if ((values.backend ?? 'local') === 'local') {
    const model = await loadModel(modelDir, load);
    return { generator: model, dispose: () => model.dispose() };
  }
  const remote = await RemoteGenerator.open({
    modelDir,
    baseUrls: values['base-url'] ?? [],
    apiModel: values['api-model'],
    apiKey: values['api-key-env'] !== undefined ? process.env[values['api-key-env']] : undefined,
    concurrency: parseWholeNumber(values.concurrency, '--concurrency', 1),
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
