/**
 * docs/design/architecture.md's "Where things are" map names every source folder: a folder added under src/ or
 * webview/src/ without its line there (or a line left for a folder that is gone) fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Compiled, this file is out/test/unit/architecture/whereThingsAre.test.js.
const root = path.resolve(__dirname, '../../../..');

/** Folders under `dir` (itself included) that hold a .ts file somewhere below them, repository-relative. */
function sourceFolders(dir: string): string[] {
  const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  const below = entries.filter((e) => e.isDirectory()).flatMap((e) => sourceFolders(`${dir}/${e.name}`));
  const hasSource = below.length > 0 || entries.some((e) => e.isFile() && e.name.endsWith('.ts'));
  return hasSource ? [dir, ...below] : [];
}

/** The folders the map names: the first word of each line of the code block after "Where things are". */
function mappedFolders(): string[] {
  const design = fs.readFileSync(path.join(root, 'docs/design/architecture.md'), 'utf8');
  const at = design.indexOf('**Where things are.**');
  assert.ok(at >= 0, 'docs/design/architecture.md has no "Where things are" map');
  const block = /```\n([\s\S]*?)```/.exec(design.slice(at));
  assert.ok(block, 'the "Where things are" map has no code block');
  return block[1].split('\n').filter((line) => line.trim() !== '').map((line) => line.split(/\s+/)[0]);
}

test('the "Where things are" map in docs/design/architecture.md has one line for each source folder, and none for a folder that is gone', () => {
  const tree = [...sourceFolders('src').filter((f) => f !== 'src'), ...sourceFolders('webview/src')].sort();
  const mapped = mappedFolders();
  assert.deepEqual(
    tree.filter((f) => !mapped.includes(f)),
    [],
    'folders without a line in the map (docs/design/architecture.md)',
  );
  assert.deepEqual(
    mapped.filter((f) => !tree.includes(f)),
    [],
    'lines of the map for folders that do not exist',
  );
  assert.equal(new Set(mapped).size, mapped.length, 'a folder named twice in the map');
});
