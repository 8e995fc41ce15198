/**
 * The `reach-audit audit` command line that reproduces a run, read from its manifest: the panel,
 * the Runs view and `reach-audit report` show it, so an audit started in VS Code can be run again
 * from a terminal (or on a bigger machine) and give the same records. Only what the manifest
 * records is written, and only values that differ from the defaults beside the ones a reader
 * wants to see (model, data, probes, seed); what the manifest holds but no flag can carry (a raw
 * template's text, one's own few-shot examples, a dev split's path) is named in `gaps` instead of
 * being silently dropped.
 */
import type { RunManifest } from '../contract';
import { DEFAULT_DEPLOYMENT } from '../audit/probes';
import { DEFAULT_SAMPLE_DECODING } from '../audit/probes';
import { DEFAULT_SEARCH } from '../audit/probes';
import { DEFAULT_GRADING } from '../audit/answers';
import { routeLengthBounds } from '../audit/probes';
import { presetDeployment } from '../audit/presets';
import { AUDIT_DEFAULTS } from './auditOptions';

export interface ReproduceCommand {
  /** One line, quoted for a POSIX shell. */
  command: string;
  /** The words of the command, unquoted (for running it without a shell). */
  args: string[];
  /** What the run used that the command cannot say; empty when the command is the whole story. */
  gaps: string[];
}

/** A word as a POSIX shell reads it back unchanged. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line that audits again what `manifest` recorded. */
export function reproduceCommand(manifest: RunManifest): ReproduceCommand {
  const args = ['reach-audit', 'audit', '--model', manifest.model.path, '--data', manifest.dataset.path];
  const gaps: string[] = [];
  const flag = (name: string, value?: string | number) => args.push(`--${name}`, ...(value === undefined ? [] : [String(value)]));

  if (manifest.regradedFrom) gaps.push(`this run was made by reach-audit regrade from ${manifest.regradedFrom}; the command audits afresh`);
  flag('format', manifest.dataset.format);
  if (manifest.dataset.format === 'exact' || manifest.dataset.format === 'regex') gaps.push(`--format ${manifest.dataset.format} needs its --field / --pattern, which the manifest does not record`);
  for (const p of manifest.probes) flag('probe', `${p.name}:${p.budget}`);
  const sample = manifest.probeDecoding?.sample ?? DEFAULT_SAMPLE_DECODING;
  if (sample.temperature !== DEFAULT_SAMPLE_DECODING.temperature) flag('sample-temperature', sample.temperature);
  if (sample.topP !== DEFAULT_SAMPLE_DECODING.topP) flag('sample-top-p', sample.topP);
  flag('select', manifest.selectors.join(','));
  if (manifest.globalRoutes.count > 0) flag('global-routes', manifest.globalRoutes.count);
  if (manifest.repair.enabled) {
    flag('repair');
    const all = manifest.probes.map((p) => p.name);
    const ref = manifest.repair.referenceProbes;
    if (ref.length !== all.length || ref.some((r, i) => r !== all[i])) flag('reference-probes', ref.join(','));
  }
  flag('seed', manifest.seeds.run);

  const space = manifest.routeSpace;
  if (space.maxEdits !== AUDIT_DEFAULTS.maxEdits) flag('max-edits', space.maxEdits);
  const bounds = routeLengthBounds(manifest.model.numBlocks);
  if (space.minLength !== undefined && space.minLength !== bounds.min) flag('min-route-length', space.minLength);
  if (space.maxLength !== undefined && space.maxLength !== bounds.max) flag('max-route-length', space.maxLength);
  const search = manifest.search;
  if (search.c !== DEFAULT_SEARCH.c) flag('search-c', search.c);
  if (search.lambda !== DEFAULT_SEARCH.lambda) flag('search-lambda', search.lambda);
  if (search.exploration !== DEFAULT_SEARCH.exploration) flag('search-random-child', search.exploration);
  if (search.widening !== undefined && search.widening !== DEFAULT_SEARCH.widening) flag('search-widening', search.widening);
  if (search.reward !== undefined && search.reward !== 'correct') flag('search-reward', search.reward);

  const d = manifest.deployment;
  let presetStops: string[] = [];
  if (d.preset !== undefined) {
    flag('preset', d.preset);
    presetStops = presetDeployment(d.preset, { ...DEFAULT_DEPLOYMENT, stop: [] }).stop;
    if (d.exemplars === 'dev-split') gaps.push('--fewshot-file: the MMLU dev split this run read is not named in the manifest (its examples are, under deployment.bySubject)');
  } else {
    if (d.prompt === 'raw') {
      flag('prompt', 'raw');
      if (d.template !== undefined) gaps.push('--template FILE: the raw template is recorded as text in manifest.json (deployment.template), not as a file');
    }
    if (d.system !== undefined) flag('system', d.system);
    if (d.fewShot.length > 0) gaps.push(`--fewshot FILE: the run's ${d.fewShot.length} few-shot examples are recorded in manifest.json (deployment.fewShot), not as a file`);
  }
  if (d.maxNewTokens !== DEFAULT_DEPLOYMENT.maxNewTokens) flag('max-new-tokens', d.maxNewTokens);
  if (d.temperature !== DEFAULT_DEPLOYMENT.temperature) flag('temperature', d.temperature);
  if (d.topP !== DEFAULT_DEPLOYMENT.topP) flag('top-p', d.topP);
  for (const s of d.stop.filter((s) => !presetStops.includes(s))) flag('stop', s);
  if (d.truncatePrompt === 'left') flag('truncate-prompt', 'left');
  if (d.chatTemplateKwargs) flag('chat-template-kwargs', JSON.stringify(d.chatTemplateKwargs));

  const grading = manifest.grading ?? DEFAULT_GRADING;
  if (grading.correctBy !== DEFAULT_GRADING.correctBy) flag('correct-by', grading.correctBy);
  if (grading.truncated !== DEFAULT_GRADING.truncated) flag('grade-truncated', grading.truncated);
  if (grading.thinking?.from === 'flag') flag('thinking-markers', `${grading.thinking.open},${grading.thinking.close}`);

  const { selection } = manifest;
  if (selection.limit !== null) flag('limit', selection.limit);
  if (selection.ids !== null) flag('ids', selection.ids.join(','));
  if (selection.shard) flag('shard', `${selection.shard.index}/${selection.shard.count}`);

  if (manifest.engine.weights === 'int8') flag('weights', 'int8');
  if (manifest.backend) {
    flag('backend', manifest.backend.backend);
    for (const url of manifest.backend.baseUrls) flag('base-url', url);
    flag('api-model', manifest.backend.apiModel);
    flag('concurrency', manifest.backend.concurrency);
    gaps.push('a server that needs a key: add --api-key-env VAR (the key is never recorded)');
  }
  flag('name', manifest.name);
  return { command: args.map(shellQuote).join(' '), args, gaps };
}
