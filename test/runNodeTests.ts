/**
 * Runs the compiled node:test files of one test area: `node out/test/runNodeTests.js unit`
 * (or `integration`, or a sub-area such as `unit/engine`); extra arguments go to `node --test`.
 *
 * Why not plain `node --test out/test/unit/`: a fresh clone may have no tests in an area yet, which
 * must not fail the run, and `tsc` never deletes the output of a test file that was removed or
 * renamed, so only compiled files whose test/<area>/**\/*.test.ts source still exists are run.
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
  console.log(`No ${area} tests yet (none under test/${area}/**/*.test.ts); nothing to run.`);
  process.exit(0);
}

const result = spawnSync(process.execPath, ['--test', ...nodeArgs, ...files], { stdio: 'inherit', cwd: repoRoot });
process.exit(result.status ?? 1);
