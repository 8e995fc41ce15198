import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSettingNames } from '../../../src/extension/commands/settingNames';
import { failureActions } from '../../../src/extension/commands/failureActions';
import { optionsFromSettings } from '../../../src/service';

test('an engine message names the settings in place of their flags, each once, and offers Open Settings', () => {
  const message = 'the default KV budget, 300 KiB: lower --max-new-tokens or --max-route-length, free memory, or set the budget yourself with --kv-memory SIZE (at least 480 KiB) or --kv-memory off (no budget: --max-batch alone)';
  const named = withSettingNames(message);
  assert.equal(named.text, 'the default KV budget, 300 KiB: lower reachAudit.maxNewTokens or reachAudit.maxRouteLength, free memory, or set the budget yourself with reachAudit.maxKVCacheMemory SIZE (at least 480 KiB) or reachAudit.maxKVCacheMemory off (no budget: reachAudit.maxBatch alone)');
  assert.deepEqual(named.settings, ['reachAudit.maxNewTokens', 'reachAudit.maxRouteLength', 'reachAudit.maxKVCacheMemory', 'reachAudit.maxBatch']);
  assert.deepEqual(failureActions(message, true), ['Open Settings', 'Show Log']);
});

test('flags that are no setting (the dataset, a shard) and other dashes stay as they are', () => {
  const named = withSettingNames('--data x.jsonl: no such file; --shard 1/2 is the command line\'s; a well-known value −5 -- ok');
  assert.equal(named.text, '--data x.jsonl: no such file; --shard 1/2 is the command line\'s; a well-known value −5 -- ok');
  assert.deepEqual(named.settings, []);
  assert.deepEqual(failureActions('--data x.jsonl: no such file'), ['Show Log']);
});

test('the KV budget setting: its new name titles as "Max KV Cache Memory"; the former reachAudit.kvMemory is still read', () => {
  const read = (values: Record<string, unknown>) => optionsFromSettings((k) => values[k], (p) => p).options.kvMemory;
  assert.equal(read({ maxKVCacheMemory: '2G' }), '2G');
  assert.equal(read({ maxKVCacheMemory: '', kvMemory: '512M' }), '512M', 'a settings.json from before keeps working');
  assert.equal(read({ maxKVCacheMemory: '1G', kvMemory: '512M' }), '1G', 'the new name wins');
  // VS Code's settings editor splits a key where lower case meets upper case and keeps capitals together.
  const title = 'maxKVCacheMemory'.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]{1,})([A-Z][a-z])/g, '$1 $2').replace(/^[a-z]/, (c) => c.toUpperCase());
  assert.equal(title, 'Max KV Cache Memory');
});
