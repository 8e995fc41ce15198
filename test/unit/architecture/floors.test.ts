/**
 * The floors of docs/design/architecture.md: every import in src/ and webview/src (type-only ones
 * included) goes from a room to a room on a lower floor, and no chain of imports comes back to the
 * file it started from. The floor order is read from the design document, where it is written once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

// Compiled, this file is out/test/unit/architecture/floors.test.js.
const root = path.resolve(__dirname, '../../../..');

/** The floors, lowest first; each floor is the rooms (folders) on one line of the "Floors" drawing, which lists the top floor first. */
function floorOrder(): string[][] {
  const design = fs.readFileSync(path.join(root, 'docs/design/architecture.md'), 'utf8');
  const at = design.indexOf('**Floors.**');
  assert.ok(at >= 0, 'docs/design/architecture.md has no "Floors" drawing');
  const block = /```\n([\s\S]*?)```/.exec(design.slice(at));
  assert.ok(block, 'the "Floors" drawing has no code block');
  const floors = block[1]
    .split('\n')
    .map((line) => line.split(/\s+/).filter((word) => /^(src|webview)\//.test(word)))
    .filter((rooms) => rooms.length > 0);
  return floors.reverse();
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Each file's relative imports of other source files: import, import type, export … from, import(), require(). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported = ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true).importedFiles;
    const targets: string[] = [];
    for (const { fileName } of imported) {
      if (!fileName.startsWith('.')) continue;
      const base = path.posix.join(path.posix.dirname(file), fileName).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => known.has(candidate));
      // A relative import that names no source file is data (.json, .css) rather than code.
      if (target && target !== file) targets.push(target);
    }
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The floor and room of a file: the longest room path that holds it. */
function placeOf(floors: readonly string[][], file: string): { floor: number; room: string } | undefined {
  let best: { floor: number; room: string } | undefined;
  floors.forEach((rooms, floor) => {
    for (const room of rooms) {
      if (file.startsWith(room + '/') && (!best || room.length > best.room.length)) best = { floor, room };
    }
  });
  return best;
}

/** One cycle through each strongly connected group of files (Tarjan), as the files in import order, and the group's size. */
function cycles(graph: Map<string, string[]>): { cycle: string[]; files: number }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.map((group) => ({ cycle: shortestCycle(graph, group), files: group.length }));
}

/** Within a group of files that reach each other, the shortest way from its first file back to itself (breadth first). */
function shortestCycle(graph: Map<string, string[]>, group: readonly string[]): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0];
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const way = [v];
        while (way[0] !== start) way.unshift(from.get(way[0])!);
        return [...way, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...group, group[0]];
}

const floors = floorOrder();
const files = [...sourceFiles('src'), ...sourceFiles('webview/src')].sort();
const graph = importGraph(files);
const drawing = [...floors].reverse().map((rooms) => rooms.join('  ')).join(' / ');
const orderNote = `the floor order (docs/design/architecture.md, "Floors", top first): ${drawing}`;

test('every source file is in a room of the floor order', () => {
  assert.deepEqual(
    files.filter((f) => !placeOf(floors, f)),
    [],
    `files in no room of the floor order: add their folder to ${orderNote}`,
  );
});

test('no room is on two floors, and no floor names a folder that holds no source', () => {
  const rooms = floors.flat();
  assert.equal(new Set(rooms).size, rooms.length, `a room named twice in ${orderNote}`);
  assert.deepEqual(
    rooms.filter((room) => !files.some((f) => f.startsWith(room + '/'))),
    [],
    `rooms without source files in ${orderNote}`,
  );
});

test('every import goes down: from a room to a room on a lower floor (type-only imports too)', () => {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const from = placeOf(floors, file);
    if (!from) continue;
    for (const target of targets) {
      const to = placeOf(floors, target);
      if (!to || to.room === from.room || to.floor < from.floor) continue;
      const how = to.floor === from.floor ? 'a room on its own floor' : 'a room on a higher floor';
      upward.push(`${file} imports ${target}: ${from.room} may not import ${to.room} (${how})`);
    }
  }
  assert.deepEqual(upward, [], `imports that do not go down; move what they need to a lower floor. ${orderNote}`);
});

test('no import cycle between files (type-only imports too)', () => {
  const found = cycles(graph).map(({ cycle, files }) => `${cycle.join(' → ')} (${files} files in this circle)`);
  assert.deepEqual(found, [], `import cycles (break each by moving the shared names to the lower file's floor). ${orderNote}`);
});
