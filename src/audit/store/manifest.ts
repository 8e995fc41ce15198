/**
 * manifest.json of a run (docs/design/data-in-data-out.md): the model and dataset (paths and content hashes), the
 * deployment, probes, budgets, selectors, repair settings, seeds and engine version — everything a
 * record depends on. `--resume` continues a run only when all of it matches.
 */
import { DEFAULT_SEARCH, lengthBoundsOf, routeLengthBounds, LEGACY_PROBE_DECODING, routeDecodingRule } from '../probes';
import { DEFAULT_THINKING } from '../answers';
import type { Deployment, RouteSpaceSettings, RunManifest, SearchSettings } from '../../contract';

/** The backend as far as it decides the numbers: which kind, and which served model. */
function backendIdentity(m: RunManifest): { kind: string; apiModel?: string } {
  return m.backend ? { kind: m.backend.backend, apiModel: m.backend.apiModel } : { kind: 'local' };
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/**
 * The route space with only the length bounds that differ from the model's defaults: a run made
 * before the bounds were recorded had the defaults, and two checkpoints with different block counts
 * each have their own defaults.
 */
function routeSpaceOf(m: RunManifest): RouteSpaceSettings | undefined {
  if (!m.routeSpace) return undefined;
  const numBlocks = m.model?.numBlocks ?? 0;
  const d = routeLengthBounds(numBlocks);
  const { min, max } = lengthBoundsOf(m.routeSpace, numBlocks);
  return { maxEdits: m.routeSpace.maxEdits, ...(min !== d.min ? { minLength: min } : {}), ...(max !== d.max ? { maxLength: max } : {}) };
}

/** The search settings with every field spelled out (a run made before widening, the reward or its scale was recorded had the default). */
function searchOf(m: RunManifest): SearchSettings | undefined {
  return m.search
    ? { ...m.search, widening: m.search.widening ?? DEFAULT_SEARCH.widening, reward: m.search.reward ?? 'correct', rewardScale: m.search.rewardScale ?? 'none' }
    : undefined;
}

/** A deployment's few-shot examples and where they come from (absent fields as older runs wrote them). */
function examplesOf(d: Deployment | undefined): unknown {
  return d ? { fewShot: d.fewShot, bySubject: d.bySubject, exemplars: d.exemplars } : undefined;
}

function withoutExamples(d: Deployment | undefined): unknown {
  if (!d) return undefined;
  const rest: Partial<Deployment> = { ...d };
  delete rest.fewShot;
  delete rest.bySubject;
  delete rest.exemplars;
  return rest;
}

/** The examples in a few words: how many, from where, and per-subject dev examples. */
function describeExamples(d: Deployment | undefined): string {
  if (!d) return 'none recorded';
  const origin = d.exemplars ?? (d.preset ? 'benchmark test-split lines (a run made before published exemplars)' : undefined);
  const first = d.fewShot[0]?.source;
  const subjects = d.bySubject ? `, dev-split examples for ${Object.keys(d.bySubject).length} subjects` : '';
  return `${d.fewShot.length} examples${origin ? ` (${origin}${first ? `, first ${first}` : ''})` : first ? ` (first ${first})` : ''}${subjects}`;
}

/**
 * The grading settings as they decide verdicts: a run made before thinking markers were recorded
 * read them as the default, and where the markers came from (flag, tokenizer) changes no verdict.
 */
function gradingOf(m: RunManifest): unknown {
  if (!m.grading) return undefined;
  const { from: _from, ...thinking } = m.grading.thinking ?? DEFAULT_THINKING;
  return { ...m.grading, thinking };
}

/**
 * What differs between a stored run and the run asked for now, worded for the user; empty when
 * the run can be resumed. Paths may move; contents (hashes) and settings may not change.
 */
export function manifestMismatches(stored: RunManifest, wanted: RunManifest): string[] {
  const out: string[] = [];
  const check = (what: string, a: unknown, b: unknown) => {
    if (canonical(a) !== canonical(b)) out.push(`${what}: the run has ${canonical(a)}, this command gives ${canonical(b)}`);
  };
  check('model content hash', stored.model?.contentHash, wanted.model.contentHash);
  // The folder may move; the tokenizer files' content may not change (other ids, other prompts).
  const tokenizerOf = (m: RunManifest) => (m.model?.tokenizerFrom ? `--tokenizer-from with tokenizer files of hash ${m.model.tokenizerFrom.contentHash}` : "the model folder's own tokenizer");
  check('tokenizer', tokenizerOf(stored), tokenizerOf(wanted));
  check('dataset content hash', stored.dataset?.contentHash, wanted.dataset.contentHash);
  check('answer format', stored.dataset?.format, wanted.dataset.format);
  check('engine version', stored.engine?.version, wanted.engine.version);
  check('weights', stored.engine?.weights ?? 'f32', wanted.engine.weights ?? 'f32');
  check('KV cache (--kv-cache)', stored.engine?.kvCache ?? 'f32', wanted.engine.kvCache ?? 'f32');
  // The examples are checked apart, so a changed example set (a preset's exemplars replaced, a
  // different dev split) is named as such rather than buried in the whole deployment's JSON.
  // A run made before the template's day was recorded is resumed with a guessed day (the service warns); a recorded day must match.
  const { templateDate: _undated, ...wantedUndated } = wanted.deployment;
  check('deployment', withoutExamples(stored.deployment), withoutExamples(stored.deployment?.templateDate === undefined ? wantedUndated : wanted.deployment));
  if (canonical(examplesOf(stored.deployment)) !== canonical(examplesOf(wanted.deployment))) {
    out.push(`few-shot examples: the run has ${describeExamples(stored.deployment)}, this command gives ${describeExamples(wanted.deployment)}; other examples make other prompts, so start a new run`);
  }
  check('probes', stored.probes, wanted.probes);
  // Runs made before probe decoding was recorded sampled at 1.0 / 1.0 and decoded routes greedily.
  const storedDecoding = stored.probeDecoding ?? LEGACY_PROBE_DECODING;
  const wantedDecoding = wanted.probeDecoding ?? LEGACY_PROBE_DECODING;
  check('sample probe decoding (--sample-temperature, --sample-top-p)', storedDecoding.sample, wantedDecoding.sample);
  check('route probe decoding (as the deployment decodes)', routeDecodingRule(storedDecoding, stored.deployment), routeDecodingRule(wantedDecoding, wanted.deployment));
  check('selectors', stored.selectors, wanted.selectors);
  check('repair', stored.repair, wanted.repair);
  check('global routes', stored.globalRoutes, wanted.globalRoutes);
  check('learned route (--router-folds, its features and model)', stored.learnedRoute ?? 'not used', wanted.learnedRoute ?? 'not used');
  check('seed', stored.seeds, wanted.seeds);
  check('route space', routeSpaceOf(stored), routeSpaceOf(wanted));
  check('search settings', searchOf(stored), searchOf(wanted));
  // Both sides fall back: compare reads two stored manifests, and two runs made before grading settings match.
  const noGrading = 'none recorded (a run made before grading settings were)';
  check('grading', gradingOf(stored) ?? noGrading, gradingOf(wanted) ?? noGrading);
  // A ceiling-only run's probes hold partial pools: its records cannot be completed, or compared, as full ones.
  check('--until-reached (probes stop at the first correct attempt)', stored.untilReached === true, wanted.untilReached === true);
  check('--depth-probe', stored.depthProbe ?? 'not run', wanted.depthProbe ?? 'not run');
  check('--foreclosure-window', stored.foreclosureWindow ?? 'not run', wanted.foreclosureWindow ?? 'not run');
  check('--fork-probe', stored.forkProbe ?? 'not run', wanted.forkProbe ?? 'not run');
  // The log's bytes, not its path: the same log moved still resumes; another log's outputs do not.
  // (A comparison blanks the hash: base and tuned each read their own log.)
  const realizedFrom = (m: RunManifest) => (!m.realizedFrom ? 'generated' : m.realizedFrom.sha256 === '' ? `read from a ${m.realizedFrom.tool} log` : `${m.realizedFrom.tool} log sha256 ${m.realizedFrom.sha256}`);
  check('realized outputs (--realized-from)', realizedFrom(stored), realizedFrom(wanted));
  check('question selection', stored.selection, wanted.selection);
  check('backend', backendIdentity(stored), backendIdentity(wanted));
  return out;
}

/**
 * What keeps two runs from being compared as checkpoints: everything but the model must match
 * (dataset, deployment, probes, budgets, seeds). Empty when comparable.
 */
export function comparisonMismatches(base: RunManifest, tuned: RunManifest, options: { mixedBackends?: boolean; mixedWeights?: boolean } = {}): string[] {
  if (!options.mixedBackends && (base.backend?.backend ?? 'local') !== (tuned.backend?.backend ?? 'local')) {
    return [`backend: the base run ran on ${base.backend?.backend ?? 'local'}, the tuned run on ${tuned.backend?.backend ?? 'local'} (pass --mixed-backends to compare them anyway)`];
  }
  const strip = (m: RunManifest): RunManifest => ({
    ...m,
    // f32 vs int8 weights are refused unless asked for (e.g. to measure what quantization moves).
    engine: options.mixedWeights ? { ...m.engine, weights: 'f32' } : m.engine,
    // A checkpoint saved without tokenizer files reads its base's (--tokenizer-from): the models differ anyway.
    model: { ...m.model, contentHash: '', tokenizerFrom: undefined },
    // Models with different block counts draw different pools; the pool size must still match.
    globalRoutes: { count: m.globalRoutes?.count ?? 0, routes: [] },
    // The served model names differ with the checkpoints; only the kind of backend must match.
    backend: options.mixedBackends || !m.backend ? undefined : { ...m.backend, apiModel: '', baseUrls: [], seedHonoured: null, concurrency: 0 },
    // Each checkpoint's outputs come from its own log: only whether they were read, and from which harness, must match.
    realizedFrom: m.realizedFrom ? { source: '', sha256: '', tool: m.realizedFrom.tool } : undefined,
    // Checkpoints of a training run are audited on the days they appear: each run's prompts carry its own
    // day (a chat template's strftime_now), as each deployment would. One run (resume, merge) keeps one day.
    deployment: { ...m.deployment, templateDate: undefined },
  });
  return manifestMismatches(strip(base), strip(tuned))
    .map((p) => p.replace('the run has', 'the base run has').replace('this command gives', 'the tuned run has'))
    .map((p) => (p.startsWith('weights:') ? `${p} (pass --mixed-weights to compare them anyway)` : p));
}
