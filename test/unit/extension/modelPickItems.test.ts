/**
 * The model pickers offer the bundled demo pair (they offered only a folder browser, so a new user
 * had to find media/demo inside the installed extension).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { modelPickItems } from '../../../src/extension/commands/modelPickItems';

const DEMO = '/ext/media/demo';

test('an audit or a base checkpoint: the demo base first, then the trained one, then Browse…', () => {
  for (const role of ['model', 'base'] as const) {
    const items = modelPickItems(role, DEMO, undefined);
    assert.deepEqual(items.map((i) => [i.label, i.folder]), [
      ['$(beaker) Demo: base model', path.join(DEMO, 'base')],
      ['$(beaker) Demo: trained model', path.join(DEMO, 'tuned')],
      ['$(folder-opened) Browse…', undefined],
    ]);
    assert.match(items[0].description!, /^bundled with Reach Audit/);
  }
});

test("a comparison's trained side: the demo's trained model first", () => {
  assert.deepEqual(modelPickItems('tuned', DEMO, undefined).map((i) => i.folder), [path.join(DEMO, 'tuned'), path.join(DEMO, 'base'), undefined]);
});

test('the last pick leads; a demo folder already last picked is not offered twice; no demo folder, no demo items', () => {
  assert.deepEqual(modelPickItems('model', DEMO, '/models/mine').map((i) => [i.label, i.description]).slice(0, 2), [['$(history) mine', 'last picked'], ['$(beaker) Demo: base model', 'bundled with Reach Audit: a tiny arithmetic model to try it with']]);
  assert.deepEqual(modelPickItems('model', DEMO, path.join(DEMO, 'base')).map((i) => i.folder), [path.join(DEMO, 'base'), path.join(DEMO, 'tuned'), undefined]);
  assert.deepEqual(modelPickItems('model', undefined, undefined).map((i) => i.label), ['$(folder-opened) Browse…']);
});

test('the demo folders the picker names are the ones the extension ships', () => {
  const root = path.resolve(__dirname, '..', '..', '..', '..');
  for (const item of modelPickItems('model', path.join(root, 'media', 'demo'), undefined).filter((i) => i.folder)) {
    assert.ok(fs.existsSync(path.join(item.folder!, 'config.json')), `${item.folder} is a model folder`);
  }
});
