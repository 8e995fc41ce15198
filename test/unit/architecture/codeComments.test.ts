/**
 * Comments in the product's code say why the code is so, not which issue changed it: no source file
 * under src/ or webview/src/ cites an issue number, and every `as unknown as` (which turns the type
 * checker off for a value) has a comment beside it saying why it is sound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Compiled, this file is out/test/unit/architecture/codeComments.test.js.
const root = path.resolve(__dirname, '../../../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) ? [rel] : [];
  });
}

const FILES = [...sourceFiles('src'), ...sourceFiles('webview/src')].sort();

/** "issue 40", "Issue #32", "issues 12": a reference to this project's tracker. */
const ISSUE_NUMBER = /\bissues?\s*#?\s*\d+/i;

test('no comment in src/ or webview/src/ cites an issue number', () => {
  assert.ok(FILES.length > 100, `only ${FILES.length} source files found`);
  const found: string[] = [];
  for (const file of FILES) {
    fs.readFileSync(path.join(root, file), 'utf8').split('\n').forEach((line, i) => {
      if (ISSUE_NUMBER.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, [], 'say why the code is so instead of which issue changed it');
});

test('every `as unknown as` in src/ and webview/src/ has a comment saying why', () => {
  const found: string[] = [];
  for (const file of FILES) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (!line.includes('as unknown as')) return;
      const commented = /\/\/|\/\*/.test(line.slice(line.indexOf('as unknown as'))) || /^\s*(\/\/|\*|\/\*)/.test(lines[i - 1] ?? '');
      if (!commented) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

test('the issue-number pattern finds the forms it should and not a commit or an upstream pull request', () => {
  for (const text of ['(issue 40 point 9)', "issue 32's time left", 'Issue #7', 'issues 12 and 13']) assert.match(text, ISSUE_NUMBER);
  for (const text of ['PR #709', 'commit 9288bd84', 'an issue with 3 parts is']) assert.doesNotMatch(text, ISSUE_NUMBER);
});
