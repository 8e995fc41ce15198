/**
 * A run that reuses the model folder last picked in the workspace says so, and why (issue 40 point 9:
 * it was reused silently while reachAudit.modelPath was empty and its description promised a picker).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reusedModelNote } from '../../../src/extension/commands/reusedModelNote';

test('names the reused folder and that the setting is empty, with how to pick another', () => {
  const note = reusedModelNote('model', '/models/demo-base', undefined);
  assert.equal(note, 'Reach Audit: using the model demo-base (/models/demo-base), the folder last picked in this workspace — reachAudit.modelPath is empty. Select Model… picks another.');
});

test('says when the last pick wins over a setting that names another folder', () => {
  assert.match(reusedModelNote('base', '/models/a', '/models/b'), /base checkpoint a .* the last pick comes before reachAudit\.baseModelPath \(\/models\/b\)\. Pick Another…/);
  assert.match(reusedModelNote('tuned', '/models/a', '/models/a'), /it is also reachAudit\.tunedModelPath/);
});

test("the modelPath setting's description no longer promises a picker whenever it is empty", () => {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { markdownDescription?: string }> }[] } };
  const props = Object.assign({}, ...pkg.contributes.configuration.map((g) => g.properties)) as Record<string, { markdownDescription?: string }>;
  assert.match(String(props['reachAudit.modelPath'].markdownDescription), /last picked in this workspace .* comes first/);
  assert.doesNotMatch(String(props['reachAudit.modelPath'].markdownDescription), /Empty: \*\*Reach Audit: Select Model\*\* or a folder picker asks/);
});
