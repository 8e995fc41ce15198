import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditFlagsOf, conflictMessage, settingsConflict } from '../../../src/extension/commands/watchSettingsConflict';

test('a resume refused for other settings is read whole: the watch folder and every difference', () => {
  const lines = [
    'cannot resume /w/traj/checkpoint-100: it was made with different settings —',
    '  deployment: the run has {"maxNewTokens":32}, this command gives {"maxNewTokens":16}',
    '  probes: the run has sample:2, this command gives sample:4',
    'Start a new run (leave out --resume) or resume with the original settings.',
  ];
  const c = settingsConflict(lines);
  assert.deepEqual(c, { out: '/w/traj', problems: ['deployment: the run has {"maxNewTokens":32}, this command gives {"maxNewTokens":16}', 'probes: the run has sample:2, this command gives sample:4'] });
  assert.equal(conflictMessage(c), 'Reach Audit: the checkpoints already audited in /w/traj were made with other settings than this watch\'s — deployment: the run has {"maxNewTokens":32}, this command gives {"maxNewTokens":16}; probes: the run has sample:2, this command gives sample:4. Watch into a new folder with the new settings, or keep the earlier settings for this watch.');
  assert.deepEqual(settingsConflict(['the checkpoints in /w/traj were audited with different settings —', '  seed: 0 and 1'])?.out, '/w/traj');
  assert.equal(settingsConflict(['--data: expected a benchmark file (JSONL or JSON)']), undefined);
});

test('the earlier settings are the reproduce command\'s flags without the model, the data and the run\'s name', () => {
  assert.deepEqual(
    auditFlagsOf(['reach-audit', 'audit', '--model', '/m', '--data', '/d.jsonl', '--probe', 'sample:2', '--max-new-tokens', '32', '--name', 'w-ckpt', '--repair']),
    ['--probe', 'sample:2', '--max-new-tokens', '32', '--repair'],
  );
});
