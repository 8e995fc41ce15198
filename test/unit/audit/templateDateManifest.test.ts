/**
 * The chat template's day (deployment.templateDate) is part of one run: a resume with another day
 * is refused, a run made before the day was recorded still resumes, and two runs of other days
 * (checkpoints audited as they appear) still compare.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparisonMismatches, manifestMismatches } from '../../../src/audit/store/manifest';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { readManifest } from '../../../src/audit/store/runStore';
import type { RunManifest } from '../../../src/contract';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

test('a resume must keep the day; an undated run resumes; comparisons accept other days', async () => {
  const dataset = smallDataset(3);
  const folder = tempDir();
  const settings = settingsFor();
  await runAudit({ engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 1, modelInfo: { path: '/m', contentHash: 'h' }, settings: { ...settings, deployment: { ...settings.deployment, templateDate: '2026-03-01' } }, model: fakeFor(dataset), folder, resume: false });
  const dated = readManifest(folder);
  assert.equal(dated.deployment.templateDate, '2026-03-01');
  const otherDay: RunManifest = { ...dated, deployment: { ...dated.deployment, templateDate: '2026-03-02' } };
  assert.match(manifestMismatches(dated, otherDay).join('\n'), /^deployment: the run has .*"templateDate":"2026-03-01".*this command gives .*"templateDate":"2026-03-02"/);
  const { templateDate: _day, ...undatedDeployment } = dated.deployment;
  const undated: RunManifest = { ...dated, deployment: undatedDeployment };
  assert.deepEqual(manifestMismatches(undated, dated), [], 'a run made before the day was recorded resumes');
  assert.deepEqual(comparisonMismatches(dated, otherDay), []);
});
