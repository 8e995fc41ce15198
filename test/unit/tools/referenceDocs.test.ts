/**
 * The generated references under docs/reference/ equal a fresh generation: a flag, a setting or a
 * run-file field changed without `npm run docs` fails here, naming the file and the command.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generatedReferences, REGENERATE, REPOSITORY_ROOT } from '../../../tools/referenceDocs/generatedReferences';
import { settingsReference } from '../../../tools/referenceDocs/settingsReference';

test('every generated reference in docs/reference equals a fresh generation', async () => {
  const fresh = await generatedReferences();
  assert.deepEqual([...fresh.keys()].sort(), ['docs/reference/cli.md', 'docs/reference/run-format.md', 'docs/reference/settings.md']);
  for (const [file, text] of fresh) {
    const target = path.join(REPOSITORY_ROOT, file);
    assert.ok(fs.existsSync(target), `${file} is missing: run ${REGENERATE}`);
    // Compared whole: a message naming the file beats a 2,000-line diff.
    assert.ok(fs.readFileSync(target, 'utf8') === text, `${file} differs from a fresh generation: run ${REGENERATE}`);
    // Nothing of this machine in them (the same text on every checkout).
    assert.ok(!text.includes(REPOSITORY_ROOT), `${file} names this checkout's folder`);
  }
});

test('a setting added to package.json shows in the settings reference', () => {
  const pkg = { contributes: { configuration: [{ title: 'Group A', properties: { 'reachAudit.x': { type: 'number', default: 3, minimum: 1, markdownDescription: 'The `x` | count.' } } }] } };
  const text = settingsReference(pkg);
  assert.match(text, /## Group A/);
  assert.match(text, /### `reachAudit\.x`\n\ntype: number · default: `3` · range: ≥ 1\n\nThe `x` \| count\./);
});
