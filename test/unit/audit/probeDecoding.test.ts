/**
 * Probe decoding: the sample probe at its own temperature and top-p, route probes as the
 * deployment decodes, every attempt seeded by (run seed, question, probe, attempt); the settings
 * are in the manifest, and resume and compare refuse runs whose settings differ, naming them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import type { QuestionRecord, RunManifest, RunSettings } from '../../../src/contract';
import type { GenerationRequest } from '../../../src/engine/types';
import { buildManifest, runAudit } from '../../../src/audit/runner/runFolderAudit';
import { comparisonMismatches, manifestMismatches } from '../../../src/audit/store/manifest';
import { checkSampleDecoding, LEGACY_PROBE_DECODING } from '../../../src/audit/probes/probeDecoding';
import { DEFAULT_DEPLOYMENT } from '../../../src/audit/probes/deployment';
import { InputError } from '../../../src/common/errors';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

const sampling = (overrides: Partial<RunSettings> = {}) =>
  settingsFor(8, {
    deployment: { ...DEFAULT_DEPLOYMENT, temperature: 0.6, topP: 0.9 },
    probeDecoding: { sample: { temperature: 0.7, topP: 0.95 }, routes: 'deployment' },
    ...overrides,
  });

/** Audits with a fake engine that also keeps every request, so the decoding of each can be read. */
async function audit(settings: RunSettings, ids?: string[]) {
  const dataset = smallDataset(12);
  const questions = ids ? dataset.questions.filter((q) => ids.includes(q.id)) : dataset.questions;
  const model = fakeFor(dataset);
  const requests: GenerationRequest[] = [];
  const generate = model.generate.bind(model);
  model.generate = (rs, signal) => {
    requests.push(...rs);
    return generate(rs, signal);
  };
  const records: QuestionRecord[] = [];
  await auditQuestions(model, questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: 5 });
  return { records, requests };
}

test('the sample probe decodes at its own temperature and top-p; route probes and repair as the deployment', async () => {
  const settings = sampling();
  const { requests } = await audit(settings);
  const routed = requests.filter((r) => r.route);
  const plain = requests.filter((r) => !r.route && !r.silencedMlp);
  const samples = plain.filter((r) => r.decoding.temperature === 0.7);
  // 12 questions: one deployment request and 6 samples each.
  assert.equal(samples.length, 12 * 6);
  assert.ok(samples.every((r) => r.decoding.topP === 0.95));
  assert.equal(plain.length - samples.length, 12);
  assert.ok(plain.filter((r) => r.decoding.temperature !== 0.7).every((r) => r.decoding.temperature === 0.6 && r.decoding.topP === 0.9));
  assert.ok(routed.length > 12 * 6);
  assert.ok(routed.every((r) => r.decoding.temperature === 0.6 && r.decoding.topP === 0.9), 'routes, search and the global pool decode as the deployment');
  assert.ok(requests.filter((r) => r.silencedMlp).every((r) => r.decoding.temperature === 0.6 && r.decoding.topP === 0.9));
  // Each sampled route attempt has its own seed: one question's route attempts never share one.
  const first = routed.filter((r) => r.promptIds.length === routed[0].promptIds.length && String(r.promptIds) === String(routed[0].promptIds));
  assert.equal(new Set(first.map((r) => r.decoding.seed)).size, first.length);
});

test('a greedy deployment keeps route probes greedy, whatever the sample probe does', async () => {
  const { requests } = await audit(settingsFor(8, { probeDecoding: { sample: { temperature: 1.3, topP: 0.5 }, routes: 'deployment' } }));
  assert.ok(requests.filter((r) => r.route || r.silencedMlp).every((r) => r.decoding.temperature === 0));
  assert.equal(requests.filter((r) => r.decoding.temperature === 1.3 && r.decoding.topP === 0.5).length, 12 * 6);
});

test('sampled audits are deterministic per seed: a question alone gets its full-run record; another seed, other samples', async () => {
  const full = await audit(sampling());
  assert.deepEqual((await audit(sampling())).records, full.records);
  for (const id of ['q0', 'q7']) {
    const alone = await audit(sampling(), [id]);
    assert.deepEqual(alone.records[0], full.records.find((r) => r.id === id));
  }
  const other = await audit(sampling({ seeds: { run: 12 } }));
  const seedsOf = (rs: QuestionRecord[]) => rs.flatMap((r) => r.probes.sample.attempts.map((a) => a.seed));
  assert.notDeepEqual(seedsOf(other.records), seedsOf(full.records));
});

test('the sample probe refuses temperature 0 and top-p outside (0, 1], naming the flag', () => {
  assert.throws(() => checkSampleDecoding({ temperature: 0, topP: 1 }), (e: unknown) => e instanceof InputError && /--sample-temperature must be a number > 0/.test((e as Error).message));
  assert.throws(() => checkSampleDecoding({ temperature: Number.NaN, topP: 1 }), /--sample-temperature/);
  assert.throws(() => checkSampleDecoding({ temperature: 1, topP: 0 }), /--sample-top-p must be in \(0, 1\], got 0/);
  assert.throws(() => checkSampleDecoding({ temperature: 1, topP: 1.2 }), /--sample-top-p/);
  checkSampleDecoding({ temperature: 0.2, topP: 0.3 });
});

