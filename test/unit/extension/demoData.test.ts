/**
 * Walkthrough defect 8: the demo audited the copy of the data inside the extension's install
 * folder, so the user's copy showed no marks. The demo now audits a copy in the workspace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO_DATA_FOLDER, demoDataFile } from '../../../src/extension/commands/demoData';

function fixture(): { bundled: string; workspace: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-data-'));
  const bundled = path.join(root, 'ext', 'media', 'demo', 'data', 'arith-test.jsonl');
  fs.mkdirSync(path.dirname(bundled), { recursive: true });
  fs.writeFileSync(bundled, '{"question":"1+1","answer":"#### 2"}\n');
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  return { bundled, workspace };
}

test('the demo data is copied into the workspace once, and the copy is audited', () => {
  const { bundled, workspace } = fixture();
  const copy = demoDataFile(bundled, workspace);
  assert.equal(copy, path.join(workspace, DEMO_DATA_FOLDER, 'arith-test.jsonl'));
  assert.ok(!copy.startsWith(path.dirname(bundled)));
  assert.equal(fs.readFileSync(copy, 'utf8'), fs.readFileSync(bundled, 'utf8'));
  // Again: the same copy (its marks stay on the file the user has open).
  assert.equal(demoDataFile(bundled, workspace), copy);
});

test('a different file of that name is left alone: the copy gets a numbered name', () => {
  const { bundled, workspace } = fixture();
  const mine = path.join(workspace, DEMO_DATA_FOLDER, 'arith-test.jsonl');
  fs.mkdirSync(path.dirname(mine), { recursive: true });
  fs.writeFileSync(mine, 'my own edits\n');
  const copy = demoDataFile(bundled, workspace);
  assert.equal(copy, path.join(workspace, DEMO_DATA_FOLDER, 'arith-test-2.jsonl'));
  assert.equal(fs.readFileSync(mine, 'utf8'), 'my own edits\n');
});

test('no workspace folder: the bundled file', () => {
  const { bundled } = fixture();
  assert.equal(demoDataFile(bundled, undefined), bundled);
});
