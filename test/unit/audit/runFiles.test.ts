/**
 * The run files at the boundary: what the audit writes reads back into the contract's types through
 * the validating readers (no cast anywhere), and a wrong value is an error naming the file, the line
 * (records.jsonl), the field and what was expected.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { summarize } from '../../../src/audit/results/summary';
import { passAtKDeltas } from '../../../src/audit/results/passAtKDelta';
import { compareRuns, readComparison, writeComparison } from '../../../src/audit/store/comparisonStore';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { readManifest, readRecords, readSummary } from '../../../src/audit/store/runStore';
import type { QuestionRecord, RunManifest, RunSummary, StoredComparison } from '../../../src/contract';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

// out/test/unit/audit → test/fixtures/runs: folders written by `reach-audit audit` (tools/makeFixtureRuns.ts).
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/runs');
const BASE = path.join(FIXTURES, '2026-12-01T09-30-00Z-demo-base');
const TUNED = path.join(FIXTURES, '2026-12-01T10-15-00Z-demo-tuned');

async function freshRun(): Promise<string> {
  const dataset = smallDataset(12);
  const folder = tempDir();
  await runAudit({ engineVersion: 'test', dataset, questions: dataset.questions, settings: settingsFor(), name: 't', inFlight: 5, modelInfo: { path: '/m', contentHash: 'h' }, model: fakeFor(dataset), folder, resume: false });
  return folder;
}

function copyOf(folder: string): string {
  const copy = tempDir();
  fs.cpSync(folder, copy, { recursive: true });
  return copy;
}

test('a run folder the audit wrote reads back into the contract types, equal to what it holds', async () => {
  for (const folder of [await freshRun(), BASE, TUNED]) {
    const manifest: RunManifest = readManifest(folder);
    const records: QuestionRecord[] = readRecords(folder).values;
    const summary: RunSummary | undefined = readSummary(folder);
    assert.deepEqual(manifest, JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')), 'nothing dropped from the manifest');
    assert.deepEqual(records, fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l)), 'nothing dropped from a record');
    assert.deepEqual(summary, summarize(records), 'summary.json is the summary of records.jsonl');
    assert.equal(records.length, manifest.dataset.questions);
  }
});

test('comparison.json written by compare reads back as a StoredComparison', () => {
  const folder = tempDir();
  const stored = compareRuns(BASE, TUNED, () => undefined);
  writeComparison(folder, stored);
  const read: StoredComparison | undefined = readComparison(folder);
  assert.deepEqual(read, JSON.parse(JSON.stringify(stored)));
  assert.equal(read?.comparison.n, 8);
  // Ceilings along k are stored: the curves `compare` prints, read back from the file.
  assert.deepEqual(read?.comparison.passAtKDeltas, passAtKDeltas(readRecords(BASE).values, readRecords(TUNED).values));
  assert.ok((read?.comparison.passAtKDeltas ?? []).length >= 3);
});

test('a comparison.json written before Δpass@k was stored still reads; a wrong Δpass@k value names its field', () => {
  const folder = tempDir();
  writeComparison(folder, compareRuns(BASE, TUNED, () => undefined));
  const file = path.join(folder, 'comparison.json');
  const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { comparison: { passAtKDeltas?: { points: Record<string, unknown>[] }[] } };
  const curves = stored.comparison.passAtKDeltas!;
  delete stored.comparison.passAtKDeltas;
  fs.writeFileSync(file, JSON.stringify(stored));
  assert.equal(readComparison(folder)?.comparison.passAtKDeltas, undefined);
  curves[1].points[0].method = 'guess';
  fs.writeFileSync(file, JSON.stringify({ ...stored, comparison: { ...stored.comparison, passAtKDeltas: curves } }));
  assert.throws(() => readComparison(folder), { message: `${file}: field comparison.passAtKDeltas[1].points[0].method: expected 'newcombe', 'bootstrap' or 'none', got "guess"` });
});

test('a wrong value in summary.json names the file, the field and what was expected', () => {
  const folder = copyOf(BASE);
  const file = path.join(folder, 'summary.json');
  const summary = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  summary.realized.n = 'x';
  fs.writeFileSync(file, JSON.stringify(summary));
  assert.throws(() => readSummary(folder), { name: 'InputError', message: `${file}: field realized.n: expected a non-negative integer, got "x"` });

  summary.realized.n = 8;
  summary.realized.rate = 1.5;
  delete summary.reachable.routes;
  (summary.reachable as Record<string, unknown>).sample = { ...(summary.reachable.sample as object), ci: { lo: 0.9, hi: 0.1 } };
  delete (summary as Record<string, unknown>).states;
  fs.writeFileSync(file, JSON.stringify(summary));
  assert.throws(() => readSummary(folder), (err: Error) => {
    assert.match(err.message, /field realized\.rate: expected a number in \[0, 1\], got 1\.5/);
    assert.match(err.message, /field reachable\.sample\.ci: expected lo ≤ hi/);
    assert.match(err.message, /field states: missing/);
    return true;
  });
});

test('a wrong record names records.jsonl, its line and the field; a torn last line is still only a warning', () => {
  const folder = copyOf(BASE);
  const file = path.join(folder, 'records.jsonl');
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  const second = JSON.parse(lines[1]) as { realized: Record<string, unknown>; probes: Record<string, { attempts: Record<string, unknown>[] }> };
  second.realized.correct = 'yes';
  fs.writeFileSync(file, [lines[0], JSON.stringify(second), ...lines.slice(2)].join('\n') + '\n');
  assert.throws(() => readRecords(folder), { name: 'InputError', message: `${file}:2: field realized.correct: expected true or false, got "yes"` });

  second.realized.correct = false;
  second.probes.sample.attempts[3].route = [0, -1];
  fs.writeFileSync(file, [lines[0], JSON.stringify(second), ...lines.slice(2)].join('\n') + '\n');
  assert.throws(() => readRecords(folder), { message: `${file}:2: field probes.sample.attempts[3].route[1]: expected a non-negative integer, got -1` });

  fs.writeFileSync(file, lines.join('\n') + '\n' + lines[2].slice(0, 40));
  const read = readRecords(folder);
  assert.equal(read.values.length, lines.length);
  assert.match(read.warnings[0], /torn last line/);
});

test('a wrong manifest or comparison names its file and field', () => {
  const folder = copyOf(BASE);
  const file = path.join(folder, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { model: Record<string, unknown>; probes: Record<string, unknown>[] };
  // 0 is an imported log's "not known"; a negative count is wrong in any run.
  manifest.model.numBlocks = -1;
  manifest.probes[0].name = 'guess';
  fs.writeFileSync(file, JSON.stringify(manifest));
  assert.throws(() => readManifest(folder), {
    name: 'InputError',
    message: `${file}: field model.numBlocks: expected a non-negative integer, got -1; field probes[0].name: expected one of sample, routes, search, perturb, got "guess"`,
  });

  const comparisons = tempDir();
  writeComparison(comparisons, compareRuns(BASE, TUNED, () => undefined));
  const cfile = path.join(comparisons, 'comparison.json');
  const stored = JSON.parse(fs.readFileSync(cfile, 'utf8')) as { comparison: { realized: Record<string, unknown> } };
  stored.comparison.realized.mcnemarP = null;
  fs.writeFileSync(cfile, JSON.stringify(stored));
  assert.throws(() => readComparison(comparisons), { message: `${cfile}: field comparison.realized.mcnemarP: expected a number in [0, 1], got null` });
});
