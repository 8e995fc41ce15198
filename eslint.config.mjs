// ESLint flat config: typescript-eslint's recommended rules plus the architecture
// (docs/design/architecture.md). Imports point downward only:
//   src/common     errors, folder locks, folder creation, small helpers; imports only the contract
//   src/engine     the model runtime                           ← uses common
//   src/audit      datasets, grading, probes, repair, results, store, runner ← uses engine, common
//   src/service    the engine child process and the audit job ← uses audit, engine, common
//   src/cli, src/extension  the two front ends, apart from each other ← use everything below
//   webview/       the browser bundle: talks by messages, imports only the contract
//   src/contract   the run-format contract every side uses; imports nothing
// and each room (common, engine, contract, service, every src/audit subfolder) is entered through
// its door, its index.ts (`import-boundaries/through-doors`). The rooms stand on floors, drawn once
// in docs/design/architecture.md ("Floors"): `import-boundaries/floors` reads that drawing and refuses
// an import into a room on the same or a higher floor; test/unit/architecture/floors.test.ts reads
// it too and also refuses import cycles, which one file at a time cannot see.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * `import-boundaries/no-import-from`: a relative import may not resolve into the folders given
 * (except the modules or subfolders listed in `except`).
 * Resolving the path (rather than matching the import text) catches `../../src/engine` and
 * `../engine` alike without flagging a folder that merely has the same name elsewhere.
 */
const importBoundaries = {
  rules: {
    'no-import-from': {
      meta: {
        type: 'problem',
        docs: { description: 'Keep imports pointing the way the architecture says.' },
        schema: [
          {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                folder: { type: 'string' },
                reason: { type: 'string' },
                // Modules inside the folder that stay allowed (paths without extension; the folder itself
                // means its index); one ending in "/" allows that whole subfolder.
                except: { type: 'array', items: { type: 'string' } },
              },
              required: ['folder', 'reason'],
              additionalProperties: false,
            },
          },
        ],
      },
      create(context) {
        const forbidden = (context.options[0] ?? []).map(({ folder, reason, except = [] }) => ({
          folder: path.join(root, folder) + path.sep,
          reason,
          except: except.map((e) => ({ path: path.join(root, e), whole: e.endsWith('/') })),
        }));
        const allowed = (target, e) => (e.whole ? (target + path.sep).startsWith(e.path) : target === e.path);
        const check = (node, source) => {
          if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
          const target = path.resolve(path.dirname(context.filename), source.value).replace(/\.(js|ts)$/, '');
          const hit = forbidden.find((f) => (target + path.sep).startsWith(f.folder) && !f.except.some((e) => allowed(target, e)));
          if (hit) context.report({ node: source, message: `'${source.value}' is not allowed here: ${hit.reason}` });
        };
        return {
          ImportDeclaration: (node) => check(node, node.source),
          ExportNamedDeclaration: (node) => check(node, node.source),
          ExportAllDeclaration: (node) => check(node, node.source),
          ImportExpression: (node) => check(node, node.source),
          CallExpression: (node) => {
            if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
          },
        };
      },
    },
  },
};

/**
 * `import-boundaries/through-doors`: a relative import from outside a room may reach the room only
 * through its door (the room's index.ts), so a room's inner files can move without its users noticing.
 * A room is one of `rooms` (a folder; `folder/*` makes each of its subfolders a room); `except` lists
 * modules (paths without extension) that stay reachable from outside, for the importers matching `from`.
 */
