/**
 * How each probe decodes (docs/design/probes.md). `sample` draws every attempt at its own temperature
 * and top-p (default 1.0 and 1.0: the model's own distribution), so its reachability and pass@k are
 * those of stated settings. Route probes (`routes`, `search`, the global-route pool) decode exactly
 * as the deployment does — greedy unless the deployment samples — so a route attempt differs from
 * the deployment in the route alone.
 */
import { InputError } from '../../common';
import type { Decoding } from '../../engine';
import type { DecodingRule, ProbeDecoding, Deployment } from '../../contract';

export const DEFAULT_SAMPLE_DECODING: DecodingRule = { temperature: 1, topP: 1 };

export const DEFAULT_PROBE_DECODING: ProbeDecoding = { sample: DEFAULT_SAMPLE_DECODING, routes: 'deployment' };

/** What a run made before probe decoding was recorded did: sample at 1.0 / 1.0, routes greedily. */
export const LEGACY_PROBE_DECODING: ProbeDecoding = { sample: DEFAULT_SAMPLE_DECODING, routes: 'greedy' };

/** Checks the sample probe's settings; the message names the flag and what was expected. */
export function checkSampleDecoding(rule: DecodingRule): void {
  if (!Number.isFinite(rule.temperature) || !(rule.temperature > 0)) {
    throw new InputError(`--sample-temperature must be a number > 0 (at 0 every sample would be the greedy output), got ${rule.temperature}`);
  }
  if (!(rule.topP > 0 && rule.topP <= 1)) throw new InputError(`--sample-top-p must be in (0, 1], got ${rule.topP}`);
}

/**
 * The decoding a route attempt actually gets under these settings; top-p is 1 whenever decoding
 * is greedy (it cannot change a greedy choice), so equal behaviour compares equal.
 */
export function routeDecodingRule(probeDecoding: ProbeDecoding, deployment: Pick<Deployment, 'temperature' | 'topP'>): DecodingRule {
  if (probeDecoding.routes === 'greedy' || deployment.temperature <= 0) return { temperature: 0, topP: 1 };
  return { temperature: deployment.temperature, topP: deployment.topP };
}

/** A request's decoding under a rule and a seed. */
export function decodingOf(rule: DecodingRule, seed: number): Decoding {
  return { temperature: rule.temperature, topP: rule.topP, seed };
}
