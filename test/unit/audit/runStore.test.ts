import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as esbuild from 'esbuild';
import { InputError } from '../../../src/common/errors';
import { JsonLinesAppender, latestRunFolder, newRunFolder, prepareRunFolder, readJsonLines, readRecords } from '../../../src/audit/store/runStore';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
/** The conventional uid and gid of the user nobody. */
const NOBODY = 65534;

test('a torn last line is ignored with a warning; a complete last line without newline is kept', () => {
  const dir = tempDir();
  const file = path.join(dir, 'records.jsonl');
  fs.writeFileSync(file, '{"id":"a"}\n{"id":"b"}\n{"id":"c","real');
  const read = readJsonLines<{ id: string }>(file);
  assert.deepEqual(read.values.map((v) => v.id), ['a', 'b']);
  assert.equal(read.warnings.length, 1);
  assert.match(read.warnings[0], /records\.jsonl:3: ignoring a torn last line/);

  fs.writeFileSync(file, '{"id":"a"}\n{"id":"b"}');
  assert.deepEqual(readJsonLines<{ id: string }>(file).values.map((v) => v.id), ['a', 'b']);
});

test('a damaged line in the middle is an error naming the line, not silently dropped', () => {
  const dir = tempDir();
  const file = path.join(dir, 'records.jsonl');
  fs.writeFileSync(file, '{"id":"a"}\nnot json\n{"id":"c"}\n');
  assert.throws(() => readJsonLines(file), (e: unknown) => e instanceof InputError && /records\.jsonl:2/.test((e as Error).message));
});

test('the appender sets a torn tail aside and never glues a new line onto it', () => {
  const dir = tempDir();
  const file = path.join(dir, 'records.jsonl');
  fs.writeFileSync(file, '{"id":"a"}\n{"id":"b","x":');
  const out = new JsonLinesAppender(file);
  out.append({ id: 'c' });
  out.close();
  assert.equal(fs.readFileSync(file, 'utf8'), '{"id":"a"}\n{"id":"c"}\n');
  assert.equal(fs.readFileSync(`${file}.torn.txt`, 'utf8'), '{"id":"b","x":\n');

  fs.writeFileSync(file, '{"id":"a"}');
  const again = new JsonLinesAppender(file);
  again.append({ id: 'b' });
  again.close();
  assert.equal(fs.readFileSync(file, 'utf8'), '{"id":"a"}\n{"id":"b"}\n');
});

test('run folders are named <time>-<name> and the newest of a name is found for --resume', () => {
  const ws = tempDir();
  const a = newRunFolder(ws, 'my model/run', new Date('2026-12-01T09:30:00.123Z'));
  assert.equal(path.basename(a), '2026-12-01T09-30-00Z-my-model-run');
  const b = newRunFolder(ws, 'my model/run', new Date('2026-12-02T09:30:00Z'));
  for (const f of [a, b]) {
    prepareRunFolder(f);
    fs.writeFileSync(path.join(f, 'manifest.json'), '{}');
  }
  assert.equal(latestRunFolder(ws, 'my model/run'), b);
  assert.equal(latestRunFolder(ws, 'other'), undefined);
});

test('an unwritable run folder is a clear InputError', () => {
  const dir = tempDir();
  fs.chmodSync(dir, 0o555); // anyone may look inside; no one but root may write
  const target = path.join(dir, 'run');
  const expected = /cannot write the run folder .*run: permission denied/;
  if (process.getuid?.() !== 0) {
    assert.throws(() => prepareRunFolder(target), (e: unknown) => e instanceof InputError && expected.test((e as Error).message));
    return;
  }
  // Root writes anywhere (CI runs as root): the same code runs as the unprivileged user nobody, from a
  // self-contained bundle beside the folder so that it needs no read access to this checkout.
  const bundle = path.join(tempDir(), 'runStore.js');
  esbuild.buildSync({ entryPoints: [path.join(repoRoot, 'src/audit/store/runStore.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'silent' });
  fs.chmodSync(path.dirname(bundle), 0o755);
  fs.chmodSync(bundle, 0o644);
  const script = `try { require(${JSON.stringify(bundle)}).prepareRunFolder(${JSON.stringify(target)}); console.log('written'); } catch (e) { console.log(e.constructor.name + ': ' + e.message); }`;
  const child = spawnSync(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, cwd: '/', encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout.trim(), /^InputError: /);
  assert.match(child.stdout, expected);
  assert.equal(fs.existsSync(target), false, 'nothing was made');
});

test('a file in the way of the run folder is a clear InputError', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'file'), '');
  assert.throws(() => prepareRunFolder(path.join(dir, 'file', 'run')), /cannot write the run folder .*a file is in the way/);
});

test('resume refuses a run made with other settings or another model, and keeps its records', async () => {
  const dataset = smallDataset(10);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 5, modelInfo: { path: '/m', contentHash: 'h' } };
  const folder = tempDir();
  await runAudit({ ...base, settings: settingsFor(), model: fakeFor(dataset), folder, resume: false });
  const before = fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8');
  await assert.rejects(
    runAudit({ ...base, settings: settingsFor(8, { probes: [{ name: 'sample', budget: 8 }] }), model: fakeFor(dataset), folder, resume: true }),
    (e: unknown) => e instanceof InputError && /cannot resume/.test((e as Error).message) && /probes: the run has/.test((e as Error).message),
  );
  await assert.rejects(
    runAudit({ ...base, modelInfo: { path: '/m', contentHash: 'other' }, settings: settingsFor(), model: fakeFor(dataset), folder, resume: true }),
    /model content hash/,
  );
  // Starting a new run over it without --resume is refused too.
  await assert.rejects(runAudit({ ...base, settings: settingsFor(), model: fakeFor(dataset), folder, resume: false }), /already holds an audit.*--resume/);
  assert.equal(fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8'), before);
  assert.equal(readRecords(folder).values.length, 10);
});

test('resuming a run with a torn last line re-audits that question and ends complete', async () => {
  const dataset = smallDataset(10);
  const base = { engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 5, modelInfo: { path: '/m', contentHash: 'h' }, settings: settingsFor() };
  const whole = tempDir();
  await runAudit({ ...base, model: fakeFor(dataset), folder: whole, resume: false });
  const folder = tempDir();
  fs.copyFileSync(path.join(whole, 'manifest.json'), path.join(folder, 'manifest.json'));
  const lines = fs.readFileSync(path.join(whole, 'records.jsonl'), 'utf8').split('\n');
  fs.writeFileSync(path.join(folder, 'records.jsonl'), lines.slice(0, 6).join('\n') + '\n' + lines[6].slice(0, 40));
  const warnings: string[] = [];
  const result = await runAudit({ ...base, model: fakeFor(dataset), folder, resume: true, onWarning: (w) => warnings.push(w) });
  assert.equal(warnings.length, 1);
  assert.equal(result.records.length, 10);
  assert.deepEqual(fs.readFileSync(path.join(folder, 'summary.json'), 'utf8'), fs.readFileSync(path.join(whole, 'summary.json'), 'utf8'));
});