const throughDoors = {
  meta: {
    type: 'problem',
    docs: { description: 'Enter a room through its index.ts.' },
    schema: [
      {
        type: 'object',
        properties: {
          rooms: { type: 'array', items: { type: 'string' } },
          except: {
            type: 'array',
            items: { type: 'object', properties: { from: { type: 'string' }, modules: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
          },
        },
        required: ['rooms'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { rooms = [], except = [] } = context.options[0] ?? {};
    const roomOf = (file) => {
      for (const room of rooms) {
        if (room.endsWith('/*')) {
          const parent = path.join(root, room.slice(0, -2)) + path.sep;
          if (file.startsWith(parent)) {
            const rest = file.slice(parent.length).split(path.sep);
            if (rest.length > 1) return parent + rest[0];
          }
        } else if (file.startsWith(path.join(root, room) + path.sep)) return path.join(root, room);
      }
      return null;
    };
    const self = roomOf(context.filename);
    const allowed = except
      .filter((e) => context.filename.startsWith(path.join(root, e.from ?? '')))
      .flatMap((e) => (e.modules ?? []).map((m) => path.join(root, m)));
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source.value).replace(/\.(js|ts)$/, '');
      const room = roomOf(target + '.ts');
      if (!room || room === self || target === room || target === path.join(room, 'index') || allowed.includes(target)) return;
      const door = path.relative(root, room).split(path.sep).join('/');
      context.report({ node: source, message: `'${source.value}' goes past the door of ${door}: import from ${door} (its index.ts), exporting the name there if needed.` });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};
importBoundaries.rules['through-doors'] = throughDoors;

/** The floors of docs/design/architecture.md's "Floors" drawing, lowest first: each the rooms (folders) on one line. */
function floorOrder() {
  const design = fs.readFileSync(path.join(root, 'docs/design/architecture.md'), 'utf8');
  const at = design.indexOf('**Floors.**');
  const block = at >= 0 ? /```\n([\s\S]*?)```/.exec(design.slice(at)) : null;
  if (!block) throw new Error('docs/design/architecture.md has no "Floors" drawing, which eslint.config.mjs reads');
  return block[1]
    .split('\n')
    .map((line) => line.split(/\s+/).filter((word) => /^(src|webview)\//.test(word)))
    .filter((rooms) => rooms.length > 0)
    .reverse();
}

/**
 * `import-boundaries/floors`: a relative import (type-only ones too) from one room into another must
 * go to a lower floor of the drawing. A file's room is the longest room path that holds it.
 */
const floors = {
  meta: {
    type: 'problem',
    docs: { description: 'Import only from rooms on lower floors (docs/design/architecture.md, "Floors").' },
    schema: [],
  },
  create(context) {
    const order = floorOrder();
    const drawing = [...order].reverse().map((rooms) => rooms.join(' ')).join(' / ');
    const placeOf = (file) => {
      let best = null;
      order.forEach((rooms, floor) => {
        for (const room of rooms) {
          if ((file + path.sep).startsWith(path.join(root, room) + path.sep) && (!best || room.length > best.room.length)) best = { floor, room };
        }
      });
      return best;
    };
    const from = placeOf(context.filename);
    const relative = (file) => path.relative(root, file).split(path.sep).join('/');
    const check = (node, source) => {
      if (!from || !source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source.value).replace(/\.(js|ts)$/, '');
      const to = placeOf(target);
      if (!to || to.room === from.room || to.floor < from.floor) return;
      const where = to.floor === from.floor ? `on the same floor as ${from.room}` : `on a higher floor than ${from.room}`;
      context.report({
        node: source,
        message: `${relative(context.filename)} may not import ${relative(target)}: ${to.room} stands ${where}. Move what it needs to a lower floor. Floors, top first (docs/design/architecture.md): ${drawing}`,
      });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
    };
  },
};
importBoundaries.rules['floors'] = floors;

const noVscode = {
  name: 'vscode',
  message: 'src/engine and src/audit run outside VS Code (CLI, engine child process); only src/extension may import vscode.',
};

export default defineConfig(
  {
    ignores: ['out/**', 'dist/**', 'node_modules/**', 'media/**', '.reach-audit/**', '.vscode-test/**', '*.vsix'],
  },
  ...tseslint.configs.recommended,
  {
    // .js files here are CommonJS scripts run by Node directly (esbuild.js and its plugins).
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    plugins: { 'import-boundaries': importBoundaries },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // `any` needs a comment saying why (house style); the disable comment is that place.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'webview/**/*.ts'],
    rules: {
      'import-boundaries/through-doors': ['error', { rooms: ['src/common', 'src/engine', 'src/contract', 'src/service', 'src/audit/*'] }],
      'import-boundaries/floors': 'error',
    },
  },
  {
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noVscode] }],
      'import-boundaries/no-import-from': [
        'error',
        [
          { folder: 'src/audit', reason: 'the engine sits below the audit layer' },
          { folder: 'src/service', reason: 'the engine sits below the engine service' },
          { folder: 'src/cli', reason: 'the engine sits below the CLI' },
          { folder: 'src/extension', reason: 'the engine sits below the extension' },
          { folder: 'webview', reason: 'the webview is a separate browser bundle' },
        ],
      ],
    },
  },
  {
    files: ['src/audit/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noVscode] }],
      'import-boundaries/no-import-from': [
        'error',
        [
          { folder: 'src/cli', reason: 'the audit layer sits below the CLI' },
          { folder: 'src/extension', reason: 'the audit layer sits below the extension' },
          { folder: 'src/service', reason: 'the audit layer sits below the engine service' },
          { folder: 'webview', reason: 'the webview is a separate browser bundle' },
        ],
      ],
    },
  },
  {
    // The engine service (child-process protocol, codec, client) sits between the front ends and
    // the audit: the CLI's `serve` and the extension both use it; it uses neither.
    files: ['src/service/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ ...noVscode, message: 'the engine service runs outside VS Code too.' }] }],
      'import-boundaries/no-import-from': [
        'error',
        [
          {
            folder: 'src/engine',
            reason: "go through the engine's entry module (src/engine/index.ts); where loading the runtime would be wasted, take errors and the engine's limits from src/common",
            except: ['src/engine', 'src/engine/index'],
          },
          { folder: 'src/cli', reason: 'the service sits below the CLI' },
          { folder: 'src/extension', reason: 'the service sits below the extension' },
          { folder: 'webview', reason: 'the webview is a separate browser bundle' },
        ],
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ ...noVscode, message: 'the CLI runs without VS Code.' }] }],
      'import-boundaries/no-import-from': [
        'error',
        [
          {
            folder: 'src/engine',
            reason: "go through the engine's entry module (src/engine/index.ts); where loading the runtime would be wasted, take errors from src/common and types with `import type`",
            except: ['src/engine', 'src/engine/index'],
          },
          { folder: 'src/extension', reason: 'the CLI and the extension are separate front ends' },
          { folder: 'webview', reason: 'the webview is a separate browser bundle' },
        ],
      ],
    },
  },
  {
    // The VS Code side: commands, views, webview hosts, editor integration. It starts the engine as a
    // child process (src/service) and never loads the model runtime on the extension host's thread.
    files: ['src/extension/**/*.ts'],
    rules: {
      'import-boundaries/no-import-from': [
        'error',
        [
          { folder: 'src/engine', reason: 'the extension runs the engine in a child process (src/service), never on its own thread' },
          { folder: 'src/cli', reason: 'the CLI and the extension are separate front ends' },
          { folder: 'webview', reason: 'the webview is a separate browser bundle; the extension talks to it by messages' },
        ],
      ],
    },
  },
  {
    // The measurement harness (`reach-audit bench`, its own bundle dist/bench.js): a front end of the CLI's kind.
    files: ['src/bench/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ ...noVscode, message: 'the bench runs without VS Code.' }] }],
      'import-boundaries/no-import-from': [
        'error',
        [
          { folder: 'src/extension', reason: 'the bench is a CLI tool' },
          { folder: 'webview', reason: 'the webview is a separate browser bundle' },
        ],
      ],
    },
  },
  {
    // Shared by every Node side, so it sits below all of them and uses only the contract.
    files: ['src/common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noVscode] }],
      'import-boundaries/no-import-from': [
        'error',
        [
          { folder: 'src', except: ['src/common/', 'src/contract/'], reason: 'src/common sits below every other folder but the contract' },
          { folder: 'webview', reason: 'the webview is a separate browser bundle' },
        ],
      ],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'the webview runs in a browser frame; it talks to the extension by messages.' }] },
      ],
      'import-boundaries/no-import-from': [
        'error',
        [{ folder: 'src', except: ['src/contract/'], reason: 'the webview talks to the extension by messages; of src/ it imports only the run-format contract' }],
      ],
    },
  },
  {
    // The run-format contract: types and pure derivations shared by every side, the browser bundle
    // included, so it imports nothing outside its folder (no Node module, no package).
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^[^.]', message: 'src/contract imports nothing outside its folder: every side (the webview too) uses it.' }] }],
      'import-boundaries/no-import-from': [
        'error',
        [
          { folder: 'src', except: ['src/contract/'], reason: 'src/contract imports nothing outside its folder' },
          { folder: 'webview', reason: 'src/contract imports nothing outside its folder' },
          { folder: 'test', reason: 'src/contract imports nothing outside its folder' },
        ],
      ],
    },
  },
);
