/**
 * Regenerates the fixture runs under test/fixtures/runs from real audit output, so the tests read
 * exactly what `reach-audit audit` writes and the fixtures cannot drift from the audit:
 *
 *   npm run build && npx tsc -p . && node out/tools/makeFixtureRuns.js
 *
 * It audits the first 8 questions of the bundled arithmetic benchmark with the bundled demo pair
 * (base, tuned), then makes the files machine-independent: model and dataset paths relative to the
 * repository, a fixed createdAt, no timings.json. The unfinished run is the base run stopped while
 * writing its fourth record: its first three lines and half of the fourth, no summary.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const OUT = path.join(ROOT, 'test', 'fixtures', 'runs');
const DATA = 'media/demo/data/arith-test.jsonl';

interface FixtureRun {
  folder: string;
  name: string;
  model: string;
  createdAt: string;
}

const RUNS: FixtureRun[] = [
  { folder: '2026-12-01T09-30-00Z-demo-base', name: 'demo-base', model: 'media/demo/base', createdAt: '2026-12-01T09:30:00.000Z' },
  { folder: '2026-12-01T10-15-00Z-demo-tuned', name: 'demo-tuned', model: 'media/demo/tuned', createdAt: '2026-12-01T10:15:00.000Z' },
];
const UNFINISHED = { folder: '2026-12-01T11-00-00Z-demo-base-rerun', name: 'demo-base-rerun', createdAt: '2026-12-01T11:00:00.000Z', keep: 3 };

/** The audit's own settings for the fixtures: small enough to run in seconds, every part of a record present. */
const AUDIT_ARGS = ['--limit', '8', '--probe', 'sample:4', '--probe', 'routes:4', '--select', 'majority,confidence', '--repair', '--max-new-tokens', '64', '--seed', '0'];

function audit(run: FixtureRun, scratch: string): void {
  const out = path.join(scratch, run.folder);
  execFileSync(process.execPath, [CLI, 'audit', '--model', run.model, '--data', DATA, ...AUDIT_ARGS, '--name', run.name, '--out', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  // Machine-independent: paths relative to the repository (the workspace the panel resolves them in), a fixed time.
  const manifestFile = path.join(out, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { createdAt: string; model: { path: string }; dataset: { path: string } };
  manifest.createdAt = run.createdAt;
  manifest.model.path = path.relative(ROOT, manifest.model.path).split(path.sep).join('/');
  manifest.dataset.path = path.relative(ROOT, manifest.dataset.path).split(path.sep).join('/');
  fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
  fs.rmSync(path.join(out, 'timings.json'), { force: true });
  const target = path.join(OUT, run.folder);
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(out, target, { recursive: true });
}

function unfinished(from: string): void {
  const target = path.join(OUT, UNFINISHED.folder);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(from, 'manifest.json'), 'utf8')) as { name: string; createdAt: string };
  manifest.name = UNFINISHED.name;
  manifest.createdAt = UNFINISHED.createdAt;
  fs.writeFileSync(path.join(target, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  const lines = fs.readFileSync(path.join(from, 'records.jsonl'), 'utf8').split('\n');
  const torn = lines[UNFINISHED.keep].slice(0, Math.floor(lines[UNFINISHED.keep].length / 2));
  fs.writeFileSync(path.join(target, 'records.jsonl'), lines.slice(0, UNFINISHED.keep).join('\n') + '\n' + torn);
}

function main(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-fixtures-'));
  try {
    for (const run of RUNS) audit(run, scratch);
    unfinished(path.join(OUT, RUNS[0].folder));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`wrote ${[...RUNS.map((r) => r.folder), UNFINISHED.folder].join(', ')} under ${path.relative(ROOT, OUT)}\n`);
}

main();
