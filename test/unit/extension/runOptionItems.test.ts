/**
 * The last step of Run Reachability Audit offers the common options (preset, weights incl. int8,
 * backend, token budget, seed) and every other audit option through All options…, parsed by the command
 * line's own parser.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIT_OPTIONS, type OptionSpec } from '../../../src/service/auditOptions';
import { allOptionItems, choicesOf, parseOptionText, rememberedOf, runOptionItems, unusedValueNote, valuePrompt } from '../../../src/extension/commands/runOptionItems';

test('Start first, then preset, weights, backend, token budget and seed with their values, then All options…', () => {
  const items = runOptionItems({ weights: 'int8', preset: 'gsm8k-cot-8shot', backend: 'openai' });
  assert.equal(items[0].start, true);
  assert.deepEqual(items.slice(1, -1).map((i) => [i.label, i.description]), [['--preset', 'gsm8k-cot-8shot'], ['--weights', "the servers' own (backend openai: --weights is not used)"], ['--backend', 'openai'], ['--max-new-tokens', 'default'], ['--seed', 'default']]);
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

test('a remote run shows the weights it will use, not the --weights setting it ignores (issue 40)', () => {
  const remote = runOptionItems({ weights: 'int8', backend: 'openai' });
  const weights = remote.find((i) => i.option === 'weights');
  assert.doesNotMatch(String(weights?.description), /^int8/);
  assert.match(String(weights?.description), /servers' own .*not used/);
  assert.equal(unusedValueNote('weights', { weights: 'int8', backend: 'local' }), undefined);
  assert.equal(runOptionItems({ weights: 'int8' }).find((i) => i.option === 'weights')?.description, 'int8');
  assert.match(String(allOptionItems({ weights: 'int8', backend: 'openai' }).find((i) => i.option === 'weights')?.description), /not used/);
});

test('the token budget is remembered for the next run and says so; set back to the default it is forgotten (issue 40)', () => {
  assert.deepEqual(rememberedOf({ maxNewTokens: 96, seed: 3, weights: 'int8' }), { maxNewTokens: 96 });
  assert.deepEqual(rememberedOf({ seed: 3 }), { maxNewTokens: undefined });
  const items = runOptionItems({ maxNewTokens: 96 }, AUDIT_OPTIONS, 'audit', new Set(['maxNewTokens']));
  assert.equal(items.find((i) => i.option === 'maxNewTokens')?.description, '96 (as the last run)');
  assert.equal(runOptionItems({ maxNewTokens: 96 }).find((i) => i.option === 'maxNewTokens')?.description, '96');
});

test('an option\'s box says what it takes: several values only for a list (the depth probe takes one whole number)', () => {
  assert.equal(valuePrompt(AUDIT_OPTIONS.depthProbe), 'A whole number, 1 or more.');
  assert.equal(valuePrompt(AUDIT_OPTIONS.stop), 'Several values: separated by commas.');
  assert.equal(valuePrompt(AUDIT_OPTIONS.searchC), 'A number.');
  assert.equal(valuePrompt(AUDIT_OPTIONS.system), 'One value.');
});
