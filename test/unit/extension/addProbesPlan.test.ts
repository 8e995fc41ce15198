import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addProbesOptions, logSelection, missingQuestionsText, probedRunName } from '../../../src/extension/commands/addProbesPlan';

test("a log of the whole dataset needs no selection; of its first N, a limit; of other questions, their ids in file order", () => {
  const dataset = ['a', 'b', 'c', 'd'];
  assert.deepEqual(logSelection(dataset, ['d', 'c', 'b', 'a']), { selection: {} });
  assert.deepEqual(logSelection(dataset, ['b', 'a']), { selection: { limit: 2 } });
  assert.deepEqual(logSelection(dataset, ['d', 'b']), { selection: { ids: ['b', 'd'] } });
});

test("the log's questions the dataset lacks are named, with the fix", () => {
  assert.deepEqual(logSelection(['1', '2'], ['1', '7', '9']), { missing: ['7', '9'] });
  assert.deepEqual(logSelection(['1'], []), { missing: [] });
  const text = missingQuestionsText(['7', '9', '11', '12'], 5, '/data/gsm8k.jsonl');
  assert.match(text, /^4 of the log's 5 questions are not in gsm8k\.jsonl \(first: "7", "9", "11", …\)\. Pick the benchmark file the log was made from/);
  assert.match(missingQuestionsText([], 0, '/d.jsonl'), /holds no question/);
});

test("the audit reads the imported run's outputs, on the log's questions, under a name of its own", () => {
  assert.equal(probedRunName('gsm8k-imported'), 'gsm8k-probed');
  assert.equal(probedRunName('my-eval'), 'my-eval-probed');
  const options = addProbesOptions({ probes: ['sample:2'], limit: 20, ids: ['x'], maxNewTokens: 64 }, '/ws/.reach-audit/runs/r', { limit: 5 }, '/m', '/d.jsonl', 'gsm8k-probed');
  assert.deepEqual(options, { probes: ['sample:2'], maxNewTokens: 64, model: '/m', data: '/d.jsonl', realizedFrom: '/ws/.reach-audit/runs/r', name: 'gsm8k-probed', limit: 5 });
  // A log of the whole file: no limit or ids left from the settings.
  assert.equal('limit' in addProbesOptions({ limit: 20 }, '/r', {}, '/m', '/d', 'n'), false);
});
