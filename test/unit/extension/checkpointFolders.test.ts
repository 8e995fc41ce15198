/**
 * Audit Checkpoint Folders…: folders picked in any order go in training order as the CLI's watch
 * orders them (the last number in the name, as a number), labelled so the checkpoints are told
 * apart; the command line is `trajectory --model … --data … --out …`, into a folder named from the
 * dataset and the checkpoints (the same pick: the same folder, so a second run reuses the first's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointLabels, foldersProblem, orderText, trainingOrder, trajectoryArgs, trajectoryOutFolder } from '../../../src/extension/commands/checkpointFolders';

test('training order: the last number in the name, as a number (not as text); names without one last', () => {
  assert.deepEqual(trainingOrder(['/r/checkpoint-1000', '/r/final', '/r/checkpoint-200', '/r/checkpoint-50']), ['/r/checkpoint-50', '/r/checkpoint-200', '/r/checkpoint-1000', '/r/final']);
  assert.deepEqual(trainingOrder(['/r/global_step_900', '/r/step-v2-100']), ['/r/step-v2-100', '/r/global_step_900']);
  // Folders of one name (two runs' checkpoint-100): both kept, by path.
  assert.deepEqual(trainingOrder(['/b/checkpoint-100', '/a/checkpoint-100', '/a/checkpoint-20']), ['/a/checkpoint-20', '/a/checkpoint-100', '/b/checkpoint-100']);
});

test('labels: the folder names; the parent too where two share a name; the order as one line', () => {
  assert.deepEqual(checkpointLabels(['/r/checkpoint-200', '/r/checkpoint-1000']), ['checkpoint-200', 'checkpoint-1000']);
  assert.deepEqual(checkpointLabels(['/a/final', '/b/final', '/a/checkpoint-9']), ['a/final', 'b/final', 'checkpoint-9']);
  assert.equal(orderText(['/r/checkpoint-200', '/r/checkpoint-1000']), 'checkpoint-200 → checkpoint-1000');
});

test('problems: a folder without config.json named; fewer than two; a comma in a name', () => {
  const isModel = (f: string) => !f.endsWith('notes');
  assert.match(foldersProblem(['/r/checkpoint-1', '/r/notes'], isModel) ?? '', /^notes is not a checkpoint folder \(no config\.json\)/);
  assert.match(foldersProblem(['/r/checkpoint-1'], isModel) ?? '', /at least two checkpoint folders/);
  assert.match(foldersProblem(['/r/a,b', '/r/c'], isModel) ?? '', /comma/);
  assert.equal(foldersProblem(['/r/checkpoint-1', '/r/checkpoint-2'], isModel), undefined);
});

test('the command line and its folder', () => {
  const folders = ['/r/checkpoint-200', '/r/checkpoint-1000'];
  const out = trajectoryOutFolder('/ws', '/data/arith-test.jsonl', folders);
  assert.equal(out, '/ws/.reach-audit/trajectories/arith-test-checkpoint-200-to-checkpoint-1000-2');
  assert.equal(trajectoryOutFolder('/ws', '/data/arith-test.jsonl', [...folders]), out, 'the same pick, the same folder');
  assert.deepEqual(trajectoryArgs(folders, '/data/arith-test.jsonl', ['--limit', '4'], out), ['trajectory', '--model', '/r/checkpoint-200', '--model', '/r/checkpoint-1000', '--data', '/data/arith-test.jsonl', '--limit', '4', '--out', out]);
  // Two folders of one name: labels that tell them apart.
  assert.deepEqual(trajectoryArgs(['/a/final', '/b/final'], '/d.jsonl', [], '/o').slice(-4), ['--labels', 'a/final,b/final', '--out', '/o']);
});
