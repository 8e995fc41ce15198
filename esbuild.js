// Builds the bundles of Reach Audit:
//   dist/extension.js  the VS Code extension (Node, CommonJS; vscode is provided by VS Code)
//   dist/cli.js        the reach-audit command, also the engine child process (Node, executable)
//   dist/bench.js      `reach-audit bench`, the measurement harness (with the stage-by-stage baseline
//                      runner): a development tool, loaded by dist/cli.js when asked for, left out of the package
//   dist/tokenChoiceWorker.js  the engine's worker thread that chooses half of a step's tokens
//   dist/computeEngine.js  the computer-algebra library of the grader, required on first use
//   dist/webview/      the panel UI (browser, IIFE) from webview/src/main.ts, and the Tables page
//                      from webview/src/tables/main.ts
// Usage: node esbuild.js [--production] [--watch]
//   --production  minified, no source maps (what `vsce package` ships)
//   --watch       rebuild on change until interrupted
'use strict';
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const root = __dirname;

/** Prints esbuild's problems in the file:line:col form editors and problem matchers understand. */
const reportProblems = (name) => ({
  name: 'report-problems',
  setup(build) {
    let started = 0;
    build.onStart(() => {
      started = Date.now();
      // The start of a rebuild, for the watch task's problem matcher (.vscode/tasks.json).
      if (watch) console.log(`[esbuild] ${name} build started`);
    });
    build.onEnd((result) => {
      for (const { text, location } of [...result.errors, ...result.warnings]) {
        const where = location ? `${location.file}:${location.line}:${location.column + 1}: ` : '';
        console.error(`${where}${text}`);
      }
      const state = result.errors.length ? `failed with ${result.errors.length} error(s)` : 'built';
      console.log(`[esbuild] ${name} ${state} in ${Date.now() - started} ms`);
    });
  },
});

/** Makes dist/cli.js executable, as the package.json `bin` entry needs. */
const executable = (file) => ({
  name: 'executable',
  setup(build) {
    build.onEnd((result) => {
      if (!result.errors.length && fs.existsSync(file)) fs.chmodSync(file, 0o755);
    });
  },
});

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'silent',
  absWorkingDir: root,
  define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
};

// onnxruntime-node loads native binaries relative to its own folder, so it stays in node_modules.
const nodeExternals = ['vscode', 'onnxruntime-node'];

/**
 * The computer-algebra library the grader compares symbolic answers with (@cortex-js/compute-
 * engine, 3.4 MB minified) is its own bundle, dist/computeEngine.js, which the CLI and the
 * extension require from beside themselves only when a comparison first needs it
 * (symbolicEquality.ts). Inside dist/cli.js it would be parsed at every start of every command and
 * engine process: 0.15-0.19 s -> 0.4 s and +40 MB for `reach-audit --help`.
 */
const computerAlgebraApart = {
  name: 'computer-algebra-apart',
  setup(build) {
    build.onResolve({ filter: /^@cortex-js\/compute-engine$/ }, () => ({ path: './computeEngine.js', external: true }));
  },
};

const builds = [
  {
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    plugins: [computerAlgebraApart, reportProblems('extension')],
  },
  {
    ...common,
    // src/cli/main.ts starts with `#!/usr/bin/env node`, which esbuild keeps as the first line.
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    plugins: [computerAlgebraApart, reportProblems('cli'), executable(path.join(root, 'dist/cli.js'))],
  },
  {
    ...common,
    // `reach-audit bench`: the measurement harness (src/bench, with the stage-by-stage baseline runner),
    // its own bundle, which dist/cli.js requires from beside itself by path only for `bench`
    // (src/cli/main.ts); it exports benchCommand. The package leaves it out (.vscodeignore).
    entryPoints: ['src/bench/bench.ts'],
    outfile: 'dist/bench.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    plugins: [computerAlgebraApart, reportProblems('bench')],
  },
  {
    ...common,
    // The computer-algebra library, loaded on first use by the CLI and the extension (above).
    entryPoints: [require.resolve('@cortex-js/compute-engine')],
    outfile: 'dist/computeEngine.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [reportProblems('computer algebra')],
  },
  {
    ...common,
    // The engine's token-choice worker thread (tokenChoicePool.ts loads it from beside the bundle).
    entryPoints: ['src/engine/sampling/tokenChoiceWorker.ts'],
    outfile: 'dist/tokenChoiceWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [reportProblems('token-choice worker')],
  },
];

builds.push({
  ...common,
  // The audit panel (main) and the Tables page (cross-run tables, training trajectory).
  entryPoints: { main: 'webview/src/main.ts', tables: 'webview/src/tables/main.ts' },
  outdir: 'dist/webview',
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  // Fonts and icons referenced from CSS travel with the bundle (no remote loads in the webview).
  loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file', '.png': 'file' },
  // The webview's own esbuild plugin (CSP-safe toolkit), owned by webview/.
  plugins: [require('./webview/cspSafeToolkit.js').cspSafeToolkit, reportProblems('webview')],
});

async function main() {
  if (watch) {
    const contexts = await Promise.all(builds.map((options) => esbuild.context(options)));
    await Promise.all(contexts.map((context) => context.watch()));
    console.log('[esbuild] watching for changes (Ctrl-C to stop)');
    return;
  }
  const results = await Promise.allSettled(builds.map((options) => esbuild.build(options)));
  if (results.some((r) => r.status === 'rejected')) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
