/**
 * Which probes a remote backend refuses: route probes, repair and the route pool without layer
 * access; the perturbation probe without its own announced extension, also where routes run.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { layerProbesRefused } from '../../../src/service/backend';
import type { RemoteBackendInfo, RunSettings } from '../../../src/contract';

function settings(probes: RunSettings['probes']): RunSettings {
  // Only the fields layerProbesRefused reads; the rest of a run's settings do not matter here.
  return { probes, repair: { enabled: false, referenceProbes: [] }, globalRoutes: { count: 0, routes: [] } } as unknown as RunSettings;
}

const remote = (over: Partial<RemoteBackendInfo>): RemoteBackendInfo => ({ backend: 'openai', baseUrls: ['http://h'], apiModel: 'm', layerAccess: true, seedHonoured: true, concurrency: 1, ...over });

describe('layer probes a remote backend refuses', () => {
  const probes = [{ name: 'sample' as const, budget: 4 }, { name: 'routes' as const, budget: 4 }, { name: 'perturb' as const, budget: 5 }];
  it('refuses the perturbation probe on a server that offers routes but not the perturbation', () => {
    assert.deepEqual(layerProbesRefused(settings(probes), remote({ layerAccess: true })), ['--probe perturb:5']);
  });
  it('runs it where the server announces the extension', () => {
    assert.deepEqual(layerProbesRefused(settings(probes), remote({ layerAccess: true, perturbation: true })), []);
  });
  it('refuses it with the route probes on a plain server, and nothing on the local engine', () => {
    assert.deepEqual(layerProbesRefused(settings(probes), remote({ layerAccess: false })), ['--probe routes:4', '--probe perturb:5']);
    assert.deepEqual(layerProbesRefused(settings(probes), undefined), []);
  });
});