function manifestOf(settings: RunSettings): RunManifest {
  const dataset = smallDataset(4);
  return buildManifest({ modelInfo: { path: '/m', contentHash: 'h' }, engineVersion: 'test', dataset, questions: dataset.questions, settings, name: 't', model: fakeFor(dataset) });
}

test('the manifest records the probe decoding; resume and compare name a difference in it', () => {
  const stored = manifestOf(sampling());
  assert.deepEqual(JSON.parse(JSON.stringify(stored)).probeDecoding, { sample: { temperature: 0.7, topP: 0.95 }, routes: 'deployment' });
  assert.deepEqual(manifestMismatches(stored, manifestOf(sampling())), []);
  const hotter = manifestOf(sampling({ probeDecoding: { sample: { temperature: 1, topP: 0.95 }, routes: 'deployment' } }));
  assert.deepEqual(manifestMismatches(stored, hotter), [
    'sample probe decoding (--sample-temperature, --sample-top-p): the run has {"temperature":0.7,"topP":0.95}, this command gives {"temperature":1,"topP":0.95}',
  ]);
  assert.deepEqual(comparisonMismatches(stored, { ...hotter, model: { ...hotter.model, contentHash: 'tuned' } }), [
    'sample probe decoding (--sample-temperature, --sample-top-p): the base run has {"temperature":0.7,"topP":0.95}, the tuned run has {"temperature":1,"topP":0.95}',
  ]);
  // A route attempt's decoding follows the deployment's: a change there is named for the routes too.
  const cooler = manifestOf(sampling({ deployment: { ...DEFAULT_DEPLOYMENT, temperature: 0.3, topP: 0.9 } }));
  const problems = manifestMismatches(stored, cooler);
  assert.equal(problems.length, 2);
  assert.match(problems[0], /^deployment: /);
  assert.equal(problems[1], 'route probe decoding (as the deployment decodes): the run has {"temperature":0.6,"topP":0.9}, this command gives {"temperature":0.3,"topP":0.9}');
});

test('a run made before probe decoding was recorded resumes under the defaults when its deployment is greedy, and not when it samples', () => {
  const legacy = (m: RunManifest): RunManifest => {
    const copy: Partial<RunManifest> = { ...m };
    delete copy.probeDecoding;
    return copy as RunManifest;
  };
  assert.deepEqual(manifestMismatches(legacy(manifestOf(settingsFor())), manifestOf(settingsFor())), []);
  const problems = manifestMismatches(legacy(manifestOf(sampling({ probeDecoding: { ...LEGACY_PROBE_DECODING, routes: 'deployment' } }))), manifestOf(sampling({ probeDecoding: { ...LEGACY_PROBE_DECODING, routes: 'deployment' } })));
  assert.deepEqual(problems, ['route probe decoding (as the deployment decodes): the run has {"temperature":0,"topP":1}, this command gives {"temperature":0.6,"topP":0.9}']);
});

test('--resume with another sample temperature is refused with the difference, and the records are kept', async () => {
  const dataset = smallDataset(6);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 3, modelInfo: { path: '/m', contentHash: 'h' } };
  const folder = tempDir();
  await runAudit({ ...base, settings: sampling(), model: fakeFor(dataset), folder, resume: false });
  const before = fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8');
  await assert.rejects(
    runAudit({ ...base, settings: sampling({ probeDecoding: { sample: { temperature: 0.9, topP: 0.95 }, routes: 'deployment' } }), model: fakeFor(dataset), folder, resume: true }),
    (e: unknown) => e instanceof InputError && /cannot resume/.test((e as Error).message) && /sample probe decoding \(--sample-temperature, --sample-top-p\): the run has \{"temperature":0.7,"topP":0.95\}, this command gives \{"temperature":0.9,"topP":0.95\}/.test((e as Error).message),
  );
  assert.equal(fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8'), before);
});

test('two runs made before probe decoding and grading were recorded compare (neither side has them)', () => {
  const legacy = (m: RunManifest): RunManifest => {
    const copy: Partial<RunManifest> = { ...m };
    delete copy.probeDecoding;
    delete copy.grading;
    return copy as RunManifest;
  };
  const base = legacy(manifestOf(settingsFor(8)));
  const tuned = legacy({ ...manifestOf(settingsFor(8)), model: { ...manifestOf(settingsFor(8)).model, contentHash: 'tuned' } });
  assert.deepEqual(comparisonMismatches(base, tuned), []);
  assert.match(comparisonMismatches(base, manifestOf(settingsFor(8))).join('\n'), /^grading: the base run has "none recorded/m);
});
