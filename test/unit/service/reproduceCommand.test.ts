import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reproduceCommand, shellQuote } from '../../../src/service/reproduceCommand';
import type { RunManifest } from '../../../src/contract';

const FIXTURE = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'runs', '2026-12-01T09-30-00Z-demo-base', 'manifest.json');

test('a fixture run: its recorded settings as flags, the defaults left out', () => {
  const m = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as RunManifest;
  const r = reproduceCommand(m);
  assert.equal(
    r.command,
    'reach-audit audit --model media/demo/base --data media/demo/data/arith-test.jsonl --format gsm8k --probe sample:4 --probe routes:4 --select majority,confidence --repair --seed 0 --max-new-tokens 64 --limit 8 --name demo-base',
  );
  assert.deepEqual(r.gaps, []);
});

test('what no flag carries is named, and a preset does not repeat its own stop strings', () => {
  const m = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as RunManifest;
  const raw = reproduceCommand({ ...m, deployment: { ...m.deployment, prompt: 'raw', template: 'Q: {question}\nA:', fewShot: [{ user: 'a', assistant: 'b' }] } });
  assert.ok(raw.command.includes('--prompt raw'));
  assert.equal(raw.gaps.length, 2);
  assert.match(raw.gaps.join(' '), /deployment\.template.*deployment\.fewShot/);
  const preset = reproduceCommand({ ...m, deployment: { ...m.deployment, prompt: 'raw', preset: 'gsm8k-cot-8shot', stop: ['Q:', '\n\n\n', 'END'], fewShot: [{ user: 'a', assistant: 'b' }] } });
  assert.ok(preset.command.includes('--preset gsm8k-cot-8shot'));
  assert.ok(preset.command.includes("--stop END"), preset.command);
  assert.ok(!preset.command.includes("--stop Q:"), preset.command);
  assert.deepEqual(preset.gaps, []);
  const remote = reproduceCommand({ ...m, engine: { ...m.engine, weights: 'int8' }, backend: { backend: 'openai', baseUrls: ['http://h:8000/v1'], apiModel: 'm', layerAccess: true, seedHonoured: true, concurrency: 4 } });
  assert.ok(remote.command.includes('--weights int8 --backend openai --base-url http://h:8000/v1 --api-model m --concurrency 4'));
  assert.match(remote.gaps[0], /--api-key-env/);
});

test('an f16 run carries the questions it measured its cache on when they are not the default', () => {
  const m = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as RunManifest;
  const fidelity = (questions: number) => ({ questions, maxNewTokens: 64, identicalSequences: questions, referenceTokens: 10 * questions, agreeingTokens: 10 * questions, maxLogprobError: 0, meanLogprobError: 0 });
  const f16 = (kvCacheFidelity?: ReturnType<typeof fidelity>) => reproduceCommand({ ...m, engine: { ...m.engine, kvCache: 'f16', ...(kvCacheFidelity ? { kvCacheFidelity } : {}) } }).args;
  const after = (args: string[]) => args.slice(args.indexOf('--kv-cache'), args.indexOf('--name'));
  assert.deepEqual(after(f16(fidelity(8))), ['--kv-cache', 'f16']);
  assert.deepEqual(after(f16(fidelity(3))), ['--kv-cache', 'f16', '--kv-fidelity-questions', '3']);
  // Measured on none (--kv-fidelity-questions 0): the command must not measure 8.
  assert.deepEqual(after(f16()), ['--kv-cache', 'f16', '--kv-fidelity-questions', '0']);
});

test('shell quoting reads back unchanged', () => {
  assert.equal(shellQuote('a/b-c.jsonl'), 'a/b-c.jsonl');
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote(''), "''");
  assert.equal(shellQuote('$HOME x'), "'$HOME x'");
});
