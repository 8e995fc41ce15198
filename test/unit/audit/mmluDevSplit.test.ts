/**
 * MMLU with a dev split (`--fewshot-file`): each subject is asked with its first five dev examples
 * under the header naming it; without one, the generic test-split set is used and flagged (in the
 * deployment the manifest records and in a warning line). A run made with other examples (the
 * presets' earlier test-split exemplars) is refused on resume, named as a change of examples, and
 * its manifest still reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v from 'valibot';
import { optionsFromFlags } from '../../../src/service/auditOptions';
import { readDeployment, readPreSettings, runSettings } from '../../../src/service/auditInputs';
import { rawPromptText, isFewShotExample } from '../../../src/audit/probes/deployment';
import { presetWarnings } from '../../../src/audit/presets/presetWarnings';
import { parseDataset } from '../../../src/audit/dataset/dataset';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { manifestMismatches } from '../../../src/audit/store/manifest';
import type { RunManifest } from '../../../src/contract';
import { runManifestSchema } from '../../../src/audit/store/runFileSchemas';
import { InputError } from '../../../src/common/errors';
import { fakeFor, smallDataset, tempDir } from './fixtures';

const line = (subject: string, question: string, answer: number) => JSON.stringify({ question, choices: ['one', 'two', 'three', 'four'], answer, subject });

function devFile(): string {
  const file = path.join(tempDir(), 'mmlu-dev.jsonl');
  const astronomy = Array.from({ length: 6 }, (_, i) => line('astronomy', `Astronomy dev question ${i + 1}?`, i % 4));
  const virology = [line('virology', 'Virology dev question 1?', 2), line('virology', 'Virology dev question 2?', 0)];
  fs.writeFileSync(file, [astronomy[0], virology[0], ...astronomy.slice(1), virology[1]].join('\n') + '\n');
  return file;
}

const tests = parseDataset(
  'mmlu-test.jsonl',
  [line('astronomy', 'Which planet is largest?', 1), line('virology', 'What is a virion?', 0), line('high_school_mathematics', 'What is 2 + 2?', 3), line('astronomy', 'astronomy dev question 3', 2)].join('\n') + '\n',
);

test("with --fewshot-file each subject is asked with its own first five dev examples under MMLU's subject header", () => {
  const d = readDeployment(optionsFromFlags({ preset: 'mmlu-5shot', 'fewshot-file': devFile() }));
  assert.equal(d.exemplars, 'dev-split');
  assert.deepEqual(Object.keys(d.bySubject ?? {}).sort(), ['astronomy', 'virology']);
  assert.equal(d.bySubject!.astronomy.fewShot.length, 5, 'first_n: the first five of the subject, in file order');
  assert.match(d.bySubject!.astronomy.fewShot[0].source ?? '', /^mmlu-dev\.jsonl:1 \(dev split, subject astronomy\)$/);

  const astronomy = rawPromptText(d, tests.questions[0]);
  const want = [
    'The following are multiple choice questions (with answers) about astronomy.',
    ...[1, 2, 3, 4, 5].map((i) => `Astronomy dev question ${i}?\nA. one\nB. two\nC. three\nD. four\nAnswer: ${'ABCD'[(i - 1) % 4]}`),
    'Which planet is largest?\nA. one\nB. two\nC. three\nD. four\nAnswer:',
  ].join('\n\n');
  assert.equal(astronomy, want);
  assert.ok(!astronomy.includes('Virology'));
  const virology = rawPromptText(d, tests.questions[1]);
  assert.ok(virology.startsWith('The following are multiple choice questions (with answers) about virology.\n\nVirology dev question 1?'));
  assert.equal(virology.split('\nAnswer:').length - 1, 3, 'two dev examples (all there are), then the question');
  // A subject the dev split lacks falls back to the generic set, without a subject header.
  assert.ok(rawPromptText(d, tests.questions[2]).startsWith('The following are multiple choice questions (with answers).\n\nHow many arithmetic sequences'));
  // The skip looks at the question's own examples (normalized): a test line repeating a dev question of its subject.
  assert.ok(isFewShotExample(d, tests.questions[3]));
  assert.ok(!isFewShotExample(d, tests.questions[0]));

  const warnings = presetWarnings(d, tests.questions);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0], /^--fewshot-file: no dev examples for high_school_mathematics \(1\); those questions are asked with 5 test-split lines of mmlu-test-sample\.jsonl/);
  assert.match(warnings[1], /^--fewshot-file: fewer than 5 dev examples for virology \(2\)/);
});

test('without --fewshot-file MMLU uses the generic test-split set, flagged in the deployment and in a warning line', () => {
  const d = readDeployment(optionsFromFlags({ preset: 'mmlu-5shot' }));
  assert.equal(d.exemplars, 'test-split');
  assert.equal(d.bySubject, undefined);
  const warnings = presetWarnings(d, tests.questions);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^--preset mmlu-5shot: the examples are not the published ones but 5 test-split lines of mmlu-test-sample\.jsonl \(all high-school mathematics\), the same for every question \(flagged in manifest\.json: deployment\.exemplars test-split\); give the benchmark's dev split with --fewshot-file FILE/);
  // The published sets call for no warning.
  assert.deepEqual(presetWarnings(readDeployment(optionsFromFlags({ preset: 'gsm8k-cot-8shot' })), tests.questions), []);
});

test('--fewshot-file is refused without --preset mmlu-5shot, and a dev file without subjects names the line', () => {
  const file = devFile();
  assert.throws(() => readDeployment(optionsFromFlags({ 'fewshot-file': file })), (e: unknown) => e instanceof InputError && /--fewshot-file is the dev split for --preset mmlu-5shot/.test((e as Error).message));
  assert.throws(() => readDeployment(optionsFromFlags({ preset: 'arc-5shot', 'fewshot-file': file })), /it is for --preset mmlu-5shot, not arc-5shot/);
  const bare = path.join(tempDir(), 'dev.jsonl');
  fs.writeFileSync(bare, JSON.stringify({ question: 'Q?', choices: ['a', 'b', 'c', 'd'], answer: 0 }) + '\n');
  assert.throws(() => readDeployment(optionsFromFlags({ preset: 'mmlu-5shot', 'fewshot-file': bare })), /--fewshot-file .*dev\.jsonl:1: no "subject" field/);
});

test('a run made with the earlier test-split exemplars still reads, and resuming it under the published ones is refused, naming the examples', async () => {
  const dataset = smallDataset(4);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 2, modelInfo: { path: '/m', contentHash: 'h' } };
  const settings = runSettings(readPreSettings(optionsFromFlags({ probe: ['sample:2'], preset: 'gsm8k-cot-8shot' })), 8, { limit: null, ids: null }, 4);
  const folder = tempDir();
  await runAudit({ ...base, settings, model: fakeFor(dataset), folder, resume: false });
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
  assert.equal(manifest.deployment.exemplars, 'published');
  assert.equal(manifest.deployment.fewShot.length, 8);

  // As a run made before this change recorded it: test-split lines, no `exemplars` field.
  const oldDeployment = { ...manifest.deployment, template: 'Question: {question}\nAnswer:', stop: ['Question:'], fewShot: [{ user: 'Billy sells DVDs.', assistant: ' #### 7', source: 'gsm8k-test-sample.jsonl:23 (GSM8K test split; MIT)' }] };
  delete oldDeployment.exemplars;
  const old: RunManifest = { ...manifest, deployment: oldDeployment };
  assert.ok(v.safeParse(runManifestSchema, JSON.parse(JSON.stringify(old))).success, 'an older manifest still reads');
  const problems = manifestMismatches(old, manifest);
  assert.ok(problems.some((p) => /^few-shot examples: the run has 1 examples \(benchmark test-split lines \(a run made before published exemplars\), first gsm8k-test-sample\.jsonl:23 .*this command gives 8 examples \(published, first github\.com\/EleutherAI\/lm-evaluation-harness@4e7e0d47f33b:lm_eval\/tasks\/gsm8k\/gsm8k-cot\.yaml #1 .*start a new run$/.test(p)), problems.join('\n'));
  fs.writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify(old));
  await assert.rejects(runAudit({ ...base, settings, model: fakeFor(dataset), folder, resume: true }), (e: unknown) => e instanceof InputError && /few-shot examples: the run has 1 examples/.test((e as Error).message));
});
