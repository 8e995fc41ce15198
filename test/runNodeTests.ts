/**
 * Runs the compiled node:test files of one test area: `node out/test/runNodeTests.js unit`
 * (or `integration`, or a sub-area such as `unit/engine`); extra arguments go to `node --test`.
 *
 * Why not plain `node --test out/test/unit/`: `tsc` never deletes the output of a test file that was
 * removed or renamed, so only compiled files whose test/<area>/**\/*.test.ts source still exists are
 * run. An area with no tests fails: a misspelt area, or a build that compiled nothing, must not pass.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const [area, ...nodeArgs] = process.argv.slice(2);
if (!area || area.startsWith('-')) {
  console.error('usage: node out/test/runNodeTests.js <area> [node --test options]   (area: unit, integration, unit/engine, …)');
  process.exit(2);
}

function compiledTests(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return compiledTests(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

const outDir = path.join(repoRoot, 'out', 'test', area);
const files = compiledTests(outDir)
  .filter((file) => {
    const source = path.join(repoRoot, path.relative(path.join(repoRoot, 'out'), file)).replace(/\.js$/, '.ts');
    return existsSync(source);
  })
  .sort();

if (files.length === 0) {
  console.error(`No ${area} tests found: no out/test/${area}/**/*.test.js with its test/${area}/**/*.test.ts source (is the area right, and did \`tsc -p .\` run?).`);
  process.exit(1);
}

const result = spawnSync(process.execPath, ['--test', ...nodeArgs, ...files], { stdio: 'inherit', cwd: repoRoot });
process.exit(result.status ?? 1);
