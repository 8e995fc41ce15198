/**
 * The last step of Run Reachability Audit offers the common options (preset, weights incl. int8,
 * backend, token budget, seed) and every other audit option through All options…, parsed by the command
 * line's own parser.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIT_OPTIONS, type OptionSpec } from '../../../src/service/auditOptions';
import { allOptionItems, choicesOf, parseOptionText, runOptionItems } from '../../../src/extension/commands/runOptionItems';

test('Start first, then preset, weights, backend, token budget and seed with their values, then All options…', () => {
  const items = runOptionItems({ weights: 'int8', preset: 'gsm8k-cot-8shot', backend: 'openai' });
  assert.equal(items[0].start, true);
  assert.deepEqual(items.slice(1, -1).map((i) => [i.label, i.description]), [['--preset', 'gsm8k-cot-8shot'], ['--weights', 'int8'], ['--backend', 'openai'], ['--max-new-tokens', 'default'], ['--seed', 'default']]);
  assert.equal(items.at(-1)?.all, true);
  assert.deepEqual(choicesOf('weights'), ['f32', 'int8']);
  assert.deepEqual(choicesOf('backend'), ['local', 'openai']);
});

test('Compare Checkpoints offers the same step, starting the comparison', () => {
  const audit = runOptionItems({ weights: 'int8' });
  const comparison = runOptionItems({ weights: 'int8' }, AUDIT_OPTIONS, 'comparison');
  assert.equal(comparison[0].start, true);
  assert.match(comparison[0].label, /Start the comparison$/);
  assert.deepEqual(comparison.slice(1), audit.slice(1));
});

test('All options… lists every option a run can set, including ones added to the table later', () => {
  const names = allOptionItems({}).map((i) => i.option);
  for (const o of ['correctBy', 'gradeTruncated', 'truncatePrompt', 'searchC', 'searchPreset', 'weights', 'name', 'out', 'stop', 'backend', 'baseUrl', 'apiModel', 'concurrency', 'timeout', 'maxRetries']) assert.ok(names.includes(o), o);
  // The key's variable is the extension's own (secret storage), never typed for a run.
  for (const o of ['data', 'probes', 'limit', 'ids', 'resume', 'shard', 'apiKeyEnv']) assert.ok(!names.includes(o), o);
  const later: Record<string, OptionSpec> = { ...AUDIT_OPTIONS, untilReached: { flag: 'until-reached', kind: 'boolean', help: 'stop at the first hit' } };
  assert.ok(allOptionItems({}, later).some((i) => i.option === 'untilReached'));
});

test('typed values go through the command line parser: same refusals, empty is the default', () => {
  assert.deepEqual(parseOptionText('weights', 'int8'), { value: 'int8' });
  assert.deepEqual(parseOptionText('weights', 'int4'), { problem: '--weights: expected f32, int8' });
  assert.deepEqual(parseOptionText('searchC', '2.5'), { value: 2.5 });
  assert.ok('problem' in parseOptionText('maxNewTokens', '0'));
  assert.deepEqual(parseOptionText('stop', 'Q:, \\n\\n'), { value: ['Q:', '\\n\\n'] });
  assert.deepEqual(parseOptionText('repair', 'off'), { value: false });
  assert.deepEqual(parseOptionText('seed', ''), { value: undefined });
});
