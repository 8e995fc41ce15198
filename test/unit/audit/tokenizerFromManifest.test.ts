/**
 * --tokenizer-from in a run's manifest (issue 39): recorded as model.tokenizerFrom, read back by the
 * run-file schema, a resume with other tokenizer files (or none) refused while a moved folder is
 * not, comparisons unaffected, and the reproduce command carries the flag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { comparisonMismatches, manifestMismatches } from '../../../src/audit/store/manifest';
import { validateManifest } from '../../../src/audit/store/runFileValidation';
import { reproduceCommand } from '../../../src/service/reproduceCommand';
import type { RunManifest } from '../../../src/contract';

const FIXTURE = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'runs', '2026-12-01T09-30-00Z-demo-base', 'manifest.json');
const plain = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as RunManifest;
const withTokenizer = (dir: string, contentHash: string): RunManifest => ({ ...plain, model: { ...plain.model, tokenizerFrom: { path: dir, contentHash } } });

test('model.tokenizerFrom is read back from manifest.json, and a malformed one is named', () => {
  const m = withTokenizer('/models/base', 'a'.repeat(64));
  assert.deepEqual(validateManifest(JSON.parse(JSON.stringify(m)), 'manifest.json').model.tokenizerFrom, { path: '/models/base', contentHash: 'a'.repeat(64) });
  assert.equal(validateManifest(JSON.parse(JSON.stringify(plain)), 'manifest.json').model.tokenizerFrom, undefined);
  assert.throws(() => validateManifest({ ...m, model: { ...m.model, tokenizerFrom: { path: '/models/base' } } }, 'manifest.json'), /manifest\.json.*model\.tokenizerFrom\.contentHash/);
});

test('a resume with other tokenizer files, or without the flag, is refused; a moved tokenizer folder is not', () => {
  const stored = withTokenizer('/models/base', 'a'.repeat(64));
  assert.deepEqual(manifestMismatches(stored, withTokenizer('/elsewhere/base', 'a'.repeat(64))), []);
  const other = manifestMismatches(stored, withTokenizer('/models/base', 'b'.repeat(64)));
  assert.equal(other.length, 1);
  assert.match(other[0], /^tokenizer: the run has "--tokenizer-from with tokenizer files of hash a{64}", this command gives "--tokenizer-from with tokenizer files of hash b{64}"/);
  assert.match(manifestMismatches(stored, plain)[0], /^tokenizer: .*this command gives "the model folder's own tokenizer"/);
  assert.match(manifestMismatches(plain, stored)[0], /^tokenizer: the run has "the model folder's own tokenizer"/);
  assert.deepEqual(manifestMismatches(plain, plain), []);
});

test("a checkpoint read with its base's tokenizer compares with the base", () => {
  assert.deepEqual(comparisonMismatches(plain, withTokenizer('/models/base', 'a'.repeat(64))), []);
});

test('the reproduce command carries --tokenizer-from beside --model', () => {
  const r = reproduceCommand(withTokenizer('/models/my base', 'a'.repeat(64)));
  assert.ok(r.command.startsWith("reach-audit audit --model media/demo/base --tokenizer-from '/models/my base' --data "), r.command);
  assert.ok(!reproduceCommand(plain).command.includes('--tokenizer-from'));
});
