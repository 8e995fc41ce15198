/**
 * The route search's settings and the route length bounds are part of a run: read from their flags,
 * recorded in manifest.json with every default spelled out, a resume or a comparison under other
 * values is refused, and runs made before they were recorded still resume under the defaults.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../../src/common/errors';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { compareRuns } from '../../../src/audit/store/comparisonStore';
import { comparisonMismatches, manifestMismatches } from '../../../src/audit/store/manifest';
import type { RunManifest } from '../../../src/contract';
import { optionsFromFlags } from '../../../src/service/auditOptions';
import { readPreSettings, runSettings } from '../../../src/service/auditInputs';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

const selection = { limit: null, ids: null };
const settingsOf = (flags: Record<string, string>, numBlocks = 8) => runSettings(readPreSettings(optionsFromFlags({ probe: ['search:4'], ...flags })), numBlocks, selection, 40);

test('search flags and route length bounds are read into the run settings, defaults spelled out', () => {
  const d = settingsOf({});
  assert.deepEqual(d.search, { c: 1.8, lambda: 0, exploration: 0.1, widening: 0.5 });
  assert.deepEqual(d.routeSpace, { maxEdits: 4, minLength: 5, maxLength: 10 });
  const s = settingsOf({ 'search-c': '1.41', 'search-lambda': '5', 'search-random-child': '0.25', 'search-widening': 'off', 'min-route-length': '6', 'max-route-length': '9' });
  assert.deepEqual(s.search, { c: 1.41, lambda: 5, exploration: 0.25, widening: 'off' });
  assert.deepEqual(s.routeSpace, { maxEdits: 4, minLength: 6, maxLength: 9 });
  assert.equal(settingsOf({ 'search-widening': '0.75' }).search.widening, 0.75);
  // The reward is recorded only when it is not the 0/1 default, so older manifests read the same.
  assert.equal(settingsOf({ 'search-reward': 'gold-logprob' }).search.reward, 'gold-logprob');
  // The dense reward is compared in units of its spread (issue 38), and that is recorded; the 0/1 search records no scale.
  assert.equal(settingsOf({ 'search-reward': 'gold-logprob' }).search.rewardScale, 'spread');
  assert.equal(settingsOf({}).search.rewardScale, undefined);
  assert.equal(settingsOf({ 'search-reward': 'correct' }).search.reward, undefined);
  assert.throws(() => settingsOf({ 'search-reward': 'logprob' }), /--search-reward logprob: expected one of correct, gold-logprob/);
  // The published constants, and its length bounds where it gave them (28 blocks: 16-32); flags beside it win.
  const published = settingsOf({ 'search-preset': 'published' }, 28);
  assert.deepEqual([published.search.c, published.search.lambda], [Math.SQRT2, 5]);
  assert.deepEqual(published.routeSpace, { maxEdits: 4, minLength: 16, maxLength: 32 });
  assert.deepEqual(settingsOf({ 'search-preset': 'published' }).routeSpace, { maxEdits: 4, minLength: 5, maxLength: 10 }, 'an 8-block model keeps our bounds');
  assert.equal(settingsOf({ 'search-preset': 'published', 'search-c': '1' }, 28).search.c, 1);
  assert.deepEqual(settingsOf({ 'search-preset': 'published', 'max-route-length': '30' }, 28).routeSpace, { maxEdits: 4, minLength: 19, maxLength: 30 });
  assert.throws(() => settingsOf({ 'search-preset': 'cola' }), /--search-preset cola: expected published/);
  // The global-route pool is drawn inside the bounds too.
  const pooled = runSettings(readPreSettings(optionsFromFlags({ probe: ['routes:6'], select: 'global-route', 'min-route-length': '7', 'max-route-length': '9' })), 8, selection, 40);
  assert.equal(pooled.globalRoutes.routes.length, 6);
  assert.ok(pooled.globalRoutes.routes.every((r) => r.length >= 7 && r.length <= 9));
});

test('bad search and bound values name their flag and what was expected', () => {
  assert.throws(() => settingsOf({ 'search-widening': '2' }), /--search-widening: expected a number from 0 to 1 \(the exponent α\) or off, got '2'/);
  assert.throws(() => settingsOf({ 'search-widening': 'wide' }), /--search-widening: expected/);
  assert.throws(() => optionsFromFlags({ 'search-random-child': '1.5' }), /--search-random-child: expected a probability from 0 to 1, got '1.5'/);
  assert.throws(() => optionsFromFlags({ 'min-route-length': '0' }), /--min-route-length: expected a whole number >= 1/);
  assert.throws(() => settingsOf({ 'min-route-length': '9', 'max-route-length': '7' }), (e: unknown) => e instanceof InputError && /--min-route-length 9 is above --max-route-length 7/.test((e as Error).message));
  // Bounds that leave out the identity route (the deployment, where every edit starts) are refused once the block count is known.
  assert.throws(() => settingsOf({ 'min-route-length': '9' }), /the shortest route allowed \(9\) is longer than the model's 8 blocks/);
  assert.throws(() => settingsOf({ 'max-route-length': '7' }), /the longest route allowed \(7\) is shorter than the model's 8 blocks/);
});

test('a resume under other search settings or bounds is refused; a run recorded before them resumes under the defaults', async () => {
  const dataset = smallDataset(6);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 3, modelInfo: { path: '/m', contentHash: 'h' } };
  const folder = tempDir();
  const settings = settingsOf({});
  await runAudit({ ...base, settings, model: fakeFor(dataset), folder, resume: false });
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
  assert.deepEqual(manifest.search, { c: 1.8, lambda: 0, exploration: 0.1, widening: 0.5 });
  assert.deepEqual(manifest.routeSpace, { maxEdits: 4, minLength: 5, maxLength: 10 });

  for (const [flags, what] of [
    [{ 'search-random-child': '0.2' }, /search settings: the run has .*"exploration":0.1.*this command gives .*"exploration":0.2/],
    [{ 'search-widening': 'off' }, /search settings: .*"widening":0.5.*"widening":"off"/],
    [{ 'search-c': '1' }, /search settings: /],
    [{ 'search-lambda': '5' }, /search settings: /],
    [{ 'search-reward': 'gold-logprob' }, /search settings: the run has .*"reward":"correct".*this command gives .*"reward":"gold-logprob"/],
    [{ 'min-route-length': '6' }, /route space: the run has \{"maxEdits":4\}, this command gives \{"maxEdits":4,"minLength":6\}/],
  ] as const) {
    await assert.rejects(runAudit({ ...base, settings: settingsOf(flags), model: fakeFor(dataset), folder, resume: true }), (e: unknown) => e instanceof InputError && what.test((e as Error).message));
  }
  await runAudit({ ...base, settings, model: fakeFor(dataset), folder, resume: true });

  // A manifest written before widening and the bounds were recorded matches today's defaults.
  const old: RunManifest = { ...manifest, search: { c: 1.8, lambda: 0, exploration: 0.1 }, routeSpace: { maxEdits: 4 } };
  assert.deepEqual(manifestMismatches(old, manifest), []);
  assert.equal(manifestMismatches(old, { ...manifest, search: { ...manifest.search, widening: 1 } }).length, 1);
  // A gold-logprob run made before the scaling compared raw rewards: it does not resume under the scaled search.
  const informed: RunManifest = { ...manifest, search: { ...manifest.search, reward: 'gold-logprob', rewardScale: 'spread' } };
  assert.match(manifestMismatches({ ...informed, search: { ...informed.search, rewardScale: undefined } }, informed).join('\n'), /"rewardScale":"none".*"rewardScale":"spread"/);
});

test('a comparison is refused when the search settings or set bounds differ; default bounds follow each model', async () => {
  const dataset = smallDataset(6);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 3, modelInfo: { path: '/m', contentHash: 'h' } };
  const a = tempDir();
  const b = tempDir();
  await runAudit({ ...base, settings: settingsFor(8, { search: settingsOf({}).search }), model: fakeFor(dataset), folder: a, resume: false });
  await runAudit({ ...base, settings: settingsFor(8, { search: settingsOf({ 'search-lambda': '5' }).search }), model: fakeFor(dataset), folder: b, resume: false });
  assert.throws(() => compareRuns(a, b, () => {}), (e: unknown) => e instanceof InputError && /search settings: the base run has .*"lambda":0.*the tuned run has .*"lambda":5/.test((e as Error).message));

  // Checkpoints with different block counts have different default bounds, and still compare; set bounds must match.
  const read = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
  const eight = { ...read(a), routeSpace: settingsOf({}).routeSpace };
  const twelve = { ...eight, model: { ...eight.model, numBlocks: 12 }, routeSpace: settingsOf({}, 12).routeSpace };
  assert.deepEqual(comparisonMismatches(eight, twelve), []);
  const bounded = { ...twelve, routeSpace: settingsOf({ 'min-route-length': '9' }, 12).routeSpace };
  assert.match(comparisonMismatches(eight, bounded).join('\n'), /route space: the base run has \{"maxEdits":4\}, the tuned run has \{"maxEdits":4,"minLength":9\}/);
});
